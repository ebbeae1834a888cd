-- src_graph.lua: the graph of src/ drawn from its includes and its calls,
-- with the bar of issue 35 (src/README.md: a file includes or calls only
-- files of its own folder or of the folders below it).
--
--   ndlua scripts/src_graph.lua                  the floors, circles and back edges of src/
--   ndlua scripts/src_graph.lua --check          and exit 2 when the bar is not held
--   ndlua scripts/src_graph.lua --obj obj-asan   calls read from another build's objects
--
-- A node is a file of src/ less its extension: a .c and its .h are one
-- node (core/run), a header without a .c is a node of its own. A node is
-- above another when one of its files includes the other's header
-- (#include "x.h" within a folder, "folder/x.h" across) or its object
-- calls a function, or reads a variable, the other's object defines (read
-- from `nm` on OBJ/FOLDER/NAME.o). Floors count up from the nodes that
-- use no other (floor 0); a circle is a strongly connected set of more
-- than one node; a back edge runs from a folder to one above it, in the
-- order program, binding, search, bridge, core (top to bottom).
--
-- Exit status: 0; 2 under --check when the graph has a circle, more back
-- edges than --max-back, or fewer folders than --min-folders.

local cli = require "nd.cli"
local core = require "nd.core"

local COMMAND = {
  usage = "ndlua scripts/src_graph.lua [--src DIR] [--obj DIR] [--check] [--max-back N] [--min-folders N]",
  about = "Draws the graph of src/ from its includes and calls (nm on the built objects): the floors,\n"
    .. "the circles, and the edges running from a lower folder back up to a higher one.",
  options = {
    { name = "src", arg = "DIR", default = "src", help = "the sources, one folder a layer" },
    { name = "obj", arg = "DIR", default = "obj", help = "the built objects (OBJ/FOLDER/NAME.o); none: includes only" },
    { name = "check", help = "exit with status 2 when the bar below is not held" },
    { name = "max-back", arg = "N", default = 2, help = "back edges the bar allows" },
    { name = "min-folders", arg = "N", default = 4, help = "folders the bar asks for" },
  },
}

-- The folders from top to bottom: a file may use its own folder's files
-- and those of the folders after it.
local FOLDERS = { "program", "binding", "search", "bridge", "core" }
local RANK = {}
for i, f in ipairs(FOLDERS) do RANK[f] = i end

local function read_file(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("a")
  f:close()
  return text
end

-- The .c and .h files of dir's folders: {node = {folder, files = {...}}}.
local function sources(dir)
  local nodes = {}
  for _, folder in ipairs(assert(core.list_dir(dir))) do
    local _, kind = core.file_id(dir .. "/" .. folder)
    if kind == "directory" then
      for _, name in ipairs(assert(core.list_dir(dir .. "/" .. folder))) do
        local base, ext = name:match("^(.-)%.([ch])$")
        if base then
          local id = folder .. "/" .. base
          nodes[id] = nodes[id] or { folder = folder, files = {} }
          table.insert(nodes[id].files, ext)
        end
      end
    end
  end
  return nodes
end

local function add_edge(edges, from, to, why)
  if from == to then return end
  edges[from] = edges[from] or {}
  edges[from][to] = edges[from][to] or why
end

-- Edges from each file's #include "x.h" lines (system headers <x.h> are not src/'s).
local function include_edges(dir, nodes, edges)
  for id, n in pairs(nodes) do
    for _, ext in ipairs(n.files) do
      for target in read_file(dir .. "/" .. id .. "." .. ext):gmatch('\n%s*#%s*include%s*"([^"]+)%.h"') do
        local to = target:find("/", 1, true) and target or n.folder .. "/" .. target
        if nodes[to] then add_edge(edges, id, to, "includes " .. to .. ".h") end
      end
    end
  end
end

-- Edges from calls: each object's undefined symbols that another object of
-- src/ defines (nm -A prints "OBJ/folder/name.o:ADDR T sym" and "...: U sym").
local function call_edges(obj, nodes, edges)
  local defined, wanted = {}, {}
  for id, n in pairs(nodes) do
    local path = obj .. "/" .. id .. ".o"
    if n.files[1] == "c" or n.files[2] == "c" then
      local pipe = io.popen("nm -A " .. path .. " 2>/dev/null")
      local text = pipe:read("a")
      pipe:close()
      for kind, sym in text:gmatch(":[%x ]+ (%a) ([%w_]+)") do
        if kind == "U" then
          wanted[#wanted + 1] = { id, sym }
        elseif kind:match("[TDBRC]") then
          defined[sym] = id
        end
      end
      n.built = text ~= ""
    end
  end
  for _, w in ipairs(wanted) do
    local to = defined[w[2]]
    if to then add_edge(edges, w[1], to, "calls " .. w[2]) end
  end
end

-- Tarjan's strongly connected components: the circles (sets of more than
-- one node), and each node's component.
local function components(ids, edges)
  local index, low, on, stack, comp, circles, n = {}, {}, {}, {}, {}, {}, 0
  local function visit(v)
    n = n + 1
    index[v], low[v] = n, n
    stack[#stack + 1], on[v] = v, true
    for w in pairs(edges[v] or {}) do
      if not index[w] then
        visit(w)
        low[v] = math.min(low[v], low[w])
      elseif on[w] then
        low[v] = math.min(low[v], index[w])
      end
    end
    if low[v] == index[v] then
      local set = {}
      repeat
        local w = table.remove(stack)
        on[w], comp[w] = false, v
        set[#set + 1] = w
      until w == v
      if #set > 1 then
        table.sort(set)
        circles[#circles + 1] = set
      end
    end
  end
  for _, v in ipairs(ids) do
    if not index[v] then visit(v) end
  end
  return circles, comp
end

-- Each node's floor: 0 when it uses no other node, else one above the
-- highest it uses (a circle's nodes share one floor: the floors are those
-- of the graph of components, which has no circle).
local function floors(ids, edges, comp)
  local floor = {}
  local function of(c)
    if floor[c] then return floor[c] end
    local f = 0
    for _, v in ipairs(ids) do
      if comp[v] == c then
        for w in pairs(edges[v] or {}) do
          if comp[w] ~= c then f = math.max(f, of(comp[w]) + 1) end
        end
      end
    end
    floor[c] = f
    return f
  end
  local out = {}
  for _, v in ipairs(ids) do out[v] = of(comp[v]) end
  return out
end

-- The edges from a folder to one above it (a lower rank number); a folder
-- not in FOLDERS counts as a back edge both ways.
local function back_edges(ids, nodes, edges)
  local out = {}
  for _, v in ipairs(ids) do
    local targets = {}
    for w in pairs(edges[v] or {}) do targets[#targets + 1] = w end
    table.sort(targets)
    for _, w in ipairs(targets) do
      local from, to = RANK[nodes[v].folder], RANK[nodes[w].folder]
      if not from or not to or to < from then out[#out + 1] = { v, w, edges[v][w] } end
    end
  end
  return out
end

local function draw(opts)
  local nodes, edges = sources(opts.src), {}
  include_edges(opts.src, nodes, edges)
  if opts.obj ~= "" then call_edges(opts.obj, nodes, edges) end
  local ids, folders, n_edges = {}, {}, 0
  for id, n in pairs(nodes) do
    ids[#ids + 1] = id
    folders[n.folder] = true
    for _ in pairs(edges[id] or {}) do n_edges = n_edges + 1 end
  end
  table.sort(ids)
  local circles, comp = components(ids, edges)
  local n_folders = 0
  for _ in pairs(folders) do n_folders = n_folders + 1 end
  return { nodes = nodes, ids = ids, edges = edges, n_edges = n_edges, n_folders = n_folders, circles = circles,
           floor = floors(ids, edges, comp), back = back_edges(ids, nodes, edges) }
end

local function report(g, opts)
  local unbuilt = {}
  for _, id in ipairs(g.ids) do
    if g.nodes[id].built == false then unbuilt[#unbuilt + 1] = id end
  end
  print(string.format("%s/: %d files in %d folders, %d edges (includes%s)", opts.src, #g.ids, g.n_folders,
                      g.n_edges, opts.obj ~= "" and " and calls, from " .. opts.obj .. "/" or ""))
  if #unbuilt > 0 then print("not built (no calls read): " .. table.concat(unbuilt, ", ")) end
  local top = 0
  for _, id in ipairs(g.ids) do top = math.max(top, g.floor[id]) end
  print(string.format("floors (a file above every file it includes or calls): %d", top + 1))
  for f = top, 0, -1 do
    local here = {}
    for _, id in ipairs(g.ids) do
      if g.floor[id] == f then here[#here + 1] = id end
    end
    print(string.format("  %2d  %s", f, table.concat(here, " ")))
  end
  print(string.format("circles: %d", #g.circles))
  for _, set in ipairs(g.circles) do print("  " .. table.concat(set, " <-> ")) end
  print(string.format("back edges (a folder's file using a folder above it; %s top to bottom): %d",
                      table.concat(FOLDERS, ", "), #g.back))
  for _, e in ipairs(g.back) do print(string.format("  %s -> %s (%s)", e[1], e[2], e[3])) end
  local held = #g.circles == 0 and #g.back <= opts.max_back and g.n_folders >= opts.min_folders
  print(string.format("bar: %d circles (none allowed), %d back edges (at most %d), %d folders (at least %d): %s",
                      #g.circles, #g.back, opts.max_back, g.n_folders, opts.min_folders,
                      held and "held" or "NOT HELD"))
  return held
end

local opts = cli.parse(COMMAND, { ... })
if opts.help then
  io.write(cli.help(COMMAND))
  return
end
local held = report(draw(opts), opts)
if opts.check and not held then os.exit(2, true) end
