-- A selective recompute range that names its ops is priced afresh, outside
-- the per-kind memo (src/core/estimate.c price_of's scratch entry). Its prices
-- are checked against runs priced through the memo that must equal them.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one

describe("a selective range naming its ops", function()
  local model = nd.model("Qwen/Qwen3-8B")
  local function peak(recompute)
    return nd.estimate(model, nd.run { dp = 8, micro_batch_size = 1, global_batch_size = 64, seq_length = 4096,
                                       recompute = recompute }).peak_bytes
  end
  local every_op_kept = {}
  for _, op in ipairs { "attBMM", "headCast", "dropout", "softmax", "normOp", "gather", "ffAct", "attUp" } do
    every_op_kept[op] = "keep"
  end

  it("keeping every op holds what no recompute holds", function()
    assert.are.equal(peak "off", peak { { option = "selective", ops = every_op_kept } })
  end)

  it("recomputing some ops holds less than keeping them all", function()
    local some = {}
    for op, v in pairs(every_op_kept) do some[op] = v end
    some.softmax, some.attBMM = "recompute", "recompute"
    assert.is_true(peak { { option = "selective", ops = some } } < peak "off")
  end)
end)
