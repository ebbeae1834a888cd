-- The entry scripts' option parser (lua/nd/cli.lua).
local cli = require "nd.cli"

local COMMAND = {
  usage = "ndlua demo.lua [options] FILE",
  about = "A demo.",
  options = {
    { name = "json", help = "print JSON" },
    { name = "seq-len", short = "s", arg = "N", default = 4096, help = "tokens" },
    { name = "ratio", arg = "X", default = 0.5, help = "a share" },
    { name = "out", short = "o", arg = "PATH", help = "where to write" },
  },
}

local function refused(argv)
  local ok, err = pcall(cli.parse, COMMAND, argv)
  assert.is_false(ok)
  assert.is_true(err.bad_input)
  return err.message
end

describe("nd.cli", function()
  it("fills defaults", function()
    local opts, args = cli.parse(COMMAND, {})
    assert.are.same({ json = false, seq_len = 4096, ratio = 0.5, help = false }, opts)
    assert.are.same({}, args)
  end)

  it("reads long, long=, short and joined short forms, and positionals", function()
    local opts, args = cli.parse(COMMAND, { "a.yaml", "--json", "--seq-len", "128", "-o", "x.csv", "--ratio=0.25", "b" })
    assert.is_true(opts.json)
    assert.are.equal(128, opts.seq_len)
    assert.are.equal("integer", math.type(opts.seq_len))
    assert.are.equal(0.25, opts.ratio)
    assert.are.equal("x.csv", opts.out)
    assert.are.same({ "a.yaml", "b" }, args)
    assert.are.equal(64, cli.parse(COMMAND, { "-s64" }).seq_len)
    assert.are.equal(32, cli.parse(COMMAND, { "--seq-len=32" }).seq_len)
  end)

  it("stops reading options at --, and takes - as a positional", function()
    local opts, args = cli.parse(COMMAND, { "--", "--json", "-" })
    assert.is_false(opts.json)
    assert.are.same({ "--json", "-" }, args)
    local _, more = cli.parse(COMMAND, { "-" })
    assert.are.same({ "-" }, more)
  end)

  it("always knows --help and -h", function()
    assert.is_true(cli.parse(COMMAND, { "--help" }).help)
    assert.is_true(cli.parse(COMMAND, { "-h" }).help)
  end)

  it("refuses unknown options and bad values", function()
    assert.are.equal("--bogus: unknown option; see --help", refused { "--bogus" })
    assert.are.equal("-x: unknown option; see --help", refused { "-x" })
    assert.matches("--seq-len: needs a value (N)", refused { "--seq-len" }, 1, true)
    assert.matches("-s: takes a whole number, got '1.5'", refused { "-s", "1.5" }, 1, true)
    assert.matches("--ratio: takes a number, got 'half'", refused { "--ratio", "half" }, 1, true)
    assert.matches("--json: takes no value", refused { "--json=1" }, 1, true)
  end)

  it("writes --help from the same table", function()
    local text = cli.help(COMMAND)
    assert.are.equal(table.concat({
      "usage: ndlua demo.lua [options] FILE",
      "",
      "A demo.",
      "",
      "options:",
      "      --json       print JSON",
      "  -s, --seq-len N  tokens (default 4096)",
      "      --ratio X    a share (default 0.5)",
      "  -o, --out PATH   where to write",
      "  -h, --help       print this help and exit",
      "",
    }, "\n"), text)
  end)
end)
