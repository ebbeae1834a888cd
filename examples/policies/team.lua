-- team.lua: an example of a team's own ranking policy.
--
--   ndlua search.lua train.yaml -d 64 -A H100 --policy examples/policies/team.lua
--
-- The team's cluster has fast links inside a node (NVLink, HCCS) and a
-- slow, shared network between nodes, and its experience says:
--
-- 1. Tensor and context parallelism stay inside a node. Their collectives
--    run every layer, in the forward and the backward, and across the
--    network they stall the step; the time model prices the slower level,
--    but a shared network is slower still at busy hours. keep() sets
--    aside any candidate whose TP x CP group is larger than a node.
--
-- 2. Expert parallelism up to 8 is preferred. The all-to-all of a larger
--    EP group crosses nodes and its time varies with the routing's
--    imbalance, which the time model does not see (it assumes balanced
--    routing). Each doubling of EP beyond 8 adds 5 % to the score.
--
-- 3. Memory headroom: the estimate leaves out the allocator's
--    fragmentation, so a candidate whose peak is within 8 % of the budget
--    is set aside.
--
-- The score is the estimated step time with these penalties: lower is
-- better, like every score.
return {
  about = "TP x CP within a node, EP above 8 penalised, 8 % memory headroom",
  keep = function(c, ctx)
    if c.tp * c.cp > ctx.node_devices then return false end
    return c.peak_bytes <= 0.92 * ctx.budget_bytes
  end,
  score = function(c, ctx)
    local penalty = 1.0
    local ep = c.ep
    while ep > 8 do
      penalty = penalty * 1.05
      ep = ep // 2
    end
    return c.step_time_s * penalty
  end,
  -- equally scored candidates: the lighter first
  order = { "peak_bytes" },
}
