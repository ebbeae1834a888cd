-- run: ndlua $CASE
-- expect: exit 2, "inline:1:4: the alias *x names no anchor defined before it"
local nd = require "nd"
nd.yaml.decode("a: *x", "inline")
