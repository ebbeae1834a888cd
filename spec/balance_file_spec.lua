-- balance_file_spec.lua: a SAPP-PPB layer file that is not of the shape the
-- balancer reads is refused with the place of what is wrong, never failing
-- inside ("attempt to index a number value" on a layer that is not a table);
-- spec/fuzz/mutate.lua's balance target mutates such files (issue 34 item 10).

local balance = require("nd.balance")

local function good()
  -- llama2_70b.json's numbers (spec/fixtures/sapp-ppb/), as a decoded table
  return { layers_description = {
    { type = "HEAD", time = 13, nb_layer = 1, memory_parameter = 9236 },
    { type = "BODY", time = 100, nb_layer = 96, memory_parameter = 1710, memory_activation = 994,
      memory_select_rec = 739, memory_both_comm_select = 403, memory_recompute = 32 },
    { type = "TAIL", time = 113, nb_layer = 1, memory_parameter = 5794 },
  } }
end

local OPTS = { stages = 16, micro = 32, chunks = 1, limit = 56000, objective = "sapp" }

local function refusal(doc)
  local ok, err = pcall(balance.from_sapp, doc, OPTS)
  assert.is_false(ok)
  -- a bad-input error (exit status 2): a table with its message
  assert.is_true(type(err) == "table" and err.bad_input, tostring(err))
  return err.message
end

describe("balance.from_sapp reads a layer file", function()
  it("takes the reference's file: 96 body layers, off = 994 MB of activations, backward 2 x 100", function()
    local p = balance.from_sapp(good(), OPTS)
    assert.are.equal(96, p.body)
    assert.are.equal(994, p.layer.act.off)
    -- SAPP-PPB's full recompute: time + (1 + 0.5) x 2 x time = 100 + 300
    assert.are.equal(400, p.layer.time.full)
  end)

  it("refuses a layer that is not a table, naming its index", function()
    local d = good()
    d.layers_description[2] = 7
    assert.matches("layers_description%[2%] must be a layer %(a table%), got number", refusal(d))
  end)

  it("refuses a missing or non-list layers_description", function()
    assert.matches("needs a layers_description list", refusal({}))
    assert.matches("needs a layers_description list", refusal({ layers_description = 5 }))
  end)

  it("refuses a time that is text or a negative activation", function()
    local d = good()
    d.layers_description[2].time = "x"
    assert.matches("layers_description%[2%]%.time must be a number >= 0", refusal(d))
    d = good()
    d.layers_description[2].memory_recompute = -3
    assert.matches("memory_recompute must be a number >= 0", refusal(d))
  end)

  it("refuses a body count that is not a whole number >= 1", function()
    for _, n in ipairs { 0, 2.5 } do
      local d = good()
      d.layers_description[2].nb_layer = n
      assert.matches("nb_layer must be a whole number of layers >= 1", refusal(d))
    end
  end)

  it("refuses a second BODY layer rather than reading only the last", function()
    local d = good()
    table.insert(d.layers_description, good().layers_description[2])
    assert.matches("layers_description%[4%] is a second BODY layer", refusal(d))
  end)
end)
