--- Hardware profiles: a device and its interconnect, as Lua data files
-- `nd/hardware/<name>.lua` (A2, A3, 910B, 910C, A100-80GB, H100, H200, H800, H20,
-- B200, GB200 and MI300X ship in
-- lua/nd/hardware/). A profile is found on the Lua path, so a directory on
-- NDLUA_PATH holding `nd/hardware/<name>.lua` adds a device or replaces a
-- shipped one. Files are read as data: they run with an empty environment.
--
--   local hardware = require "nd.hardware"
--   local h100 = hardware.load("H100")            -- by name or alias, any case
--   nd.core.step_time(model, run, hardware.core(h100))
--
-- A profile file returns:
--   name              its name (as -A takes it)
--   about             one line for --help
--   aliases           other names -A takes (optional)
--   memory            device memory, a size ("80GiB"; binary units)
--   peak_tflops       dense BF16 peak a device, for MFU
--   sustained_tflops  what the layers' kernels reach, for the time model
--   memory_gbps       HBM bandwidth the element-wise ops reach, GB/s (optional:
--                     unstated, their time is left in sustained_tflops)
--   attention_tflops  what a flash attention kernel reaches, its FLOPs counted
--                     as the time model counts them (the forward's, twice that
--                     backward), TFLOP/s (optional: unstated, sustained_tflops)
--   sm_count          the SMs a GEMM kernel's output tiles run on, one tile
--                     an SM at a time (optional: with gemm_tile, prices tile
--                     and wave quantization; unstated, not priced)
--   gemm_tile         {m = rows, n = columns} of the output tile a GEMM
--                     kernel computes on one SM (optional, with sm_count)
--   attention_short   {knee = tokens, from = tokens}: a flash kernel over
--                     fewer keys a query than `from` runs below
--                     attention_tflops, by L/(L + knee) against its value at
--                     `from` (optional; unstated, not priced)
--   host_link_gibps   the device-host copy bandwidth, GiB/s each way, that
--                     activation offload's copies run at (optional: unstated,
--                     balance.lua --offload needs --host-link-gibps; nd.host_link)
--   host_link_cost    ms each GiB copied costs the step beside the copy's
--                     own time (optional, default 0; the reference's A3 2.8)
--   host_link_overlap the share of a layer's forward the copies may run
--                     behind (optional, default 0.8, the reference's)
--   levels            from the node outward: {devices = n, gbps = GB/s each
--                     way a device}, the last without devices (unbounded)
--   overlap           shares of each communication compute hides (optional;
--                     the defaults below)
--   nd_comm_divisor   the reference score's communication divisor (default 1)
--   extends           the profile of the same device this one starts from
--                     (optional, a name as -A takes it): every key but name,
--                     about and aliases is that profile's unless stated here
-- @module nd.hardware

local errors = require "nd.errors"
local files = require "nd.files"
local units = require "nd.units"

local hardware = {}

--- The shares of each collective's time that compute hides, unless a
-- profile states its own:
--   dp 0.9  the reference's comm_dp_overlap: gradient reduce-scatters and
--           parameter gathers run behind the next layers' compute
--   tp 0.5  the reference's comm_tp_overlap
--   cp 0.5  ndlua's choice: ring attention sends the next K/V block while
--           it computes on the current one; half is a cautious share
--   ep 0.0  ndlua's choice: the dispatch and combine all-to-alls sit
--           between the router and the experts, on the critical path,
--           unless a schedule like DualPipe overlaps two micro-batches
--   pp 0.5  ndlua's choice: 1F1B's sends and receives are asynchronous
--           but the receiving stage waits for the first of them
hardware.DEFAULT_OVERLAP = { dp = 0.9, tp = 0.5, cp = 0.5, ep = 0.0, pp = 0.5 }

--- The profile -A means when none is named (the reference planner's default).
hardware.DEFAULT = "A2"

local loaded = {}
local resolving = {}  -- path -> true while the profile it extends is being loaded

local function bad(path, message)
  errors.raise { file = path, message = message }
end

local function check_number(path, p, key, min, max)
  local v = p[key]
  if type(v) ~= "number" or v ~= v or v < min or v > max then
    bad(path, string.format("%s must be a number from %g to %g, got %s", key, min, max, tostring(v)))
  end
end

-- Checks a profile table and fills its defaults; returns it.
local function check(path, p)
  if type(p) ~= "table" then bad(path, "a hardware profile returns a table, got " .. type(p)) end
  if type(p.name) ~= "string" or p.name == "" then bad(path, "name must be the profile's name") end
  local bytes, err = units.parse_bytes(p.memory)
  if not bytes or bytes <= 0 then bad(path, "memory: " .. (err or "must be a size above 0")) end
  p.memory_bytes = bytes
  check_number(path, p, "peak_tflops", 1e-3, 1e9)
  check_number(path, p, "sustained_tflops", 1e-3, 1e9)
  if p.memory_gbps ~= nil then check_number(path, p, "memory_gbps", 1e-3, 1e9) end
  if p.host_link_gibps ~= nil then check_number(path, p, "host_link_gibps", 1e-6, 1e9) end
  if p.host_link_cost ~= nil then check_number(path, p, "host_link_cost", 0, 1e9) end
  if p.host_link_overlap ~= nil then check_number(path, p, "host_link_overlap", 0, 1) end
  if p.attention_tflops ~= nil then check_number(path, p, "attention_tflops", 1e-3, 1e9) end
  if p.sm_count ~= nil then check_number(path, p, "sm_count", 1, 1e6) end
  if p.gemm_tile ~= nil then
    local t = p.gemm_tile
    if type(t) ~= "table" or type(t.m) ~= "number" or type(t.n) ~= "number" or t.m < 1 or t.n < 1 then
      bad(path, "gemm_tile must be {m = rows, n = columns}, each a number of 1 or more")
    end
  end
  if p.attention_short ~= nil then
    local a = p.attention_short
    if type(a) ~= "table" or type(a.knee) ~= "number" or type(a.from) ~= "number" or a.knee <= 0 or a.from < 1 then
      bad(path, "attention_short must be {knee = tokens above 0, from = tokens, 1 or more}")
    end
  end
  if (p.sm_count == nil) ~= (p.gemm_tile == nil) then
    bad(path, "sm_count and gemm_tile come together (tile and wave quantization needs both)")
  end
  if p.sustained_tflops > p.peak_tflops then
    bad(path, "sustained_tflops exceeds peak_tflops")
  end
  if type(p.levels) ~= "table" or #p.levels == 0 then
    bad(path, "levels must list {devices = n, gbps = GB/s} from the node outward")
  end
  local below = 1
  for i, l in ipairs(p.levels) do
    -- the C core's bounds (src/binding/lnd_search.c's level fields): up to
    -- 10^9 GB/s, up to 2^40 devices a level
    if type(l) ~= "table" or type(l.gbps) ~= "number" or not (l.gbps > 0 and l.gbps <= 1e9) then
      bad(path, "levels[" .. i .. "].gbps must be a bandwidth above 0 and at most 1e9 (GB/s each way a device)")
    end
    if i < #p.levels then
      if math.type(l.devices) ~= "integer" or l.devices <= below or l.devices > 1 << 40 then
        bad(path, "levels[" .. i .. "].devices must be a whole number above the level below's " .. below
          .. " and at most 2^40")
      end
      below = l.devices
    elseif l.devices ~= nil then
      bad(path, "the last level is unbounded: levels[" .. i .. "] states no devices")
    end
  end
  local overlap = {}
  for k, v in pairs(hardware.DEFAULT_OVERLAP) do overlap[k] = v end
  for k, v in pairs(p.overlap or {}) do
    if hardware.DEFAULT_OVERLAP[k] == nil then
      bad(path, "overlap." .. tostring(k) .. " is no collective (dp, tp, cp, ep, pp)")
    end
    if type(v) ~= "number" or v < 0 or v > 1 then bad(path, "overlap." .. k .. " must be a share from 0 to 1") end
    overlap[k] = v
  end
  p.overlap = overlap
  p.nd_comm_divisor = p.nd_comm_divisor or 1
  check_number(path, p, "nd_comm_divisor", 1e-6, 1e6)
  p.aliases = p.aliases or {}
  p.path = path
  return p
end

-- The profile table `p` (of the file `path`) with every key it leaves
-- unstated but name, about and aliases taken from the profile it extends.
local function inherit(path, p)
  if type(p.extends) ~= "string" then bad(path, "extends must name a hardware profile, got " .. tostring(p.extends)) end
  if resolving[path] then bad(path, "extends leads back to this profile: '" .. p.extends .. "' extends it") end
  resolving[path] = true
  local ok, base = pcall(hardware.load, p.extends, path .. ": extends")
  resolving[path] = nil
  if not ok then error(base, 0) end
  local out = {}
  for k, v in pairs(base) do
    if k ~= "name" and k ~= "about" and k ~= "aliases" and k ~= "path" and k ~= "memory_bytes" then out[k] = v end
  end
  for k, v in pairs(p) do out[k] = v end
  return out
end

--- Loads a profile file (checked, defaults filled in, what it extends
-- filled in from that profile).
function hardware.load_file(path)
  local p, err = files.run_data(path)
  if err then bad(nil, "hardware profile " .. err) end
  if type(p) == "table" and p.extends ~= nil then p = inherit(path, p) end
  return check(path, p)
end

--- Every profile on the Lua path: `{name = path}` and the names in order
-- (a profile earlier on the path wins, as `require` finds it).
function hardware.available()
  local paths, names = files.on_lua_path("hardware")
  table.sort(names, function(a, b) return a:lower() < b:lower() end)
  return paths, names
end

--- The names of the profiles, sorted, as text for --help and messages.
function hardware.names()
  local _, names = hardware.available()
  return names
end

--- Loads a profile by name or alias, ignoring case; a bad-input error
-- listing the profiles when none matches, naming `option` (default -A).
function hardware.load(name, option)
  name = name or hardware.DEFAULT
  local key = name:lower()
  if loaded[key] then return loaded[key] end
  local paths, names = hardware.available()
  local path = paths[name]
  if not path then
    for _, n in ipairs(names) do
      if n:lower() == key then path = paths[n] end
    end
  end
  if not path then
    for _, n in ipairs(names) do
      -- (a profile whose base is being looked for is no base of its own)
      local p = not resolving[paths[n]] and hardware.load_file(paths[n]) or { aliases = {} }
      for _, alias in ipairs(p.aliases) do
        if alias:lower() == key then path = paths[n] end
      end
    end
  end
  if not path then files.unknown_profile(option or "-A", name, "hardware profile", "hardware", names) end
  local p = hardware.load_file(path)
  loaded[key] = p
  return p
end

--- The table nd.core.search and nd.core.step_time take. A runtime's
-- name (optional) lays that runtime profile's `overlap` over the device's:
-- what compute hides is the runtime's doing (Megatron runs its TP
-- collectives on the compute stream, hiding none). A run stating
-- `overlapped_grad_reduce = true` (Megatron's --overlap-grad-reduce) keeps
-- the device's DP overlap (`overlapped`).
function hardware.core(p, runtime, overlapped)
  local levels = {}
  for i, l in ipairs(p.levels) do levels[i] = { devices = l.devices, gbps = l.gbps } end
  local overlap = p.overlap
  local own = runtime and require("nd.runtimes").load(runtime).overlap
  if own then
    overlap = {}
    for k, v in pairs(p.overlap or hardware.DEFAULT_OVERLAP) do overlap[k] = v end
    for k, v in pairs(own) do
      if not (k == "dp" and overlapped) then overlap[k] = v end
    end
  end
  return { peak_tflops = p.peak_tflops, sustained_tflops = p.sustained_tflops, memory_gbps = p.memory_gbps,
           attention_tflops = p.attention_tflops, sm_count = p.sm_count,
           gemm_tile = p.gemm_tile and { m = p.gemm_tile.m, n = p.gemm_tile.n },
           attention_short = p.attention_short and { knee = p.attention_short.knee, from = p.attention_short.from },
           levels = levels, overlap = overlap,
           nd_comm_divisor = p.nd_comm_divisor }
end

--- A copy of a profile with other link bandwidths (GB/s each way a
-- device): `intra` the node's level, `inter` every level above it (a
-- search config's cluster.intra_node_bandwidth_gbps and
-- inter_node_bandwidth_gbps). The name says the links are not the file's.
function hardware.with_links(p, intra, inter)
  if not intra and not inter then return p end
  local out = {}
  for k, v in pairs(p) do out[k] = v end
  out.levels = {}
  for i, l in ipairs(p.levels) do
    local gbps = l.gbps
    if i == 1 and intra then gbps = intra elseif i > 1 and inter then gbps = inter end
    out.levels[i] = { devices = l.devices, gbps = gbps }
  end
  local parts = {}
  if intra then parts[#parts + 1] = string.format("%g GB/s in a node", intra) end
  if inter then parts[#parts + 1] = string.format("%g GB/s between nodes", inter) end
  out.name = p.name .. " (links " .. table.concat(parts, ", ") .. ")"
  return out
end

--- Devices a node holds (the first level).
function hardware.node_devices(p)
  return p.levels[1].devices or math.maxinteger
end

--- The deepest pipeline the machine suits (reference §b.2 pipeline_bound):
-- for D = n, n/2, n/4, ... while D > 1, D // (the devices below the level
-- D needs); the largest of those, at least 1. A2 (8 a node): n <= 8 -> n,
-- 16..64 -> 8, then n/8; A3 (16 a node, 24 nodes a supernode): n <= 16 -> n,
-- 32..2048 -> 16.
function hardware.pipeline_bound(p, n)
  local best, d = 1, n
  while d > 1 do
    local below = 1
    for _, l in ipairs(p.levels) do
      if l.devices == nil or d <= l.devices then break end
      below = l.devices
    end
    best = math.max(best, d // below)
    d = d // 2
  end
  return best
end

return hardware
