-- run: ndlua $CASE
-- expect: exit 2, "hidden_size must be from 1 to 16777216"
local nd = require "nd"
nd.model { config_overrides = { hidden_size = 10 ^ 15, num_hidden_layers = 2,
  num_attention_heads = 8, vocab_size = 100, intermediate_size = 64 } }
