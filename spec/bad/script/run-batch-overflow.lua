-- run: ndlua $CASE
-- expect: exit 2, "micro_batch_size x dp x micro_batch_num", "ndlua plans at most 16777216"
local nd = require "nd"
nd.run { micro_batch_size = 1 << 24, dp = 1 << 20, micro_batch_num = 1 << 24 }
