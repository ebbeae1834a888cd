-- Hardware profiles (lua/nd/hardware.lua, lua/nd/hardware/*.lua): loading by
-- name, alias and case; the reference's A2 and A3 machines (search-ranking-cli
-- §d.5); a profile added on the path; bad profiles refused; the pipeline
-- bound of §b.2.
local hardware = require "nd.hardware"

local function refusal(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected a refusal")
  assert.is_true(type(err) == "table" and err.bad_input, tostring(err))
  return err.message
end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

describe("hardware profiles", function()
  it("ships A2, A3, A100-80GB, H100, H200, B200, H800, H20, MI300X, GB200, 910B and 910C", function()
    local names = hardware.names()
    for _, n in ipairs({ "A2", "A3", "A100-80GB", "H100", "H200", "B200", "H800", "H20", "MI300X", "GB200", "910B",
                         "910C" }) do
      assert.is_truthy(table.concat(names, " "):find(n, 1, true), n)
      local p = hardware.load(n)
      assert.are.equal(n, p.name)
      assert.is_true(p.sustained_tflops < p.peak_tflops)
      assert.is_true(p.memory_bytes > 0)
    end
  end)

  it("A2 is the reference's machine: [8, unbounded] devices at [50, 10] GB/s, 140 TFLOP/s sustained, 64 GB", function()
    local p = hardware.load("A2")
    assert.are.same({ { devices = 8, gbps = 50 }, { gbps = 10 } }, p.levels)
    assert.are.equal(140, p.sustained_tflops)
    assert.are.equal(64 * 2 ^ 30, p.memory_bytes)
    assert.are.equal(1, p.nd_comm_divisor)
  end)

  it("A3 is the reference's machine: [16, 24 nodes, unbounded] at [200, 25, 10] GB/s, 160 sustained, divisor 2", function()
    local p = hardware.load("A3")
    assert.are.same({ { devices = 16, gbps = 200 }, { devices = 384, gbps = 25 }, { gbps = 10 } }, p.levels)
    assert.are.equal(160, p.sustained_tflops)
    assert.are.equal(2, p.nd_comm_divisor)
  end)

  it("states the NVIDIA datasheet peaks (dense BF16) and memories", function()
    assert.are.equal(312, hardware.load("A100-80GB").peak_tflops)   -- 624 with sparsity
    assert.are.equal(80 * 2 ^ 30, hardware.load("A100-80GB").memory_bytes)
    assert.are.equal(989, hardware.load("H100").peak_tflops)        -- 1979 with sparsity
    assert.are.equal(989, hardware.load("H200").peak_tflops)
    assert.are.equal(143771 * 2 ^ 20, hardware.load("H200").memory_bytes)
    assert.are.equal(2250, hardware.load("B200").peak_tflops)       -- 36 PFLOP/s sparse for 8 GPUs
    -- NVLink 4: 450 GB/s each way, x 0.8 the bus bandwidth NCCL reaches
    assert.are.equal(360, hardware.load("H100").levels[1].gbps)
  end)

  it("states the added devices' sourced figures", function()
    -- H800 datasheet: NVLink 400 GB/s both ways; x 0.8 = DeepSeek-V3's 160 GB/s
    local h800 = hardware.load("H800")
    assert.are.equal(160, h800.levels[1].gbps)
    assert.are.equal(45, h800.levels[2].gbps)                     -- IB 50 GB/s x 0.9
    assert.are.equal(989, h800.peak_tflops)
    assert.are.equal(148, hardware.load("H20").peak_tflops)       -- 296 with sparsity
    assert.are.equal(96 * 2 ^ 30, hardware.load("H20").memory_bytes)
    assert.are.equal(1307.4, hardware.load("MI300X").peak_tflops) -- 2614.9 with sparsity
    assert.are.equal(192 * 2 ^ 30, hardware.load("MI300X").memory_bytes)
    local gb200 = hardware.load("GB200")
    assert.are.equal(360000 / 72 / 2, gb200.peak_tflops)          -- 360 PFLOP/s sparse for 72 GPUs
    assert.are.equal(72, hardware.node_devices(gb200))            -- one NVLink domain
    assert.are.equal(720, gb200.levels[1].gbps)                   -- 1.8 TB/s both ways, x 0.8
    assert.are.equal(376, hardware.load("910C").peak_tflops)      -- 752 a two-die chip
    assert.are.equal(768, hardware.load("910C").levels[2].devices) -- 384 chips x 2 dies
    assert.are.equal(64 * 2 ^ 30, hardware.load("910B").memory_bytes)
    -- ascend910b still names the reference's A2; 910B names the hardware's own figures
    assert.are.equal("A2", hardware.load("ascend910b").name)
    assert.are.equal("910B", hardware.load("910b").name)
  end)

  -- The profiles that extend another, each resolved whole and compared with
  -- the figures its sources publish (worked by hand here, not read back).
  it("resolves H800, H200, 910B and 910C through extends to their published figures", function()
    local function resolved(name)
      local p = hardware.load(name)
      return { name = p.name, memory_bytes = p.memory_bytes, peak_tflops = p.peak_tflops,
               sustained_tflops = p.sustained_tflops, attention_tflops = p.attention_tflops,
               memory_gbps = p.memory_gbps, levels = p.levels, nd_comm_divisor = p.nd_comm_divisor,
               overlap = p.overlap }
    end
    local overlap = { dp = 0.9, tp = 0.5, cp = 0.5, ep = 0.0, pp = 0.5 }
    -- H800 datasheet: the H100 SXM5's 80GB HBM3 (81559 MiB in nvidia-smi), 3.35 TB/s, 989 dense BF16
    -- TFLOP/s; NVLink 400 GB/s both ways = 200 each way x 0.8 (DeepSeek-V3 §3.2.1: 160 GB/s); IB 50 GB/s x 0.9
    assert.are.same({ name = "H800", memory_bytes = 81559 * 2 ^ 20, peak_tflops = 989, sustained_tflops = 692,
                      attention_tflops = 450, memory_gbps = 3350 * 0.8, nd_comm_divisor = 1, overlap = overlap,
                      levels = { { devices = 8, gbps = 160 }, { gbps = 45 } } }, resolved("H800"))
    -- H200 datasheet: 141GB HBM3e (143771 MiB in nvidia-smi) at 4.8 TB/s x 0.8, the H100's compute
    -- (989 dense, 70 % sustained = 692) and NVLink 4 (450 GB/s each way x 0.8 = 360)
    assert.are.same({ name = "H200", memory_bytes = 143771 * 2 ^ 20, peak_tflops = 989, sustained_tflops = 692,
                      attention_tflops = 450, memory_gbps = 3840, nd_comm_divisor = 1, overlap = overlap,
                      levels = { { devices = 8, gbps = 360 }, { gbps = 45 } } }, resolved("H200"))
    -- 910B: 64 GB HBM2e, 313 reported, the reference's 140 sustained; HCCS 392 GB/s x 0.5, 25 GB/s RoCE x 0.9
    assert.are.same({ name = "910B", memory_bytes = 64 * 2 ^ 30, peak_tflops = 313, sustained_tflops = 140,
                      nd_comm_divisor = 1, overlap = overlap,
                      levels = { { devices = 8, gbps = 196 }, { gbps = 22.5 } } }, resolved("910B"))
    -- 910C (arXiv:2506.12708 §3): 128 GB and 752 TFLOP/s a two-die chip = 64 GB and 376 a die; the UB's
    -- 392 GB/s a chip = 196 a die x 0.8 over 16 and 768 dies; 400 Gb/s RDMA = 25 GB/s a die x 0.9; no
    -- halving of the reference's A3 score
    assert.are.same({ name = "910C", memory_bytes = 64 * 2 ^ 30, peak_tflops = 376, sustained_tflops = 160,
                      nd_comm_divisor = 1, overlap = overlap,
                      levels = { { devices = 16, gbps = 196 * 0.8 }, { devices = 768, gbps = 196 * 0.8 },
                                 { gbps = 22.5 } } }, resolved("910C"))
    -- a profile's own names are not inherited
    assert.are.same({ "h800-sxm", "h800-80gb", "h800-sxm5" }, hardware.load("H800").aliases)
    assert.are.equal("H100", hardware.load("h100-sxm").name)
  end)

  it("refuses an extends naming no profile, or leading back to the profile", function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir .. "/nd/hardware")
    write(dir .. "/nd/hardware/LoopA.lua", 'return { name = "LoopA", extends = "LoopB" }\n')
    write(dir .. "/nd/hardware/LoopB.lua", 'return { name = "LoopB", extends = "LoopA" }\n')
    write(dir .. "/nd/hardware/Orphan.lua", 'return { name = "Orphan", extends = "TPUv9" }\n')
    write(dir .. "/nd/hardware/Slow.lua", 'return { name = "Slow", extends = "H100", sustained_tflops = 500 }\n')
    local saved = package.path
    package.path = dir .. "/?.lua;" .. package.path
    local loop = { pcall(hardware.load, "LoopA") }
    -- a name found nowhere is looked for among every profile's aliases: the loop's files go first
    os.remove(dir .. "/nd/hardware/LoopA.lua")
    os.remove(dir .. "/nd/hardware/LoopB.lua")
    local orphan = { pcall(hardware.load, "Orphan") }
    local slow = { pcall(hardware.load, "Slow") }
    package.path = saved
    os.execute("rm -rf " .. dir)
    assert.is_false(loop[1])
    assert.matches("extends leads back to this profile: 'LoopB' extends it", loop[2].message, 1, true)
    assert.is_false(orphan[1])
    assert.matches("Orphan.lua: extends: 'TPUv9' is no hardware profile ndlua knows", orphan[2].message, 1, true)
    assert.is_true(slow[1], tostring(slow[2]))
    assert.are.equal(500, slow[2].sustained_tflops)
    assert.are.equal(989, slow[2].peak_tflops)
    assert.are.same({}, slow[2].aliases)
  end)

  it("fills the overlap defaults: dp 0.9 and tp 0.5 (the reference), cp 0.5, ep 0, pp 0.5", function()
    assert.are.same({ dp = 0.9, tp = 0.5, cp = 0.5, ep = 0.0, pp = 0.5 }, hardware.load("H100").overlap)
  end)

  it("finds a profile by alias and in any case", function()
    assert.are.equal("A2", hardware.load("ascend910b").name)
    assert.are.equal("A3", hardware.load("Ascend910_93").name)
    assert.are.equal("A100-80GB", hardware.load("a100").name)
    assert.are.equal("H100", hardware.load("h100").name)
  end)

  it("refuses an unknown name, listing the profiles", function()
    local m = refusal(hardware.load, "TPUv9")
    assert.matches("-A: 'TPUv9' is no hardware profile ndlua knows; one of 910B, 910C, A100-80GB, A2, A3, B200, GB200, H100, H20, H200, H800, MI300X",
                   m, 1, true)
  end)

  it("finds a profile a user adds on the path (NDLUA_PATH puts its directory there)", function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir .. "/nd/hardware")
    write(dir .. "/nd/hardware/MyChip.lua", [[
return { name = "MyChip", about = "a test chip", memory = "32GiB", peak_tflops = 100, sustained_tflops = 50,
         levels = { { devices = 4, gbps = 100 }, { gbps = 5 } }, overlap = { ep = 0.25 } }
]])
    local saved = package.path
    package.path = dir .. "/?.lua;" .. package.path
    local ok, p = pcall(hardware.load, "mychip")
    local names = hardware.names()
    package.path = saved
    os.execute("rm -rf " .. dir)
    assert.is_true(ok, tostring(p))
    assert.are.equal("MyChip", p.name)
    assert.are.equal(32 * 2 ^ 30, p.memory_bytes)
    assert.are.equal(0.25, p.overlap.ep)
    assert.are.equal(0.9, p.overlap.dp)
    assert.is_truthy(table.concat(names, " "):find("MyChip", 1, true))
  end)

  it("refuses a bad profile file, naming it", function()
    local path = os.tmpname() .. ".lua"
    local cases = {
      { "return { name = 'x', memory = 'lots', peak_tflops = 1, sustained_tflops = 1, levels = { { gbps = 1 } } }",
        "memory: 'lots' is no memory size" },
      { "return { name = 'x', memory = '1GB', peak_tflops = 1, sustained_tflops = 2, levels = { { gbps = 1 } } }",
        "sustained_tflops exceeds peak_tflops" },
      { "return { name = 'x', memory = '1GB', peak_tflops = 1, sustained_tflops = 1, levels = {} }",
        "levels must list" },
      { "return { name = 'x', memory = '1GB', peak_tflops = 1, sustained_tflops = 1, levels = { { devices = 8, gbps = 1 } } }",
        "the last level is unbounded" },
      { "return { name = 'x', memory = '1GB', peak_tflops = 1, sustained_tflops = 1, levels = { { gbps = 1 } }, "
        .. "overlap = { xp = 1 } }", "overlap.xp is no collective" },
      { "return { name = 'x', memory = '1GB', peak_tflops = 1, sustained_tflops = 1, levels = { { gbps = 1 } }, "
        .. "sm_count = 132 }", "sm_count and gemm_tile come together" },
      { "return { name = 'x', memory = '1GB', peak_tflops = 1, sustained_tflops = 1, levels = { { gbps = 1 } }, "
        .. "sm_count = 132, gemm_tile = { m = 128 } }", "gemm_tile must be {m = rows, n = columns}" },
      { "return { name = 'x', memory = '1GB', peak_tflops = 1, sustained_tflops = 1, levels = { { gbps = 1 } }, "
        .. "attention_short = { knee = 0, from = 4096 } }", "attention_short must be {knee = tokens above 0" },
      { "return { name = 'x' ", "hardware profile " },
      { "return { name = 'x', memory = os.getenv('HOME') }", "attempt to index a nil value" },
    }
    for _, c in ipairs(cases) do
      write(path, c[1])
      local m = refusal(hardware.load_file, path)
      assert.matches(c[2], m, 1, true)
      assert.matches(path, m, 1, true)
    end
    os.remove(path)
  end)

  -- H100 SXM5: 132 SMs (NVIDIA's H100 architecture whitepaper), CUTLASS 3's Hopper tile 128 x 256; the
  -- flash kernel's short-key curve fitted to the H200 measurements (knee 384 from 4096 keys). H200 and
  -- H800 are the same GH100 chip and take them through extends; A100 and the Ascend profiles state none.
  it("states the Hopper kernel shapes: 132 SMs, 128 x 256 tiles, attention knee 384 from 4096", function()
    for _, name in ipairs { "H100", "H200", "H800" } do
      local c = hardware.core(hardware.load(name))
      assert.are.equal(132, c.sm_count, name)
      assert.are.same({ m = 128, n = 256 }, c.gemm_tile, name)
      assert.are.same({ knee = 384, from = 4096 }, c.attention_short, name)
    end
    for _, name in ipairs { "A100-80GB", "A3", "910B" } do
      local c = hardware.core(hardware.load(name))
      assert.is_nil(c.sm_count, name)
      assert.is_nil(c.gemm_tile, name)
      assert.is_nil(c.attention_short, name)
    end
  end)

  it("turns a profile into the table nd.core takes", function()
    local c = hardware.core(hardware.load("A3"))
    assert.are.same({ peak_tflops = 376, sustained_tflops = 160, nd_comm_divisor = 2,
                      levels = { { devices = 16, gbps = 200 }, { devices = 384, gbps = 25 }, { gbps = 10 } },
                      overlap = { dp = 0.9, tp = 0.5, cp = 0.5, ep = 0.0, pp = 0.5 } }, c)
  end)
end)

describe("the machine's pipeline bound (search-ranking-cli §b.2)", function()
  -- for D = N, N/2, ... while D > 1: D // (devices below the level D needs); the largest
  it("A2: N <= 8 -> N; 16..64 -> 8; 128 -> 16; 256 -> 32; 512 -> 64; 1024 -> 128", function()
    local a2 = hardware.load("A2")
    local want = { [1] = 1, [2] = 2, [4] = 4, [8] = 8, [16] = 8, [32] = 8, [64] = 8, [128] = 16, [256] = 32,
                   [512] = 64, [1024] = 128 }
    for n, b in pairs(want) do assert.are.equal(b, hardware.pipeline_bound(a2, n), "N = " .. n) end
  end)

  it("A3: N <= 16 -> N; 32..2048 -> 16", function()
    local a3 = hardware.load("A3")
    for _, n in ipairs({ 1, 2, 4, 8, 16 }) do assert.are.equal(n, hardware.pipeline_bound(a3, n)) end
    for _, n in ipairs({ 32, 64, 128, 256, 512, 1024, 2048 }) do
      assert.are.equal(16, hardware.pipeline_bound(a3, n), "N = " .. n)
    end
    -- a whole supernode, 384 (not a power of two): D = 384 needs the supernode level, 384 // 16 = 24
    assert.are.equal(24, hardware.pipeline_bound(a3, 384))
    -- past 24 nodes: 4096 // 384 = 10 at D = 4096, 16 at D = 256; 8192: D = 8192 -> 21
    assert.are.equal(21, hardware.pipeline_bound(a3, 8192))
  end)
end)
