--- nd.host_link: what offloading a layer's activations to the host costs,
-- for the pipeline balancer's per-layer choice (balance.lua --offload, the
-- reference planner's -ao; search.lua --balance --offload).
--
-- The mechanism is PyTorch's torch.autograd.graph.save_on_cpu (pytorch
-- PR #61928: "all tensors saved during the forward pass are actually copied
-- to cpu, then copied back to the appropriate device for the backward
-- pass"): an offloaded layer keeps none of its saved activations on the
-- device between its forward and its backward (share 1), and moves them
-- twice over the host link a micro-batch, out in its forward and back
-- before its backward.
--
-- The rule (the reference planner's -ao, reference/search-ranking-cli.md
-- §(e) and §d.5: "first k layers per stage may run plain and offload,
-- allowed while copies fit the forward window (overlap share)"; host link
-- GiB/s and copy cost per GiB per device): a layer keeping B bytes a
-- micro-batch copies 2·B over the link at `gibps` GiB/s, 2·B / gibps
-- seconds; the part of it within `overlap` of the layer's own forward
-- seconds runs behind compute (hidden), the rest adds to the layer's
-- seconds (exposed); every GiB copied adds `cost` ms beside (the
-- reference's "ms per GiB moved that copies cost the step", A3 2.8). Where
-- the reference refuses an offload whose copies do not fit the window,
-- ndlua prices the exposed rest, so the balancer takes it only where the
-- memory it frees buys more than it costs. Only plain (off) layers offload,
-- as the reference's; which of a stage's plain layers offload does not
-- change the count model's bytes or seconds, so a plan's k offloaded layers
-- are written as the stage's first k (the reference's).
--
-- Not priced: the pinned host buffers' size and the host's memory; a
-- layer's copy-back buffer while its backward runs (the balancer's count
-- model, as the estimate's offload_activations share, keeps no working set
-- for it); the two directions sharing a full-duplex link (each is priced
-- in full, one after the other).
-- @module nd.host_link

local M = {}

--- The reference's default share of the forward the copies may run behind
-- (§d.5, "Host-link overlap default 0.8").
M.DEFAULT_OVERLAP = 0.8

--- The share of a layer's kept activations an offloaded layer moves to the
-- host (save_on_cpu: every saved tensor).
M.SHARE = 1

local GIB = 2 ^ 30

--- The link of a hardware profile with the command line's changes
-- (given.gibps GiB/s, given.overlap share, given.cost ms a GiB), or nil and
-- why there is none (a profile stating no host link and none given).
function M.of(profile, given)
  given = given or {}
  local gibps = given.gibps or profile.host_link_gibps
  if not gibps then
    return nil, ("the hardware profile %s states no host link bandwidth (host_link_gibps)"):format(profile.name)
  end
  return {
    gibps = gibps,
    overlap = given.overlap or profile.host_link_overlap or M.DEFAULT_OVERLAP,
    cost = given.cost or profile.host_link_cost or 0,
    from = given.gibps and "--host-link-gibps" or ("the " .. profile.name .. " profile"),
  }
end

--- What offloading one layer costs a micro-batch: `act` its kept bytes a
-- micro-batch, `fwd` its forward seconds a micro-batch. Returns {bytes
-- (moved out, and as many back), copy_s (both ways), hidden_s, exposed_s,
-- cost_s, time_s = exposed_s + cost_s}.
function M.layer(act, fwd, link)
  local bytes = M.SHARE * act
  local copy = 2 * bytes / (link.gibps * GIB)
  local hidden = math.min(copy, link.overlap * math.max(fwd or 0, 0))
  local cost = link.cost * 1e-3 * 2 * bytes / GIB
  return { bytes = bytes, copy_s = copy, hidden_s = hidden, exposed_s = copy - hidden, cost_s = cost,
           time_s = copy - hidden + cost }
end

--- The balancer's offload table of a priced layer ({act = {off = bytes},
-- fwd = seconds}): its plain option may run offloaded (nd.core.balance's
-- layer.offload = {share, time = {option = seconds}}).
function M.offload_of(layer, link)
  return { share = M.SHARE, time = { off = M.layer(layer.act.off, layer.fwd, link).time_s } }
end

--- The command line's --offload (or --auto-offload, the reference's name)
-- and host-link options (--host-link-gibps G, --host-link-overlap F,
-- --host-link-cost MS), as nd.cli parsed them into `opts`: sets
-- opts.offload and opts.link ({gibps, overlap, cost}, each nil where not
-- given), or calls bad(message, accepted) (the reference's rule: a host-link
-- option without -ao is an error).
function M.read_options(opts, bad)
  opts.offload = opts.offload or opts.auto_offload
  for _, name in ipairs { "host-link-gibps", "host-link-overlap", "host-link-cost" } do
    if opts[(name:gsub("-", "_"))] ~= nil and not opts.offload then
      bad("--" .. name .. " prices activation offload's copies: it needs --offload", "--offload --" .. name .. " ...")
    end
  end
  if not opts.offload then return end
  local function number_in(text, option, low, high, above)
    local x = tonumber(text)
    if not x or x ~= x or x < low or x > high or (above and x == low) then
      bad(("%s must be a number %s %g%s, got %s"):format(option, above and "above" or "from", low,
        high < math.huge and (" to %g"):format(high) or "", text))
    end
    return x
  end
  opts.link = {
    gibps = opts.host_link_gibps and number_in(opts.host_link_gibps, "--host-link-gibps", 0, math.huge, true),
    overlap = opts.host_link_overlap and number_in(opts.host_link_overlap, "--host-link-overlap", 0, 1),
    cost = opts.host_link_cost and number_in(opts.host_link_cost, "--host-link-cost", 0, math.huge),
  }
end

--- A plan's offloaded layers, by stage and in all: per stage {layers, bytes
-- (moved out a micro-batch), held (device bytes they free at the stage's
-- in-flight micro-batches), seconds (what they add a micro-batch)}, and
-- offloaded_layers, offloaded_gib (GiB a micro-batch all stages move out),
-- offloaded_share (offloaded layers over the body's). p: the problem (its
-- layer or kinds, inflight), plan: nd.core.balance's.
function M.summary(p, plan)
  local stages, layers, bytes = {}, 0, 0
  for s = 1, p.stages do
    local t = { layers = 0, bytes = 0.0, held = 0.0, seconds = 0.0 }
    for v = 1, p.chunks do
      local function add(l, y)
        if y > 0 then
          local b = l.offload.share * l.act.off
          t.layers, t.bytes = t.layers + y, t.bytes + y * b
          t.held, t.seconds = t.held + y * b * p.inflight[s][v], t.seconds + y * l.offload.time.off
        end
      end
      if p.kinds and plan.kind_offload then
        for k, l in ipairs(p.kinds) do add(l, plan.kind_offload[s][v][k].off or 0) end
      elseif plan.offload then
        add(p.layer, plan.offload[s][v].off or 0)
      end
    end
    stages[s], layers, bytes = t, layers + t.layers, bytes + t.bytes
  end
  return { stages = stages, offloaded_layers = layers, offloaded_gib = bytes / GIB,
           offloaded_share = p.body > 0 and layers / p.body or 0 }
end

return M
