-- nd.units's sizes as written (lua/nd/units.lua match_size): blanks, a
-- number, blanks, an optional unit (K M G T P with iB or B after, or a lone
-- B), blanks, nothing else; each step takes all it can and is not retried
-- with less. Every expected value is worked by hand: a unit's power of 1024
-- (K 2^10 ... P 2^50; GB means GiB) times the number.
local units = require "nd.units"
local NDLUA = os.getenv("NDLUA") or "./ndlua"

describe("nd.units.parse_bytes", function()
  it("reads a number and a binary unit, either spelling, any case, blanks around", function()
    local cases = {
      { "58GB", 58 * 2 ^ 30 }, { "60GiB", 60 * 2 ^ 30 }, { "1.5 TiB", 1649267441664 }, -- 1.5 * 2^40
      { "512MB", 536870912 }, { "1024", 1024 }, { ".5K", 512 }, { " 64 gib ", 68719476736 },
      { "2p", 2251799813685248 }, { "7b", 7 }, { "\t7 B\t", 7 }, { "3kib", 3072 }, { "0.001k", 1 },
    }
    for _, c in ipairs(cases) do
      assert.are.equal(math.tointeger(c[2]), units.parse_bytes(c[1]), c[1])
    end
  end)

  it("refuses what is no size, the spelled-out 'bytes' among them (its b is a unit with letters after)", function()
    for _, text in ipairs { "512 bytes", "1.", "5 k b", "58GiBx", "GB", "", "-1GB", "1e3", "1,5GB", "5 GB\n",
                             "58 GiB B", "5KiBB" } do
      local bytes, why = units.parse_bytes(text)
      assert.is_nil(bytes, text)
      assert.are.equal("'" .. text .. "' is no memory size; write a number and a unit, such as 58GB, 60GiB or "
        .. "512MiB", why)
    end
  end)
end)

describe("nd.units.has_unit and unit_note", function()
  it("say whether a size states its unit and how a decimal-looking one is read", function()
    assert.is_true(units.has_unit("58GB"))
    assert.is_true(units.has_unit(" 58 B"))
    assert.is_false(units.has_unit("58"))
    assert.is_false(units.has_unit("58 bytes"))
    assert.are.equal("GB read as GiB, 2^30 bytes", units.unit_note("58gb"))
    assert.are.equal("PB read as PiB, 2^50 bytes", units.unit_note("2p"))
    assert.are.equal("TB read as TiB, 2^40 bytes", units.unit_note("1.5 T"))
    assert.is_nil(units.unit_note("58GiB"))
    assert.is_nil(units.unit_note("512 B"))
    assert.is_nil(units.unit_note("58"))
  end)
end)

describe("nd.units's start", function()
  it("loads no LPeg: a fresh ndlua reading a size leaves package.loaded.lpeg unset", function()
    local code = "print(require('nd.units').parse_bytes('64GB'), package.loaded.lpeg)"
    local p = assert(io.popen(string.format("%s -e %q 2>&1", NDLUA, code)))
    assert.are.equal("68719476736\tnil\n", p:read("a"))
    p:close()
  end)
end)
