-- run: ndlua $CASE
-- expect: exit 2, "nd.time_estimate: n (argument 3) must be a whole number of estimates from 1 to 10000000, got 9.2233720368548e+18"
-- issue 13 item 9: nd.time_estimate(m, r, 2^63) is refused (that many estimates would never return)
local nd = require "nd"
local m, r = nd.load(os.getenv("ROOT") .. "/examples/qwen3-30b-a3b-fsdp8/train.yaml", { quiet = true })
nd.time_estimate(m, r, 2 ^ 63)
