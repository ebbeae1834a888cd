-- nd.host_link: activation offload's copy price (balance.lua --offload, the
-- reference planner's -ao) and the balancer's choice with it.

local core = require "nd.core"
local hardware = require "nd.hardware"
local host_link = require "nd.host_link"

local GIB = 2 ^ 30

local function near(expected, got, what)
  assert.is_true(math.abs(got - expected) <= 1e-12 * math.max(1, math.abs(expected)),
    ("%s: expected %.17g, got %.17g"):format(what, expected, got))
end

describe("nd.host_link", function()
  it("reads each profile's host link, with the reference's overlap and copy cost", function()
    -- A3: the reference's table (search-ranking-cli.md §d.5): 6.92 GiB/s
    -- measured, 2.8 ms a GiB copied; the overlap default 0.8 (§d.5).
    local a3 = host_link.of(hardware.load("A3"))
    assert.same({ 6.92, 0.8, 2.8 }, { a3.gibps, a3.overlap, a3.cost })
    -- A2: the table's 16.0 GiB/s (a placeholder there), no copy cost.
    local a2 = host_link.of(hardware.load("A2"))
    assert.same({ 16.0, 0.8, 0 }, { a2.gibps, a2.overlap, a2.cost })
    -- NVIDIA datasheets: A100 PCIe Gen4 x16 64 GB/s both ways, H100 PCIe
    -- Gen5 x16 128 GB/s both ways (H200 takes the H100's); each way in GiB/s.
    near(32e9 / GIB, host_link.of(hardware.load("A100-80GB")).gibps, "A100")
    near(64e9 / GIB, host_link.of(hardware.load("H100")).gibps, "H100")
    near(64e9 / GIB, host_link.of(hardware.load("H200")).gibps, "H200")
    -- the command line's values replace the profile's
    local given = host_link.of(hardware.load("A3"), { gibps = 10, overlap = 0.5, cost = 0 })
    assert.same({ 10, 0.5, 0, "--host-link-gibps" }, { given.gibps, given.overlap, given.cost, given.from })
  end)

  it("names a profile that states no host link", function()
    local link, why = host_link.of(hardware.load("B200"))
    assert.is_nil(link)
    assert.equal("the hardware profile B200 states no host link bandwidth (host_link_gibps)", why)
  end)

  it("prices a layer's copies: the part past the overlap of its forward exposed, plus the copy cost", function()
    -- By hand: 1 GiB kept a micro-batch is copied out and back, 2 GiB at
    -- 10 GiB/s = 0.2 s; 0.8 of its 0.1 s forward hides 0.08 s, 0.12 s is
    -- exposed; 2.8 ms a GiB copied x 2 GiB = 0.0056 s; in all 0.1256 s.
    local c = host_link.layer(GIB, 0.1, { gibps = 10, overlap = 0.8, cost = 2.8 })
    assert.equal(GIB, c.bytes)
    near(0.2, c.copy_s, "copy")
    near(0.08, c.hidden_s, "hidden")
    near(0.12, c.exposed_s, "exposed")
    near(0.0056, c.cost_s, "cost")
    near(0.1256, c.time_s, "time")
    -- 0.25 GiB: 0.5 GiB copied in 0.05 s, within the 0.08 s window: none exposed
    c = host_link.layer(GIB / 4, 0.1, { gibps = 10, overlap = 0.8, cost = 0 })
    near(0.05, c.hidden_s, "hidden")
    assert.equal(0, c.exposed_s)
    assert.equal(0, c.time_s)
  end)

  -- A two-stage pipeline, 2 micro-batches (1F1B: stage 1 keeps 2, stage 2
  -- keeps 1), step = sum + max of the stage times; 4 body layers of 1 GiB
  -- static bytes; plain a layer keeps 1 GiB a micro-batch and takes 0.3 s
  -- (0.1 s forward), fully recomputed 0.5 GiB and 0.4 s. Offloaded over
  -- 20 GiB/s with overlap 0.8: 2 GiB copied in 0.1 s, 0.08 s hidden, 0.02 s
  -- exposed: a plain offloaded layer keeps nothing and takes 0.32 s.
  local function problem(limit_gib)
    local layer = { stat = GIB, fwd = 0.1, act = { off = GIB, full = GIB / 2 }, time = { off = 0.3, full = 0.4 } }
    layer.offload = host_link.offload_of(layer, { gibps = 20, overlap = 0.8, cost = 0 })
    return { stages = 2, chunks = 1, micro = 2, body = 4, limit = limit_gib * GIB, coef_sum = 1, coef_max = 1,
             inflight = { { 2 }, { 1 } }, layer = layer }
  end

  it("lets the balancer offload where no recompute fits", function()
    local p = problem(3.5)
    near(0.02, p.layer.offload.time.off, "offload seconds")
    -- By hand at 3.5 GiB: without offload no split fits (stage 1 holding
    -- 2 layers needs at least 2 + 2 x 0.5 x 2 = 4 GiB; holding 1, stage 2
    -- holds 3: at least 3 + 3 x 0.5 = 4.5 GiB). With it: 2/2, stage 1 both
    -- offloaded (2 GiB, 0.64 s; one full, one offloaded: 3 GiB, 0.72 s),
    -- stage 2 one plain and one offloaded (2 + 1 = 3 GiB, 0.62 s; two plain
    -- need 4); step 0.64 + 0.62 + 0.64 = 1.90 s. The splits 1/3 and 3/1 take
    -- at least 0.3 + 0.96 + 0.96 = 2.22 s (three layers within 3.5 GiB all
    -- offloaded, or two of them and one full: 1.04 s).
    local plain = problem(3.5)
    plain.layer.offload = nil
    assert.is_false(core.balance(plain).feasible)
    local got = core.balance(p)
    assert.is_true(got.feasible and got.optimal)
    near(1.90, got.objective, "step")
    assert.same({ off = 2, full = 0 }, got.cells[1][1])
    assert.same({ off = 2, full = 0 }, got.cells[2][1])
    assert.same({ off = 2 }, got.offload[1][1])
    assert.same({ off = 1 }, got.offload[2][1])
    -- what they move: 3 layers of 1 GiB a micro-batch; stage 1 frees 2 x 1 x 2
    -- micro-batches = 4 GiB, stage 2 1 GiB; 0.02 s a layer
    local sum = host_link.summary(p, got)
    assert.same({ 3, 3, 0.75 }, { sum.offloaded_layers, sum.offloaded_gib, sum.offloaded_share })
    assert.same({ layers = 2, bytes = 2 * GIB, held = 4 * GIB }, { layers = sum.stages[1].layers,
      bytes = sum.stages[1].bytes, held = sum.stages[1].held })
    near(0.04, sum.stages[1].seconds, "stage 1 copy seconds")
    near(0.02, sum.stages[2].seconds, "stage 2 copy seconds")
  end)

  it("leaves the layers plain where they fit", function()
    -- By hand at 10 GiB: every layer plain fits (stage 1: 2 + 2 x 2 = 6 GiB),
    -- 0.6 s a stage, step 1.8 s; any offloaded layer adds 0.02 s.
    local got = core.balance(problem(10))
    near(1.8, got.objective, "step")
    assert.same({ off = 0 }, got.offload[1][1])
    assert.same({ off = 0 }, got.offload[2][1])
  end)
end)
