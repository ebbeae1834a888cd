--- Files on disk: what a path is, and the Lua files of an `nd/<dir>/`
-- folder on the Lua path (hardware profiles, ranking policies).
-- @module nd.files

local files = {}

--- What a path is: "file" (a regular file is one even when its mode keeps
-- it from being read: reading it then says why), "directory", or nil when
-- there is none or it cannot be opened.
-- @tparam string path
-- @treturn string|nil
function files.kind(path)
  local f = io.open(path, "r")
  if not f then
    -- there but unreadable (its mode): "file", so that reading it names the
    -- reason, rather than it being reported as missing
    local id, kind = require("nd.core").file_id(path)
    if id and kind == "file" then return "file" end
    return nil
  end
  local ok, _, code = f:read(0)
  f:close()
  if ok == nil and code == 21 then return "directory" end -- EISDIR
  return "file"
end

--- Writes a whole output file, or raises a bad-input error naming it. A
-- regular file is written beside itself and renamed over (a failure leaves
-- the old one as it was); a device or pipe is written in place; every write,
-- the close and the rename are checked (nd.core.write_file).
-- @tparam string path the file
-- @tparam string text its content
-- @tparam string what what it holds, for the message ("the CSV")
-- `text` is the whole text, or a function giving it in chunks (each call
-- the next string, nil at the end), written as they come.
function files.write(path, text, what)
  local ok, err = require("nd.core").write_file(path, text)
  if not ok then
    require("nd.errors").raise { path = path, message = err .. "; " .. what .. " was not written" }
  end
end

--- An absolute path with `.` and `..` taken out (no link followed).
function files.absolute(path)
  if path:sub(1, 1) ~= "/" then path = (os.getenv("PWD") or ".") .. "/" .. path end
  local parts = {}
  for part in path:gmatch("[^/]+") do
    if part == ".." then parts[#parts] = nil elseif part ~= "." then parts[#parts + 1] = part end
  end
  return "/" .. table.concat(parts, "/")
end

--- Whether two paths name one file: the same device and inode where it
-- exists (links, `./`, hard links), else the same absolute path.
function files.same(a, b)
  local core = require "nd.core"
  local ia, ib = core.file_id(a), core.file_id(b)
  if ia and ib then return ia == ib end
  return files.absolute(a) == files.absolute(b)
end

--- Refuses, before anything is written, an output that is one of the
-- inputs or another output (`--csv train.yaml`, `--csv X --svg X`).
-- @tparam table outputs `{ {option, path}, ... }` ("--csv", "out.csv")
-- @tparam table inputs `{ {what, path}, ... }` ("the TRAIN_YAML", "train.yaml")
function files.check_outputs(outputs, inputs)
  local errors = require "nd.errors"
  for i, o in ipairs(outputs) do
    local id, kind = require("nd.core").file_id(o[2])
    local is_device = id ~= nil and kind ~= "file" -- /dev/null twice is no clash
    for _, input in ipairs(inputs) do
      if input[2] and files.same(o[2], input[2]) then
        errors.raise { path = o[1], message = string.format("%s is %s this run reads; writing it would destroy it",
          o[2], input[1]), accepted = "name another file" }
      end
    end
    for j = i + 1, #outputs do
      local other = outputs[j]
      if not is_device and files.same(o[2], other[2]) then
        errors.raise { path = o[1], message = string.format("%s is also where %s writes; one would overwrite the "
          .. "other", o[2], other[1]), accepted = "name two files" }
      end
    end
  end
end

--- The names in a folder (nd.core.list_dir: sorted bytewise, hidden ones
-- included): none for a folder that is not there; a folder there that
-- cannot be listed (opendir(3) out of memory or file descriptors, no
-- permission) raises list_dir's message as a bad-input error rather than
-- reading as empty.
-- @tparam string dir
-- @treturn table the names
function files.listed(dir)
  local core = require "nd.core"
  local entries, why = core.list_dir(dir)
  if not entries and select(2, core.file_id(dir)) == "directory" then
    require("nd.errors").raise { message = why }
  end
  return entries or {}
end

--- The files `nd/<subdir>/<name>.lua` on the Lua path: `{name = path}` and
-- the names in path order (the first on the path wins, as `require` finds
-- it; within a folder, by name).
-- @tparam string subdir e.g. "hardware"
-- @treturn table name -> path
-- @treturn table the names
function files.on_lua_path(subdir)
  local paths, names, seen = {}, {}, {}
  for template in package.path:gmatch("[^;]+") do
    local root = template:match("^(.*)%?%.lua$")
    local dir = root and root .. "nd/" .. subdir
    if dir and not seen[dir] then
      seen[dir] = true
      -- (files.listed: a folder not there holds nothing, one that cannot
      -- be listed raises); hidden files are left out
      local found = {}
      for _, entry in ipairs(files.listed(dir)) do
        local name = entry:sub(1, 1) ~= "." and entry:match("^([%w_%-%.]+)%.lua$")
        if name then found[#found + 1] = name end
      end
      table.sort(found)
      for _, name in ipairs(found) do
        if not paths[name] then
          paths[name] = dir .. "/" .. name .. ".lua"
          names[#names + 1] = name
        end
      end
    end
  end
  return paths, names
end

--- Raises the bad-input error of a profile name that no file of
-- `nd/<subdir>/` on the Lua path answers: what it is not, the names that
-- would be accepted, and where a new one would go.
-- @tparam string where the option or key that named it
-- @tparam string name the name asked for
-- @tparam string what what the names name ("hardware profile")
-- @tparam string subdir e.g. "hardware"
-- @tparam table names the names known
function files.unknown_profile(where, name, what, subdir, names)
  require("nd.errors").raise { path = where, message = "'" .. name .. "' is no " .. what .. " ndlua knows",
                               accepted = "one of " .. table.concat(names, ", ") .. " (or add nd/" .. subdir .. "/"
                                 .. name .. ".lua to a directory on NDLUA_PATH)" }
end

--- Runs a Lua data file (a profile: a table and nothing else) in an empty
-- environment, where it can read no global and call no function.
-- @tparam string path
-- @return[1] what the file returns
-- @treturn[2] nil
-- @treturn[2] string why not (the file's name in it)
-- @treturn[2] string the step that failed: "read" (missing, unreadable, not
-- Lua) or "run" (it raised an error)
function files.run_data(path)
  -- the compiled form of a file ndlua was built with, as require loads modules
  local chunk, err = require("nd.core").loadfile(path, {})
  if not chunk then return nil, err, "read" end
  local ok, value = pcall(chunk)
  if not ok then return nil, tostring(value), "run" end
  return value
end

return files
