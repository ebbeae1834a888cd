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
