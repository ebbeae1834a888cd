-- run: ndlua $CASE
-- expect: exit 2, "tp must be from 1 to 1048576, got 1099511627776"
local nd = require "nd"
nd.run { tp = 1 << 40 }
