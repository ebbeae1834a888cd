--- Ranking policies: how the fitting candidates of a search are ordered.
-- A policy is a Lua file returning a table:
--
--   order  = {"step_time_s", "peak_bytes"}   -- keys the C core sorts by
--                                            -- ("-mfu" descending); fast
--   score  = function(c, ctx) ... end        -- or: a number, lower is better
--   keep   = function(c, ctx) ... end        -- optional: false sets c aside
--   stages = true                            -- optional: c.stage_bytes
--   about  = "one line for --help"
--
-- With `score`, every fitting candidate is passed to it in Lua and the
-- result is sorted by the scores (then by `order`, if the policy gives
-- one as a tie-break); with only `order`, the sort runs in C. `keep` runs
-- for every fitting candidate; those it refuses go after the kept ones and
-- are not recommended. A candidate `c` is the table of
-- nd.core.search's result:candidate(i): dp, tp, pp, vpp, cp, ep, etp, op,
-- sp, mb, mbs, recompute, peak_bytes, peak_stage, step_time_s, mfu,
-- tokens_per_s_per_device, nd_score, parts = {forward_s, backward_s,
-- recompute_s, tp_s, cp_s, ep_s, pp_s, dp_s, bubble_s, optimizer_s} and, with
-- `stages = true`, stage_bytes (each stage's total). `ctx` holds
-- devices, node_devices, budget_bytes, global_batch and hardware (the
-- profile).
--
-- Shipped policies are `nd/policies/<name>.lua` on the Lua path
-- (throughput, memory, nd); `--policy FILE` loads any file. A policy file
-- runs in its own environment over the globals (it may `require`); an
-- error while loading it or in its functions names the file and line and
-- exits with status 2.
-- @module nd.policies

local errors = require "nd.errors"
local files = require "nd.files"

local policies = {}

--- The policy a search ranks by unless told otherwise.
policies.DEFAULT = "throughput"

--- The keys `order` may name (the C core's sort keys).
policies.KEYS = { step_time_s = true, peak_bytes = true, nd_score = true, score = true, mfu = true,
                  tokens_per_s_per_device = true }

local function fail(file, message)
  errors.raise { file = file, message = message }
end

-- A policy error's message: "FILE:LINE: message" as Lua gives it, or the
-- file alone when the error carries no position.
local function error_text(err)
  return tostring(type(err) == "table" and err.message or err)
end

--- Checks a policy table (order, score, keep) as a policy file's is
-- checked, a bad-input error naming `file` (or what stands for it: a
-- table handed to nd.search is "opts.policy") when it is wrong; returns it.
function policies.check(file, p)
  if type(p) ~= "table" then fail(file, "a ranking policy returns a table, got " .. type(p)) end
  if p.order ~= nil then
    if type(p.order) ~= "table" or #p.order == 0 then fail(file, "order must list sort keys") end
    for _, k in ipairs(p.order) do
      local name = type(k) == "string" and k:gsub("^%-", "") or nil
      if not name or not policies.KEYS[name] then
        fail(file, "order: '" .. tostring(k) .. "' is no sort key; keys: step_time_s, peak_bytes, nd_score, mfu, "
             .. "tokens_per_s_per_device, score, each optionally prefixed with - (descending)")
      end
    end
  end
  for _, f in ipairs({ "score", "keep" }) do
    if p[f] ~= nil and type(p[f]) ~= "function" then fail(file, f .. " must be a function") end
  end
  if p.order == nil and p.score == nil then
    fail(file, "a ranking policy gives order = {keys...} or score = function(candidate)")
  end
  p.file = file
  return p
end

--- Loads a policy file.
function policies.load_file(path)
  local env = setmetatable({}, { __index = _G })
  local chunk, err = loadfile(path, "t", env)
  if not chunk then fail(nil, "ranking policy " .. tostring(err)) end
  local ok, p = xpcall(chunk, error_text)
  if not ok then fail(nil, "ranking policy " .. path .. ": " .. p) end
  return policies.check(path, p)
end

--- Whether a --policy value names a file rather than a shipped policy.
function policies.is_file(name)
  return name:find("/", 1, true) ~= nil or name:match("%.lua$") ~= nil
end

--- Loads a policy by name (`nd/policies/<name>.lua` on the Lua path) or
-- file; a bad-input error naming `option` (default --policy) when none is found.
function policies.load(name, option)
  name = name or policies.DEFAULT
  local path
  if policies.is_file(name) then
    if not files.kind(name) then
      errors.raise { path = option or "--policy", message = "no policy file '" .. name .. "'" }
    end
    path = name
  else
    path = name:match("^[%w_%-]+$") and package.searchpath("nd.policies." .. name, package.path)
    if not path then
      errors.raise { path = option or "--policy", message = "'" .. name .. "' is no ranking policy",
                     accepted = "one of " .. table.concat(policies.names(), ", ") .. ", or a policy file (FILE.lua)" }
    end
  end
  local p = policies.load_file(path)
  p.name = p.name or name
  return p
end

--- The names of the shipped policies (the files of nd/policies/ on the path).
function policies.names()
  local _, all = files.on_lua_path("policies")
  local out = {}
  for _, n in ipairs(all) do
    if n:match("^[%w_%-]+$") then out[#out + 1] = n end
  end
  table.sort(out)
  return out
end

-- Calls a policy function; an error in it names the file and line.
local function call(p, what, f, c, ctx)
  local ok, v = xpcall(f, error_text, c, ctx)
  if not ok then
    fail(nil, string.format("ranking policy %s: %s (in %s, for candidate dp %d tp %d pp %d)", p.file, v, what,
                            c.dp, c.tp, c.pp))
  end
  return v
end

--- Orders a search result by a policy.
-- @tparam userdata result nd.core.search's result
-- @tparam table p a loaded policy
-- @tparam table ctx what the policy's functions see besides the candidate
-- @tparam[opt] function get `get(i, with_stages)` -> the i-th candidate
--   (default: result:candidate(i, model) when `with_stages`)
-- @tparam[opt] userdata model passed for `stages = true`
-- @tparam[opt] function exclude `exclude(c)`: true sets c aside whatever
--   the policy says (the search's own rule, before the policy's)
-- @treturn integer the candidates kept (the first of the sorted result)
-- @treturn integer those `exclude` set aside
function policies.apply(result, p, ctx, get, model, exclude)
  get = get or function(i, with_stages) return result:candidate(i, with_stages and model or nil) end
  local n = result:size()
  -- without a keep function, every fitting candidate is kept (a bounded
  -- search holds only its top of them: result:size() counts those)
  local kept, excluded = result:counts().fitting, 0
  if p.score or p.keep or exclude then
    kept = 0
    for i = 1, n do
      local c = get(i, p.stages)
      local keep = true
      if exclude and exclude(c) then
        keep = false
        excluded = excluded + 1
      elseif p.keep then
        keep = call(p, "keep", p.keep, c, ctx) and true or false
      end
      local score = c.score
      if p.score then
        score = call(p, "score", p.score, c, ctx)
        if type(score) ~= "number" or score ~= score then
          fail(nil, string.format("ranking policy %s: score returned %s, not a number (candidate dp %d tp %d pp %d)",
                                  p.file, tostring(score), c.dp, c.tp, c.pp))
        end
      end
      result:set_score(i, score, keep)
      if keep then kept = kept + 1 end
    end
  end
  local keys = {}
  if p.score then keys[1] = "score" end
  for _, k in ipairs(p.order or {}) do keys[#keys + 1] = k end
  if #keys == 0 then keys[1] = "score" end
  result:sort(keys)
  return kept, excluded
end

return policies
