-- src_graph_spec.lua: the bar of issue 35 on src/'s graph, drawn from its
-- includes and calls by scripts/src_graph.lua: no circle, at most 2 edges
-- running from a lower folder back up, src/ in at least 4 folders. The
-- script is also run on a made-up tree whose circle and back edge are
-- known by construction, so a script that found nothing could not pass.

local NDLUA = os.getenv("NDLUA") or "./ndlua"
-- The built objects: beside the C tests (CTEST_DIR = OBJ/spec), else obj/.
local OBJ = (os.getenv("CTEST_DIR") or "obj/spec"):gsub("/spec$", "")

-- Runs the script with args; returns its output and exit status.
local function graph(args)
  local p = assert(io.popen(NDLUA .. " scripts/src_graph.lua " .. args .. " 2>&1"))
  local out = p:read("a")
  local _, _, code = p:close()
  return out, code
end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

describe("src/'s graph (scripts/src_graph.lua)", function()
  it("holds the bar: no circle, at most 2 back edges, at least 4 folders", function()
    local out, code = graph("--check --obj " .. OBJ)
    assert.equal(0, code, out)
    assert.truthy(out:find("\ncircles: 0\n", 1, true), out)
    local back = tonumber(out:match("back edges [^\n]*: (%d+)\n"))
    assert.is_true(back <= 2, out)
    local files, folders = out:match("^src/: (%d+) files in (%d+) folders")
    assert.is_true(tonumber(folders) >= 4, out)
    assert.is_true(tonumber(files) > 30, out)
  end)

  it("reads the calls from every object (a missing object would hide its calls)", function()
    local out = graph("--obj " .. OBJ)
    assert.truthy(out:find("includes and calls", 1, true), out)
    assert.falsy(out:find("not built", 1, true), out)
  end)

  it("finds a circle and a back edge in a tree made to hold one of each", function()
    -- core/a.c includes b.h and core/b.c includes a.h: the circle core/a <-> core/b;
    -- core/b.h includes search/d.h: core (bottom) using search (above it), one back edge;
    -- two folders, fewer than 4.
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir .. "/core " .. dir .. "/search")
    write(dir .. "/core/a.c", '/* a */\n#include "b.h"\n')
    write(dir .. "/core/a.h", "/* a */\n")
    write(dir .. "/core/b.c", '/* b */\n#include "a.h"\n')
    write(dir .. "/core/b.h", '/* b */\n#include "search/d.h"\n')
    write(dir .. "/search/d.h", "/* d */\n")
    local out, code = graph("--check --obj '' --src " .. dir)
    os.execute("rm -rf " .. dir)
    assert.equal(2, code, out)
    assert.truthy(out:find("\ncircles: 1\n  core/a <-> core/b\n", 1, true), out)
    assert.truthy(out:find(": 1\n  core/b -> search/d (includes search/d.h)\n", 1, true), out)
    assert.truthy(out:find("3 files in 2 folders", 1, true), out)
    assert.truthy(out:find("NOT HELD", 1, true), out)
  end)
end)
