-- run: ndlua $CASE
-- expect: exit 2, "bytes in one part, past the 2^59 bytes (512 PiB) ndlua counts"
local nd = require "nd"
local m = nd.model { config_overrides = { hidden_size = 1 << 24, num_hidden_layers = 100000,
  num_attention_heads = 64, vocab_size = 1 << 31, intermediate_size = 1 << 24, arch = "default" } }
nd.estimate(m, nd.run { seq_length = 1 << 31, micro_batch_size = 1 << 24 })
