-- run: ndlua $CASE
-- expect: exit 1, "units-wrong-argument.lua:6: nd.units.gib: argument 1 (bytes) must be a number, got string"
-- issue 13 item 9: nd.units.*, nd.svg.* and nd.census.attach check their arguments
-- (a mistake in a script is a Lua error, exit 1, naming the script's line and the argument)
local nd = require "nd"
print(nd.units.gib("80GB"))
