--- Files on disk: what a path is, and the Lua files of an `nd/<dir>/`
-- folder on the Lua path (hardware profiles, ranking policies).
-- @module nd.files

local files = {}

--- What a path is: "file", "directory", or nil when it cannot be opened
-- (absent or unreadable).
-- @tparam string path
-- @treturn string|nil
function files.kind(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local ok, _, code = f:read(0)
  f:close()
  if ok == nil and code == 21 then return "directory" end -- EISDIR
  return "file"
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
      local p = io.popen("ls -1 '" .. dir:gsub("'", "'\\''") .. "' 2>/dev/null")
      local found = {}
      if p then
        for line in p:lines() do found[#found + 1] = line:match("^([%w_%-%.]+)%.lua$") end
        p:close()
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

return files
