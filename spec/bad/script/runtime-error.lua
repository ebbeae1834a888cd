-- run: ndlua $CASE
-- expect: exit 1, "ndlua: runtime-error.lua:6: attempt to index a nil value"
local nd = require "nd"
local r = nd.run {}
local t = nil
print(t.tp)
