-- run: ndlua $CASE
-- expect: exit 1, "census-attach-wrong-argument.lua:5: nd.census.attach: argument 2 (records) must be a table, got string"
-- issue 13 item 9: nd.census.attach checks its arguments
local nd = require "nd"
nd.census.attach({}, "census.json")
