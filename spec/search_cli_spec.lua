-- search.lua's command line: nd.cli's single-dash long options (-mem) and
-- list options (-l DP TP), added for it and kept compatible with the
-- one-letter options of the other scripts; and nd.search.command's option
-- checks (cross-option contradictions exit with status 2).
local cli = require "nd.cli"
local command = require "nd.search.command"

local COMMAND = {
  usage = "ndlua demo.lua [options] FILE",
  options = {
    { name = "reserve", short = "mem", arg = "SIZE", help = "kept free" },
    { name = "max", short = "M", arg = "SIZE", help = "a cap" },
    { name = "dims", short = "l", arg = "DIM...", list = true, item = "^%w+$", help = "dimensions" },
    { name = "modes", arg = "MODES", list = true, help = "modes" },
    { name = "top", short = "t", arg = "N", default = 10, help = "rows" },
  },
}

local function refused(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected a refusal")
  assert.is_true(type(err) == "table" and err.bad_input, tostring(err))
  return err.message
end

describe("nd.cli's single-dash long options", function()
  it("reads -mem VALUE and -mem=VALUE, and keeps -M a one-letter option", function()
    local opts = cli.parse(COMMAND, { "-mem", "2GB", "-M", "58GB" })
    assert.are.equal("2GB", opts.reserve)
    assert.are.equal("58GB", opts.max)
    assert.are.equal("4GB", cli.parse(COMMAND, { "-mem=4GB" }).reserve)
    assert.are.equal("60GB", cli.parse(COMMAND, { "-M60GB" }).max)
    assert.are.equal("1GB", cli.parse(COMMAND, { "--reserve", "1GB" }).reserve)
  end)

  it("writes them in --help, aligned with the one-letter ones", function()
    local text = cli.help(COMMAND)
    assert.matches("\n  %-mem, %-%-reserve SIZE  ", text)
    assert.matches("\n  %-M,   %-%-max SIZE      ", text)
    assert.matches("\n        %-%-modes MODES   ", text)
  end)
end)

describe("nd.cli's list options", function()
  it("takes the arguments up to the next option, or comma-separated values", function()
    local opts, args = cli.parse(COMMAND, { "a.yaml", "-l", "DP", "TP", "PP", "-t", "3" })
    assert.are.same({ "DP", "TP", "PP" }, opts.dims)
    assert.are.same({ "a.yaml" }, args)
    assert.are.equal(3, opts.top)
    assert.are.same({ "DP", "TP" }, cli.parse(COMMAND, { "-l", "DP,TP" }).dims)
    assert.are.same({ "DP", "TP" }, cli.parse(COMMAND, { "--dims=DP,TP" }).dims)
    assert.are.same({ "off", "full" }, cli.parse(COMMAND, { "--modes", "off,full" }).modes)
  end)

  it("leaves an argument its item pattern refuses to the positionals", function()
    local opts, args = cli.parse(COMMAND, { "-l", "DP", "TP", "train.yaml" })
    assert.are.same({ "DP", "TP" }, opts.dims)
    assert.are.same({ "train.yaml" }, args)
  end)

  it("needs at least one value", function()
    assert.matches("-l: needs a value (DIM...)", refused(cli.parse, COMMAND, { "-l" }), 1, true)
    assert.matches("-l: needs a value (DIM...)", refused(cli.parse, COMMAND, { "-l", "-t", "2" }), 1, true)
  end)
end)

describe("search.lua's options", function()
  local function options(argv) return command.read_options(argv) end

  it("reads sizes, counts, dimensions and modes", function()
    local o = options { "t.yaml", "-d", "64", "-b", "128", "-M", "58GB", "-mem", "2GB", "-l", "dp", "TP",
                        "--recompute", "auto", "--accelerator.tp_size=2" }
    assert.are.equal("t.yaml", o.path)
    assert.are.equal(64, o.devices)
    assert.are.equal(128, o.global_batch)
    assert.are.equal(58 * 2 ^ 30, o.max_memory)
    assert.are.equal(2 * 2 ^ 30, o.reserve)
    assert.are.same({ DP = true, TP = true, MB = true }, o.dim_set)
    assert.are.same({ "off", "selective", "full" }, o.recompute)
    assert.are.same({ { path = "accelerator.tp_size", text = "2", shown = "--accelerator.tp_size=2" } }, o.overrides)
    assert.are.equal(10, o.top)
    assert.are.equal(".", o.output_dir)
  end)

  it("refuses contradictions and bad values with a message naming the option", function()
    local cases = {
      { { "t.yaml", "-t", "0" }, "-t: shows at least 1 candidate, got 0" },
      { { "t.yaml", "-l", "DP", "QP" }, "-l: 'QP' is no dimension" },
      { { "t.yaml", "-d", "0" }, "-d: takes a whole number above 0, got '0'" },
      { { "t.yaml", "-M", "lots" }, "-M: 'lots' is no memory size" },
      { { "t.yaml", "--recompute", "sometimes" }, "--recompute: 'sometimes' is no recompute mode" },
      { { "t.yaml", "-s", "s.yaml", "-l", "DP" }, "-l: -l and -s both say which dimensions vary" },
      { { "a.yaml", "b.yaml" }, "search.lua takes one TRAIN_YAML, got 2 arguments: a.yaml b.yaml" },
    }
    for _, c in ipairs(cases) do
      assert.matches(c[2], refused(options, c[1]), 1, true)
    end
  end)
end)
