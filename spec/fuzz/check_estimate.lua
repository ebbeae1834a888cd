--- check_estimate.lua: the fuzz check of the whole train.yaml -> estimate path.
--
-- The input's first byte chooses what it becomes, its second the command
-- line, the rest is the text:
--   byte 1 % 8:  0  the text is the whole train.yaml
--                1  a model section naming Qwen/Qwen3-0.6B (dense) comes first
--                2  ... Qwen/Qwen3-30B-A3B (MoE)
--                3  ... deepseek-ai/DeepSeek-V3 (MLA, MTP)
--                4-7  the text is a config.json, which one of four fixed
--                   train.yamls (plain, TP + PP, EP + VPP + selective
--                   recompute, CP + full recompute) names as model.config_path
--   byte 2:      bit 0: --json; bits 1-4: -d 2^k (k = 0..14), none when 15
-- In modes 1-3 the text's own `model:` key, when it has one, replaces the
-- prefix's (the later key wins). The train.yaml is written to a file and
-- lua/estimate.lua runs on it as `ndlua estimate.lua FILE [-d N] [--json]`
-- runs it, with print silenced.
--
-- What counts as a finding, and why:
--   * any error that is not a bad-input table: a bad input must reach the
--     user as a message naming the key (exit 2), never as an internal error
--     (exit 1) such as "attempt to index a nil value" or a failed assert;
--   * a bad-input error with an empty message;
--   * an estimate with a wrong shape: a stage count other than pp, a part
--     that is negative or not a whole number of bytes, a total that is not
--     the sum of its parts, a peak that is not the largest total, `fits`
--     that disagrees with the capacity (a wrong number printed silently);
--   * (by the harness) a crash, a sanitizer report, more than 512 MiB held
--     by Lua, or 10 s on one input.
local checks = require "check_lib"

local MODELS = { false, "Qwen/Qwen3-0.6B", "Qwen/Qwen3-30B-A3B", "deepseek-ai/DeepSeek-V3" }
local PARTS = { "params", "grads", "optimizer", "main_params", "activations", "comm", "backward_overhead", "reserve" }

-- lua/estimate.lua, found as ndlua finds scripts (on the library's path), print silenced.
local script_path = assert(package.searchpath("estimate", package.path))
local script = assert(loadfile(script_path, "t", setmetatable({ print = function() end }, { __index = _G })))

-- The train.yamls of modes 4-7, after "model:\n  config_path: FILE\n".
local CONFIG_RUNS = {
  "",
  "accelerator:\n  tp_size: 2\n  pp_size: 2\n",
  "accelerator:\n  ep_size: 4\n  pp_size: 2\n  pp_interleave_num: 2\nactivation_checkpoint:\n  mode: selective\n",
  "accelerator:\n  cp_size: 2\n  context_parallel_algo: ulysses_cp\nactivation_checkpoint:\n  mode: full\n",
}

-- The train.yaml text, the config.json text (or nil) and the command line of an input.
local function decode_input(input, config_path)
  local mode, flags = (input:byte(1) or 0) % 8, input:byte(2) or 0
  local text, config = input:sub(3), nil
  if mode >= 4 then
    text, config = "model:\n  config_path: " .. config_path .. "\n" .. CONFIG_RUNS[mode - 3], text
  elseif mode >= 1 then
    text = "model:\n  pretrained_model_name_or_path: " .. MODELS[mode + 1] .. "\n" .. text
  end
  local argv = {}
  if flags & 1 == 1 then argv[#argv + 1] = "--json" end
  local k = (flags >> 1) & 15
  if k < 15 then
    argv[#argv + 1] = "-d"
    argv[#argv + 1] = tostring(1 << k)
  end
  return text, config, argv
end

local function write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

local function check_stage(s, i, est)
  if s.stage ~= i - 1 then checks.finding("stage " .. i .. " is numbered " .. tostring(s.stage)) end
  local sum = 0
  for _, part in ipairs(PARTS) do
    local v = s[part]
    if math.type(v) ~= "integer" or v < 0 then
      checks.finding("stage " .. s.stage .. " " .. part .. " is " .. tostring(v) .. " bytes")
    end
    sum = sum + v
  end
  if sum ~= s.total then checks.finding("stage " .. s.stage .. " total " .. s.total .. " is not its parts' " .. sum) end
  if s.total > est.peak_bytes then checks.finding("stage " .. s.stage .. " is above the peak") end
end

-- The estimate of a run that was read: its shape and sums.
local function check_estimate(est, run)
  if #est.stages ~= run.pp then checks.finding(#est.stages .. " stages for pp = " .. run.pp) end
  local peak = -1
  for i, s in ipairs(est.stages) do
    check_stage(s, i, est)
    if s.total > peak then peak = s.total end
  end
  if peak ~= est.peak_bytes then checks.finding("peak_bytes " .. est.peak_bytes .. " is not the largest total") end
  if est.fits ~= (est.peak_bytes <= est.capacity_bytes) then checks.finding("fits disagrees with the capacity") end
end

-- The library path estimate.lua takes, to check what it computes.
local function check_library(path, argv)
  local train_yaml = require "nd.train_yaml"
  local nd = require "nd"
  local devices
  for i, a in ipairs(argv) do
    if a == "-d" then devices = tonumber(argv[i + 1]) end
  end
  local warnings = require("nd.warnings").quiet()
  local ok, parsed = checks.call("train_yaml.load", nil, train_yaml.load, path,
                                 { devices = devices, warnings = warnings })
  if not ok then return end
  local built, pair = checks.call("train_yaml.build", nil, function() return { train_yaml.build(parsed) } end)
  if not built then return end
  local model, run = pair[1], pair[2]
  local fine, est = checks.call("nd.estimate", nil, nd.estimate, model, run)
  if fine then check_estimate(est, run:spec()) end
end

return function(input)
  local path = os.tmpname()
  local config_path = path .. ".json"
  local text, config, argv = decode_input(input, config_path)
  write(path, text)
  if config then write(config_path, config) end
  local stderr = io.stderr
  io.stderr = { write = function(self) return self end } -- the warnings, printed as estimate.lua prints them
  local ok, err = xpcall(script, function(e)
    if type(e) == "table" then return e end
    return debug.traceback(tostring(e), 2)
  end, path, table.unpack(argv))
  io.stderr = stderr
  if ok then
    ok, err = pcall(check_library, path, argv)
  elseif type(err) == "table" and err.bad_input == true and type(err.message) == "string" and err.message ~= "" then
    ok = true
  end
  os.remove(path)
  os.remove(config_path)
  if not ok then
    if type(err) == "string" and err:match("^FINDING: ") then error(err, 0) end
    checks.finding("ndlua estimate.lua " .. table.concat(argv, " ") .. " ended with an error that is not "
                   .. "a bad-input error", checks.describe(err) .. "\n--- train.yaml:\n" .. text
                   .. (config and ("\n--- config.json:\n" .. config) or ""))
  end
end
