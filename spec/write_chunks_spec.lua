-- nd.core.write_file given its text in chunks (src/bridge/file_write.c
-- nd_write_source), as the --csv writer streams a search's candidates: the
-- file is the chunks joined, a failed write or an error in the function
-- leaves the old file as it was and no temporary file beside it.
local core = require "nd.core"
local csv = require "nd.report.csv"

local function read(path)
  local f <close> = assert(io.open(path, "rb"))
  return f:read("a")
end

-- A function giving the strings of list, then nil.
local function chunks_of(list)
  local i = 0
  return function()
    i = i + 1
    return list[i]
  end
end

-- The entries of a directory whose name starts with prefix.
local function beside(dir, prefix)
  local out = {}
  for _, name in ipairs(core.list_dir(dir)) do
    if name:sub(1, #prefix) == prefix then out[#out + 1] = name end
  end
  return out
end

describe("nd.core.write_file in chunks", function()
  local dir, path
  before_each(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(core.mkdir_p(dir))
    path = dir .. "/out.txt"
  end)
  after_each(function()
    for _, name in ipairs(core.list_dir(dir) or {}) do os.remove(dir .. "/" .. name) end
    os.remove(dir)
  end)

  it("writes the chunks joined, ending at nil or at an empty string", function()
    assert.is_true(core.write_file(path, chunks_of { "a,b\n", "1,2\n", "3,4\n" }))
    assert.are.equal("a,b\n1,2\n3,4\n", read(path))
    assert.is_true(core.write_file(path, chunks_of { "x", "", "never written" }))
    assert.are.equal("x", read(path))
    assert.is_true(core.write_file(path, chunks_of {}))
    assert.are.equal("", read(path))
  end)

  it("raises the function's error again and leaves the old file and no temporary file", function()
    assert(core.write_file(path, "old\n")) -- the whole-text form
    local n = 0
    local ok, err = pcall(core.write_file, path, function()
      n = n + 1
      if n == 3 then error("candidate 3 could not be read", 0) end
      return "row\n"
    end)
    assert.is_false(ok)
    assert.are.equal("candidate 3 could not be read", err)
    assert.are.equal("old\n", read(path))
    assert.are.same({ "out.txt" }, beside(dir, "out.txt"))
  end)

  it("refuses a chunk that is no string, naming what it was", function()
    local ok, err = pcall(core.write_file, path, chunks_of { "a", {} })
    assert.is_false(ok)
    assert.matches("the function gave a table, not a string", err, 1, true)
    assert.are.same({}, beside(dir, "out.txt"))
  end)

  it("reports a device that is full, as a whole text does", function()
    local ok, err = core.write_file("/dev/full", chunks_of { "a", "b" })
    assert.is_nil(ok)
    assert.are.equal("cannot write: No space left on device", err)
  end)
end)

describe("the CSV of a search, written in chunks of rows", function()
  it("is the header and every row joined, across the chunks' seams", function()
    -- 9000 candidates: two whole chunks of 4096 rows and a part of one
    local function candidate(i)
      return { rank = i, dp = i, tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1, etp = 1, op = 1, sp = false, mb = 1,
               mbs = 1, recompute = "off", peak_bytes = 1000 + i, peak_stage = 0, step_time_s = i / 8,
               mfu = 0.5, tokens_per_s_per_device = 1e3, nd_score = 1, score = i / 8, kept = true, parts = {} }
    end
    local path = os.tmpname()
    csv.write(path, 9000, candidate)
    local lines = {}
    for line in read(path):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
    os.remove(path)
    assert.are.equal(9001, #lines)
    assert.are.equal(csv.header(), lines[1])
    for _, i in ipairs { 1, 4095, 4096, 4097, 8192, 8193, 9000 } do
      assert.are.equal(csv.row(candidate(i)), lines[i + 1])
    end
    -- row 4096, the last of the first chunk, by hand: 4096/8 = 512 s
    local row = "4096,4096,1,1,1,1,1,1,1,false,1,1,off,5096,0,512,0.5,1000,1,512,true"
    assert.are.equal(row, lines[4097]:sub(1, #row))
  end)
end)

describe("a CSV cell of a float (nd.core.float_text)", function()
  -- The definition, in Lua: the first of %.15g, %.16g, %.17g that reads
  -- back as the float, else what tostring gives (NaN).
  local function by_definition(v)
    for digits = 15, 17 do
      local text = string.format("%." .. digits .. "g", v)
      if tonumber(text) == v then return text end
    end
    return tostring(v)
  end

  it("is the definition's text for special and random floats", function()
    local values = { 0.0, -0.0, 1 / 0, -1 / 0, 0 / 0, 0.1, 1 / 3, 0.1 + 0.2, 2.0 ^ 53, 2.0 ^ 53 + 2, 2.0 ^ 60,
                     1e15 + 0.125, 1e16, 1e22, 5e-324, 1.7976931348623157e308, 12345678901234568.0 }
    math.randomseed(7)
    for i = 1, 20000 do
      -- any bit pattern (NaNs, infinities, subnormals), and floats of every scale
      values[#values + 1] = i % 2 == 0 and string.unpack("d", string.pack("i8", math.random(math.mininteger,
        math.maxinteger))) or math.random() * 10.0 ^ math.random(-30, 30)
    end
    for _, v in ipairs(values) do
      assert.are.equal(by_definition(v), csv.cell(v))
    end
  end)

  it("keeps integers and text as they were", function()
    assert.are.equal("12", csv.cell(12))
    assert.are.equal("-3", csv.cell(-3))
    assert.are.equal('"a,b"', csv.cell("a,b"))
    assert.are.equal("off", csv.cell("off"))
  end)
end)

describe("a search's CSV made in C (result:write_csv, nd.report.csv.write_result)", function()
  -- The lines src/search/search_csv.c makes from the result's records are
  -- compared with the Lua writer's (csv.write of search.candidate's tables,
  -- csv.row and csv.cell, each float by nd.core.float_text), byte for byte,
  -- over every fitting candidate of a real search of every dimension: SP on
  -- and off, shards that do and do not divide the domain, each recompute
  -- mode, a policy's scores and a candidate it does not keep.
  local nd = require "nd"
  local search = require "nd.search"
  local hardware = require "nd.hardware"
  local warnings = require("nd.warnings").quiet()

  local function searched(m, devices, batch, budget, pinned)
    local all = {}
    for _, d in ipairs(search.DIMS) do all[d] = not (pinned or {})[d] end
    return core.search(m, nd.run {}, search.space { model = m:spec(), hardware = hardware.load("A3"),
      devices = devices, global_batch = batch, budget_bytes = budget, searched = all, pinned = pinned or {},
      recompute = { "off", "selective", "full" }, keep_dropped = 0, threads = 1 })
  end

  local function both(r, spans_cp)
    local c_path, lua_path = os.tmpname(), os.tmpname()
    csv.write_result(c_path, r, spans_cp)
    csv.write(lua_path, r:size(), function(i) return search.candidate(r, i, nil, spans_cp) end)
    local c_text, lua_text = read(c_path), read(lua_path)
    os.remove(c_path)
    os.remove(lua_path)
    return c_text, lua_text
  end

  it("is the Lua writer's text, for every fitting candidate", function()
    local m = nd.model("deepseek-ai/DeepSeek-V3", { warnings = warnings })
    local r = searched(m, 512, 1024, 58 * 2 ^ 30)
    local n = r:size()
    assert.is_true(n > 2048) -- more than one chunk of lines
    -- scores a policy would set: thirds (floats of 16 and 17 digits) and
    -- every seventh candidate not kept
    for i = 1, n do r:set_score(i, i / 3, i % 7 ~= 0) end
    r:sort { "score" }
    local c_text, lua_text = both(r, false)
    assert.are.equal(lua_text, c_text)
    local _, lines = c_text:gsub("\n", "")
    assert.are.equal(n + 1, lines)
    local modes, sp = {}, {}
    for i = 1, n do
      local c = r:candidate(i)
      modes[c.recompute], sp[c.sp] = true, true
    end
    assert.are.same({ off = true, selective = true, full = true }, modes)
    assert.are.same({ [true] = true, [false] = true }, sp)
    -- the shard spanning CP: the same as the Lua writer's too
    local c_cp, lua_cp = both(r, true)
    assert.are.equal(lua_cp, c_cp)
  end)

  it("writes the shard a candidate's OP comes to: the domain where it does not divide it", function()
    local m = nd.model("deepseek-ai/DeepSeek-V3", { warnings = warnings })
    local r = searched(m, 512, 1024, 58 * 2 ^ 30, { OP = search.FULL_SHARD })
    local c_text, lua_text = both(r, false)
    assert.are.equal(lua_text, c_text)
    -- the first line's op is its dp (the full shard comes to the domain)
    local first = r:candidate(1)
    assert.are.equal(search.FULL_SHARD, first.op)
    local cells = {}
    for cell in c_text:match("\n([^\n]*)"):gmatch("[^,]+") do cells[#cells + 1] = cell end
    assert.are.equal(tostring(first.dp), cells[9]) -- rank dp tp pp vpp cp ep etp op
    local c_cp, lua_cp = both(r, true)
    assert.are.equal(lua_cp, c_cp)
    assert.are.equal(tostring(first.dp * first.cp), c_cp:match("\n([^\n]*)"):match("^" .. ("[^,]*,"):rep(8) .. "([^,]*)"))
  end)

  it("is the header alone for a result with no fitting candidate", function()
    local m = nd.model("deepseek-ai/DeepSeek-V3", { warnings = warnings })
    local r = searched(m, 8, 8, 2 ^ 30)
    assert.are.equal(0, r:size())
    local c_text, lua_text = both(r, false)
    assert.are.equal(csv.header() .. "\n", c_text)
    assert.are.equal(lua_text, c_text)
  end)

  it("names the step that failed and leaves nothing when the file cannot be written", function()
    local m = nd.model("deepseek-ai/DeepSeek-V3", { warnings = warnings })
    local r = searched(m, 8, 8, 2 ^ 30)
    local ok, err = pcall(csv.write_result, "/nonexistent-dir/out.csv", r, false)
    assert.is_false(ok)
    assert.matches("cannot write: No such file or directory; the CSV was not written", tostring(err.message or err))
  end)
end)
