-- fs_spec.lua: nd.core.list_dir, mkdir_p and isatty (src/bridge/fs.c), and the Lua
-- code that lists folders with them instead of spawning `ls`.
local core = require "nd.core"
local files = require "nd.files"
local validation = require "nd.validation"

-- A new empty directory (each test removes what it made, by name).
local function tmpdir()
  local path = os.tmpname()
  os.remove(path)
  assert(core.mkdir_p(path))
  return path
end

local function touch(path)
  assert(io.open(path, "w")):close()
end

local NDLUA = os.getenv("NDLUA") or "./ndlua"

-- What `ndlua -e CODE` prints with stdin and stderr from /dev/null and
-- stdout a pipe: no descriptor is a terminal.
local function ndlua_e(code, prefix)
  local p = assert(io.popen((prefix or "") .. NDLUA .. " -e '" .. code .. "' </dev/null 2>/dev/null"))
  local out = p:read("a")
  p:close()
  return out
end

describe("nd.core.list_dir", function()
  local dir
  before_each(function() dir = tmpdir() end)
  after_each(function()
    for _, name in ipairs(core.list_dir(dir) or {}) do
      os.remove(dir .. "/" .. name .. "/deeper")
      os.remove(dir .. "/" .. name)
    end
    os.remove(dir)
  end)

  it("lists an empty directory as an empty array (no . or ..)", function()
    assert.are.same({}, core.list_dir(dir))
  end)

  it("lists every entry, hidden files and folders too, sorted bytewise", function()
    for _, name in ipairs { "zeta.lua", "b9", "b10", "a_b", "a.lua", "Upper", ".hidden" } do touch(dir .. "/" .. name) end
    assert(core.mkdir_p(dir .. "/sub"))
    assert.are.same({ ".hidden", "Upper", "a.lua", "a_b", "b10", "b9", "sub", "zeta.lua" }, core.list_dir(dir))
  end)

  it("gives nil and a message naming the directory when it is missing or no directory", function()
    local names, err = core.list_dir(dir .. "/missing")
    assert.is_nil(names)
    assert.are.equal(dir .. "/missing: cannot list the directory: No such file or directory", err)
    touch(dir .. "/plain")
    names, err = core.list_dir(dir .. "/plain")
    assert.is_nil(names)
    assert.are.equal(dir .. "/plain: cannot list the directory: Not a directory", err)
  end)

  it("refuses an argument that is no string", function()
    assert.has_error(function() core.list_dir() end)
    assert.has_error(function() core.list_dir({}) end)
  end)
end)

describe("nd.core.mkdir_p", function()
  local dir
  before_each(function() dir = tmpdir() end)
  after_each(function()
    os.remove(dir .. "/a/b/c")
    os.remove(dir .. "/a/b")
    os.remove(dir .. "/a")
    os.remove(dir .. "/plain")
    os.remove(dir)
  end)

  it("makes a nested path with its parents, which then lists", function()
    assert.is_true(core.mkdir_p(dir .. "/a/b/c"))
    assert.are.same({ "a" }, core.list_dir(dir))
    assert.are.same({ "b" }, core.list_dir(dir .. "/a"))
    assert.are.same({ "c" }, core.list_dir(dir .. "/a/b"))
    assert.are.same({}, core.list_dir(dir .. "/a/b/c"))
  end)

  it("takes a directory that is there as made", function()
    assert.is_true(core.mkdir_p(dir))
    assert.is_true(core.mkdir_p(dir .. "/a/b/"))
    assert.is_true(core.mkdir_p(dir .. "/a//b"))
  end)

  it("gives nil and a message naming the path and the reason when a file is in the way", function()
    touch(dir .. "/plain")
    local ok, err = core.mkdir_p(dir .. "/plain")
    assert.is_nil(ok)
    assert.are.equal(dir .. "/plain: cannot create the directory: File exists", err)
    ok, err = core.mkdir_p(dir .. "/plain/below")
    assert.is_nil(ok)
    assert.are.equal(dir .. "/plain/below: cannot create the directory: Not a directory", err)
  end)

  it("refuses an argument that is no string", function()
    assert.has_error(function() core.mkdir_p() end)
  end)
end)

describe("nd.core.isatty", function()
  it("is false for descriptors that are /dev/null and a pipe", function()
    assert.are.equal("false\tfalse\tfalse\n", ndlua_e('print(require("nd.core").isatty(0), require("nd.core").isatty(1), require("nd.core").isatty(2))'))
  end)

  it("is false for a descriptor that is not open", function()
    assert.is_false(core.isatty(1000))
  end)

  it("is true for each descriptor of a terminal (a pseudo-terminal from spec/support/pty_session.py)", function()
    local lua = os.tmpname()
    local w = assert(io.open(lua, "w"))
    w:write('local c = require "nd.core"; print(c.isatty(0), c.isatty(1), c.isatty(2))\n')
    w:close()
    local p = assert(io.popen("TERM=dumb PTY_SESSION_TIMEOUT=60 python3 spec/support/pty_session.py " .. NDLUA .. " "
                              .. lua .. " </dev/null 2>&1"))
    local out = p:read("a")
    p:close()
    os.remove(lua)
    assert.are.equal("true\ttrue\ttrue", (out:gsub("\r", ""):gsub("\n$", "")))
  end)

  it("refuses what is no descriptor", function()
    assert.has_error(function() core.isatty(-1) end)
    assert.has_error(function() core.isatty("two") end)
    assert.has_error(function() core.isatty(1.5) end)
  end)
end)

describe("nd.files.on_lua_path", function()
  local dir, saved
  before_each(function()
    dir = tmpdir()
    saved = package.path
  end)
  after_each(function()
    package.path = saved
    for _, name in ipairs(core.list_dir(dir .. "/nd/zz_fs_spec") or {}) do os.remove(dir .. "/nd/zz_fs_spec/" .. name) end
    os.remove(dir .. "/nd/zz_fs_spec")
    os.remove(dir .. "/nd")
    os.remove(dir)
  end)

  it("finds the .lua files of a folder in name order, hidden files and other files left out", function()
    assert(core.mkdir_p(dir .. "/nd/zz_fs_spec"))
    for _, name in ipairs { "b.lua", "a.lua", ".hidden.lua", "notes.txt", "c-d.lua" } do
      touch(dir .. "/nd/zz_fs_spec/" .. name)
    end
    package.path = dir .. "/?.lua;" .. saved
    local paths, names = files.on_lua_path("zz_fs_spec")
    assert.are.same({ "a", "b", "c-d" }, names)
    assert.are.equal(dir .. "/nd/zz_fs_spec/a.lua", paths.a)
    assert.is_nil(paths[".hidden"])
  end)

  it("finds nothing in a folder that is nowhere", function()
    local paths, names = files.on_lua_path("zz_fs_spec_missing")
    assert.are.same({}, paths)
    assert.are.same({}, names)
  end)

  -- opendir(3) fails on a folder that is there with ENOMEM (under `ulimit -v`) or
  -- EMFILE; neither can be caused here without starving the test itself, and
  -- EACCES not as root: list_dir is stood in for, giving its own message form.
  it("raises list_dir's message for a folder that is there but cannot be listed", function()
    assert(core.mkdir_p(dir .. "/nd/zz_fs_spec"))
    touch(dir .. "/nd/zz_fs_spec/a.lua")
    package.path = dir .. "/?.lua;" .. saved
    local list_dir, why = core.list_dir, dir .. "/nd/zz_fs_spec: cannot list the directory: Cannot allocate memory"
    core.list_dir = function(path)
      if path == dir .. "/nd/zz_fs_spec" then return nil, why end
      return list_dir(path)
    end
    local ok, err = pcall(files.on_lua_path, "zz_fs_spec")
    core.list_dir = list_dir
    assert.is_false(ok)
    assert.is_true(type(err) == "table" and err.bad_input == true, "a bad-input error: " .. tostring(err))
    assert.are.equal(why, err.message)
  end)
end)

describe("nd.validation.load", function()
  it("finds no cases in a directory that is not there", function()
    local path = os.tmpname()
    os.remove(path)
    assert.are.same({}, validation.load(path))
  end)

  -- as on_lua_path's test above: list_dir stood in for on one directory that
  -- is there and holds a case file, giving list_dir's own message form
  it("raises list_dir's message for a directory that is there but cannot be listed", function()
    local dir = tmpdir()
    local f = assert(io.open(dir .. "/cases.lua", "w"))
    f:write("return {}\n")
    f:close()
    local list_dir, why = core.list_dir, dir .. ": cannot list the directory: Too many open files"
    core.list_dir = function(path)
      if path == dir then return nil, why end
      return list_dir(path)
    end
    local ok, err = pcall(validation.load, dir)
    core.list_dir = list_dir
    os.remove(dir .. "/cases.lua")
    os.remove(dir)
    assert.is_false(ok)
    assert.is_true(type(err) == "table" and err.bad_input == true, "a bad-input error: " .. tostring(err))
    assert.are.equal(why, err.message)
  end)
end)
