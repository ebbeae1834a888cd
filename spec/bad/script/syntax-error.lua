-- run: ndlua $CASE
-- expect: exit 1, "ndlua: syntax-error.lua:4:", "unexpected symbol near '='"
local nd = require "nd"
local broken = = nd.run {}
