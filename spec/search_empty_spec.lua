-- nd.search.empty: what an empty search says (issue 14 item 1): the rule
-- that refused most candidates and the option or key of this invocation
-- that relaxes it; a search config's hints never name -l.
local empty = require "nd.search.empty"

local function counts(refused)
  local total = 0
  for _, n in pairs(refused) do total = total + n end
  return { tested = total, refused = refused, refused_total = total, priced = 0, fitting = 0, dropped = 0,
           elapsed_s = 0 }
end

describe("an empty search's message", function()
  it("names the rule that refused the most and the command line's option", function()
    local m = empty.explain { counts = counts { ["global batch"] = 30, ["CP constraints"] = 2 }, budget_bytes = 2 ^ 30 }
    assert.matches("32 candidates tested: 32 refused (global batch 30, CP constraints 2), 0 priced", m, 1, true)
    assert.matches("most were refused by the rule 'global batch': relax the global batch (-b)", m, 1, true)
  end)

  it("with a search config names its keys, and neither -l nor a --recompute it would refuse", function()
    local h = empty.config_hints(true)
    local m = empty.explain { counts = counts { ["EP divisibility"] = 5 }, budget_bytes = 2 ^ 30, hints = h }
    assert.matches("relax the expert-parallel degrees (parallelism.ep)", m, 1, true)
    m = empty.explain { counts = counts { ["a degree out of bounds"] = 5 }, budget_bytes = 2 ^ 30, hints = h }
    assert.matches("the search config's parallelism: a wider list, or auto", m, 1, true)
    assert.is_nil(m:find("-l", 1, true))
    assert.are.equal("recompute: auto in the search config", h.recompute)
    assert.are.equal("--recompute auto", empty.config_hints(false).recompute)
    assert.are.equal("parallelism.micro_batch_num", h.list("MB"))
  end)
end)
