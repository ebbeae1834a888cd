-- The binding's userdata types check a tag inside the userdata, not only its
-- metatable (issue 34 item 5): a script can give any userdata any metatable
-- (debug.setmetatable), and a model given a run's metatable once made
-- lnd_check_run read a run_t past the end of the model's 16-byte box
-- (AddressSanitizer: heap-buffer-overflow), and its __gc free a model as a
-- run. The expected messages are the argument errors lnd_check_box raises
-- (src/binding/lnd_aux.c): the type asked for, what the tag says it is.
local nd = require "nd"
local core = require "nd.core"

local NDLUA = os.getenv("NDLUA") or "./ndlua"
local LLAMA = "examples/llama-3.1-70b-tp-pp-sp/train.yaml"

local function load()
  return nd.load(LLAMA, { quiet = true })
end

-- The message of the error f raises.
local function message(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

-- Runs `code` in a child ndlua (a confused __gc runs at collection or at
-- exit; a crash there must not take the spec runner with it): its output
-- and exit status.
local function child(code)
  local p = assert(io.popen(NDLUA .. " - 2>&1 <<'EOF'\n" .. code .. "\nEOF\necho \"[$?]\""))
  local out = p:read("a")
  p:close()
  return out
end

describe("userdata type tags", function()
  it("refuse a model given a run's metatable wherever a run is read", function()
    local model, run = load()
    local confused = load()
    debug.setmetatable(confused, debug.getmetatable(run))
    local want = "(nd.run expected, got nd.model given nd.run's metatable)"
    assert.are.equal("bad argument #2 to 'nd.core.estimate' " .. want, message(core.estimate, model, confused))
    assert.are.equal("bad argument #1 to '?' " .. want, message(tostring, confused))
    assert.matches("calling 'spec' on bad self " .. want:gsub("%p", "%%%0"), message(function() return confused:spec() end))
  end)

  it("refuse a run given a model's metatable, and any other userdata given either", function()
    local model, run = load()
    debug.setmetatable(run, debug.getmetatable(model))
    assert.are.equal("bad argument #1 to 'nd.core.estimate' (nd.model expected, got nd.run given nd.model's metatable)",
                     message(core.estimate, run, run))
    local f = io.tmpfile()
    f:close() -- closed: its own __gc has nothing left to do
    debug.setmetatable(f, debug.getmetatable(model))
    assert.are.equal("bad argument #1 to 'nd.core.estimate' (nd.model expected, got a userdata given nd.model's "
                     .. "metatable)", message(core.estimate, f, run))
  end)

  it("free a box by its own tag whatever metatable it carries at collection, and leave other userdata alone",
     function()
    -- a model under the run's, the search result's and the scratch
    -- estimate's metatables, a run under the model's, a closed file under
    -- the run's: each collected, then the state closed at exit (status 0;
    -- make asan's LeakSanitizer sees every model and run freed)
    local out = child([[
local nd = require "nd"
local core = require "nd.core"
local reg = debug.getregistry()
local function load() return nd.load("]] .. LLAMA .. [[", { quiet = true }) end
local model, run = load()
core.estimate(model, run) -- the scratch estimate's metatable is made on first use
local mt = { run = debug.getmetatable(run), model = debug.getmetatable((load())),
             result = reg["nd.search_result"], estimate = reg["ndlua.estimate"] }
assert(mt.result and mt.estimate)
for _, name in ipairs { "run", "result", "estimate" } do debug.setmetatable((load()), mt[name]) end
local _, r2 = load()
debug.setmetatable(r2, mt.model)
r2 = nil
local f = io.tmpfile(); f:close(); debug.setmetatable(f, mt.run); f = nil
collectgarbage(); collectgarbage()
local m3 = load()
debug.setmetatable(m3, mt.run)
print("collected")]])
    assert.are.equal("collected\n[0]\n", out)
  end)
end)
