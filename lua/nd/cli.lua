--- A small option parser for the entry scripts (verify.lua, estimate.lua,
-- search.lua). A script declares its options in one table, which gives both
-- the parser and the --help text (as sysbench's scripts do):
--
--   local cli = require "nd.cli"
--   local command = {
--     usage = "ndlua verify.lua [options] TRAIN_YAML | HUB_ID | DIR",
--     about = "Prints the model a config resolves to.",
--     options = {
--       { name = "json", help = "print one JSON document" },
--       { name = "seq-len", short = "s", arg = "N", default = 4096,
--         help = "tokens a sequence holds" },
--     },
--   }
--   local opts, args = cli.parse(command, { ... })
--   if opts.help then io.write(cli.help(command)) return end
--
-- An option `{name, short, arg, help, default}` takes a value when it has
-- `arg`; a default that is a number makes the value a number (an integer
-- when the default is one). Values read as `--name VALUE`, `--name=VALUE`,
-- `-s VALUE` or `-sVALUE`; `--` ends the options. `--help`/`-h` is always
-- there. A `short` of several letters is a single-dash long option (the
-- reference planner's `-mem`): `-mem VALUE` or `-mem=VALUE`. An option with
-- `list = true` takes one or more values, separated by commas or given as
-- the following arguments up to the next option (`-l DP TP PP` or
-- `-l DP,TP,PP`); with `item = PATTERN` only arguments matching it are taken,
-- so a positional after the list (`-l DP TP train.yaml`) stays one. Its
-- value is an array of strings. The result maps each option's name, with `-` read as `_`, to its
-- value (or its default; flags to true or false). Unknown options and
-- missing or malformed values are bad-input errors (exit status 2).
-- @module nd.cli

local check = require "nd.check"

local cli = {}

local HELP = { name = "help", short = "h", help = "print this help and exit" }

local function options_of(command)
  local list = {}
  for _, o in ipairs(command.options or {}) do list[#list + 1] = o end
  list[#list + 1] = HELP
  return list
end

local function key_of(option)
  return (option.name:gsub("-", "_"))
end

local function bad(option_text, message)
  check.option(option_text):fail(message, "see --help")
end

-- The value of an option as its default's type asks.
local function convert(option, text, shown)
  local d = option.default
  if type(d) ~= "number" then return text end
  local place = check.option(shown)
  local n = check.read(place, tonumber(text), "number", "see --help", text)
  if math.type(d) == "integer" then
    return check.read(place, math.tointeger(n), "integer", "see --help", text)
  end
  return n
end

-- Finds the option an argument names; returns option, inline value, shown name.
local function lookup(list, a)
  local long, inline = a:match("^%-%-([^=]+)=(.*)$")
  long = long or a:match("^%-%-(.+)$")
  if long then
    for _, o in ipairs(list) do
      if o.name == long then return o, inline, "--" .. long end
    end
    bad("--" .. long, "unknown option")
  end
  for _, o in ipairs(list) do
    if o.short and #o.short > 1 then
      if a == "-" .. o.short then return o, nil, a end
      local v = a:match("^%-" .. o.short:gsub("%p", "%%%0") .. "=(.*)$")
      if v then return o, v, "-" .. o.short end
    end
  end
  local short, rest = a:match("^%-(.)(.*)$")
  for _, o in ipairs(list) do
    if o.short == short then return o, rest ~= "" and rest or nil, "-" .. short end
  end
  bad("-" .. short, "unknown option")
end

-- The values of a list option: its inline value or the next argument,
-- then each following argument up to an option (or one `item` refuses);
-- every one split at commas. Returns the array and the last index read.
local function read_list(option, argv, i, inline, shown)
  local values = {}
  local function add(text)
    for part in text:gmatch("[^,]+") do values[#values + 1] = part end
  end
  if inline ~= nil then
    add(inline)
  else
    i = i + 1
    if argv[i] == nil or (argv[i]:sub(1, 1) == "-" and argv[i] ~= "-") then
      bad(shown, "needs a value (" .. option.arg .. ")")
    end
    add(argv[i])
  end
  while argv[i + 1] ~= nil and argv[i + 1]:sub(1, 1) ~= "-"
    and (option.item == nil or argv[i + 1]:match(option.item)) do
    i = i + 1
    add(argv[i])
  end
  if #values == 0 then bad(shown, "needs a value (" .. option.arg .. ")") end
  return values, i
end

--- A count given on the command line (`-d 64`): a whole number above 0,
-- and at most `max` when given.
-- @tparam string|number text the value as given
-- @tparam string option the option, named in the error (e.g. "-d")
-- @tparam[opt] integer max the largest accepted
-- @tparam[opt] string what what it counts ("devices"), for the message
-- @treturn integer the count; a bad-input error otherwise
function cli.positive_integer(text, option, max, what)
  local place = check.option(option)
  local n = check.read(place, math.tointeger(tonumber(text)), "count", nil, text)
  if max and n > max then
    place:fail(string.format("%d %s is past the %d ndlua prices", n, what or "", max),
               string.format("a whole number from 1 to %d", max))
  end
  return n
end

--- The most devices a run or search takes (the C core's bound on
-- dp x tp x pp x cp): 2^20, stated in src/core/nd_limits.h (nd.core.limits).
cli.MAX_DEVICES = require("nd.core").limits.devices

--- A memory size given on the command line (`-M 58GB`): bytes above 0
-- (or from 0 with `allow_zero`).
-- @tparam string text the value as given
-- @tparam string option the option, named in the error (e.g. "-M")
-- @tparam[opt] boolean allow_zero whether 0 bytes is a size
-- @treturn integer the bytes; a bad-input error otherwise
function cli.size(text, option, allow_zero)
  local place = check.option(option)
  local n = check.bytes(place, text, { unit = true, allow_zero = allow_zero })
  -- the C core's bound on a device's memory (nd.core.limits.device_memory,
  -- 2^50 bytes), said here at the option rather than as the run's field
  local max = require("nd.core").limits.device_memory
  if n > max then
    place:fail(string.format("%s is past the %d bytes (1 PiB) of a device's memory ndlua prices", text, max),
               "a size up to 1PiB")
  end
  return n
end

--- Parses command-line arguments.
-- @tparam table command `{usage, about, options}` (see above)
-- @tparam table argv the arguments (e.g. `{...}` of an entry script)
-- @treturn table options by name (`-` as `_`), defaults filled in
-- @treturn table the positional arguments
function cli.parse(command, argv)
  local list = options_of(command)
  local opts, args = {}, {}
  for _, o in ipairs(list) do
    if o.arg then opts[key_of(o)] = o.default else opts[key_of(o)] = o.default or false end
  end
  local i, only_args = 1, false
  while i <= #argv do
    local a = argv[i]
    if only_args or a == "-" or a:sub(1, 1) ~= "-" then
      args[#args + 1] = a
    elseif a == "--" then
      only_args = true
    else
      local o, inline, shown = lookup(list, a)
      if o.arg and o.list then
        opts[key_of(o)], i = read_list(o, argv, i, inline, shown)
      elseif o.arg then
        local value = inline
        if value == nil then
          i = i + 1
          value = argv[i]
          if value == nil then bad(shown, "needs a value (" .. o.arg .. ")") end
        end
        opts[key_of(o)] = convert(o, value, shown)
      else
        if inline ~= nil then bad(shown, "takes no value") end
        opts[key_of(o)] = true
      end
    end
    i = i + 1
  end
  return opts, args
end

--- The --help text of a command.
function cli.help(command)
  local lines = { "usage: " .. command.usage }
  if command.about then
    lines[#lines + 1] = ""
    lines[#lines + 1] = command.about
  end
  lines[#lines + 1] = ""
  lines[#lines + 1] = "options:"
  local rows, width, short_w = {}, 0, 4
  for _, o in ipairs(options_of(command)) do
    if o.short then short_w = math.max(short_w, #o.short + 3) end
  end
  for _, o in ipairs(options_of(command)) do
    local short = o.short and ("-" .. o.short .. ", ") or ""
    local left = short .. string.rep(" ", short_w - #short) .. "--" .. o.name
    if o.arg then left = left .. " " .. o.arg end
    local help = o.help or ""
    if o.default ~= nil and o.arg then help = help .. " (default " .. tostring(o.default) .. ")" end
    rows[#rows + 1] = { left, help }
    width = math.max(width, #left)
  end
  for _, r in ipairs(rows) do
    lines[#lines + 1] = "  " .. r[1] .. string.rep(" ", width - #r[1] + 2) .. r[2]
  end
  return table.concat(lines, "\n") .. "\n"
end

return cli
