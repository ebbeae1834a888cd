-- The validation suite (issue 12): every published case of spec/validation/
-- within its tolerance, and the harness's own arithmetic (units, error
-- sign, tolerance verdict, refused cases) on synthetic cases whose answers
-- follow from the definitions: 1 GB = 1e9 bytes, 1 GiB = 2^30 bytes, error
-- = (ndlua - measured) / measured.
--
-- A published case over its tolerance fails, unless it carries
-- `known_gap = "why"`: then it is pending (counted as skipped) with the
-- gap in its message, until the model closes it, provided its error stays
-- within `reached`, the error it had reached (past it, a regression, it
-- fails). A case that cannot be built always fails.
local nd = dofile("spec/support/formulas_nd.lua") -- nd.run states runtime = "none" unless a run names one
local validation = require "nd.validation"

local function close(expected, actual, eps)
  assert.is_true(math.abs(expected - actual) <= (eps or 1e-9) * math.max(1, math.abs(expected)),
                 string.format("expected %.12g, got %.12g", expected, actual))
end

-- A small dense model, as a spec table nd.model settles.
local SMALL = { name = "synthetic", arch = "default", hidden_size = 256, num_hidden_layers = 2,
                num_attention_heads = 4, intermediate_size = 1024, vocab_size = 1000 }
local SMALL_RUN = { dp = 2, micro_batch_size = 2, global_batch_size = 8, seq_length = 512 }

-- A synthetic memory case; fields override.
local function memory_case(fields)
  local c = { id = "synthetic", set = "calibration", group = "synthetic", kind = "memory", source = "this spec",
              config = "a small dense model on 2 devices", model = SMALL, run = SMALL_RUN,
              metric = "allocated", measured = 1, unit = "GB", tolerance = 0.25, note = "synthetic" }
  for k, v in pairs(fields or {}) do c[k] = v end
  return c
end

-- The bytes the harness compares for metric "allocated" (the peak without
-- the allocator's reserve when nd.estimate gives it, else the peak).
local function allocated_bytes()
  local e = nd.estimate(nd.model(SMALL), nd.run(SMALL_RUN))
  return e.allocated_bytes or e.peak_bytes
end

describe("validation harness arithmetic", function()
  it("converts units exactly: GB are 1e9 bytes, GiB 2^30", function()
    assert.are.equal(69.1, validation.in_unit(69.1e9, "GB"))
    assert.are.equal(82.4, validation.in_unit(82.4 * 2 ^ 30, "GiB"))
    assert.are.equal(1.073741824, validation.in_unit(2 ^ 30, "GB"))
    assert.are.equal(1.5, validation.in_unit(1.5, "s"))
  end)

  it("signs the error: positive when ndlua says more than was measured", function()
    assert.are.equal(10, validation.error_pct(110, 100))
    assert.are.equal(-10, validation.error_pct(90, 100))
    assert.are.equal(0, validation.error_pct(42, 42))
  end)

  it("reads a measured value in GB as 1e9 bytes: ndlua 0.8 x measured is -20 %", function()
    local bytes = allocated_bytes()
    local row = validation.evaluate(memory_case { measured = bytes / 1e9 / 0.8, unit = "GB" })
    assert.are.equal("pass", row.status)
    close(bytes / 1e9, row.ndlua)
    close(-20, row.error_pct)
  end)

  it("reads a measured value in GiB as 2^30 bytes: ndlua 1.25 x measured is +25 %", function()
    local bytes = allocated_bytes()
    local row = validation.evaluate(memory_case { measured = bytes / 2 ^ 30 / 1.25, unit = "GiB", tolerance = 0.2 })
    close(bytes / 2 ^ 30, row.ndlua)
    close(25, row.error_pct)
    assert.are.equal("over", row.status) -- 25 % past a 20 % tolerance
  end)

  it("takes the case's ndlua function's value as it is", function()
    local row = validation.evaluate(memory_case { measured = 40, ndlua = function(e) return 50 + 0 * e.peak_bytes end })
    assert.are.equal(50, row.ndlua)
    assert.are.equal(25, row.error_pct)
    assert.are.equal(25, row.tolerance_pct)
    assert.are.equal("pass", row.status) -- exactly at the tolerance
  end)

  it("reports a case whose ndlua function fails, or gives no number, as an error", function()
    local row = validation.evaluate(memory_case { ndlua = function(e) return e.no_such_table.x end })
    assert.are.equal("error", row.status)
    assert.is_truthy(row.message:find("validation_spec.lua:%d+:"), row.message) -- where the mistake is
    row = validation.evaluate(memory_case { ndlua = function() return "12 GB" end })
    assert.are.equal("the case's ndlua function returned string, not a number", row.message)
  end)

  it("gives a time case's MFU in percent", function()
    local t = nd.step_time(nd.model(SMALL), nd.run(SMALL_RUN), "H100")
    local row = validation.evaluate(memory_case { kind = "time", metric = "mfu", unit = "%", hardware = "H100",
                                                  measured = 50 })
    close(100 * t.mfu, row.ndlua)
    close(100 * (100 * t.mfu - 50) / 50, row.error_pct)
  end)

  it("reports a case whose run nd.run refuses as an error, naming the key", function()
    local row = validation.evaluate(memory_case { run = { dp = 2, no_such_field = 1 } })
    assert.are.equal("error", row.status)
    assert.is_truthy(row.message:find("no_such_field", 1, true), row.message)
    assert.is_nil(row.error_pct)
  end)

  it("reports a case missing fields, or with a unit its metric does not take, as an error", function()
    local c = memory_case()
    c.source = nil
    assert.are.equal("missing field(s): source", validation.evaluate(c).message)
    local row = validation.evaluate(memory_case { unit = "s" })
    assert.are.equal("error", row.status)
    assert.is_truthy(row.message:find("unit 's'", 1, true), row.message)
    row = validation.evaluate(memory_case { kind = "time" })
    assert.is_truthy(row.message:find("does not match metric allocated", 1, true), row.message)
  end)

  it("sums each group: mean and largest |error|, cases over and in error", function()
    local rows = {
      { group = "a", status = "pass", error_pct = -2 }, { group = "a", status = "over", error_pct = 6 },
      { group = "b", status = "error" }, { group = "a", status = "pass", error_pct = 1 },
    }
    local s = validation.summary(rows)
    assert.are.same({ group = "a", cases = 3, measured = 3, mean_abs_pct = 3, max_abs_pct = 6, over = 1, errors = 0 },
                    s[1])
    assert.are.same({ group = "b", cases = 1, measured = 0, over = 0, errors = 1 }, s[2])
  end)

  it("refuses a case of no set or another set, naming the two", function()
    local row = validation.evaluate(memory_case { set = false })
    assert.are.equal("error", row.status)
    assert.are.equal("set 'false' is not calibration (its data informed a mechanism or a constant) or validation "
                     .. "(never looked at while designing one)", row.message)
    local c = memory_case()
    c.set = nil
    assert.are.equal("missing field(s): set", validation.evaluate(c).message)
  end)

  it("sums each set's memory and time cases apart, all four pairs always, each group within its set", function()
    local rows = {
      { set = "calibration", group = "a", kind = "memory", status = "pass", error_pct = -2 },
      { set = "validation", group = "a", kind = "memory", status = "over", error_pct = 12 },
      { set = "validation", group = "b", kind = "memory", status = "pass", error_pct = 4 },
      { set = "calibration", group = "c", kind = "time", status = "pass", error_pct = 5 },
      { set = "validation", group = "b", kind = "memory", status = "error" },
      { group = "(file)", status = "error" },
    }
    local sets = validation.by_set(rows)
    assert.are.same({ set = "calibration", kind = "memory", cases = 1, measured = 1, mean_abs_pct = 2,
                      max_abs_pct = 2, over = 0, errors = 0 }, sets[1])
    assert.are.same({ set = "calibration", kind = "time", cases = 1, measured = 1, mean_abs_pct = 5,
                      max_abs_pct = 5, over = 0, errors = 0 }, sets[2])
    -- |12| and |4|: mean 8, the case in error counted apart
    assert.are.same({ set = "validation", kind = "memory", cases = 3, measured = 2, mean_abs_pct = 8,
                      max_abs_pct = 12, over = 1, errors = 1 }, sets[3])
    assert.are.same({ set = "validation", kind = "time", cases = 0, measured = 0, over = 0, errors = 0 }, sets[4])
    assert.are.equal(4, #sets)
    local groups = validation.summary(rows)
    assert.are.same({ "calibration a", "validation a", "validation b", "calibration c", "nil (file)" },
                    { groups[1].set .. " " .. groups[1].group, groups[2].set .. " " .. groups[2].group,
                      groups[3].set .. " " .. groups[3].group, groups[4].set .. " " .. groups[4].group,
                      tostring(groups[5].set) .. " " .. groups[5].group })
  end)

  it("turns a case file that does not load, or returns no list, into an error row naming it", function()
    local p = assert(io.popen("mktemp -d"))
    local dir = p:read("l")
    p:close()
    local function write(name, text)
      local f = assert(io.open(dir .. "/" .. name, "w"))
      f:write(text)
      f:close()
    end
    write("a_number.lua", "return 42\n")
    write("b_broken.lua", "return {\n")
    write("c_good.lua", "return { { id = 'x', set = 'validation' } }\n")
    write("readme.txt", "not a case file\n")
    local cases = validation.load(dir)
    os.execute("rm -rf '" .. dir .. "'")
    assert.are.equal(3, #cases)
    assert.are.equal("the file returns number, not a list of cases", cases[1].load_error)
    assert.are.equal("b_broken.lua", cases[2].id)
    assert.is_string(cases[2].load_error)
    assert.are.equal("x", cases[3].id)
    local rows = validation.evaluate_all(cases)
    assert.are.same({ "error", "error", "error" }, { rows[1].status, rows[2].status, rows[3].status })
    assert.is_truthy(rows[3].message:find("missing field(s): group", 1, true), rows[3].message)
  end)

  it("draws a chart with a bar for each measured case and the error text of the others", function()
    local rows = { validation.evaluate(memory_case { measured = 1e-3 }),
                   validation.evaluate(memory_case { id = "broken", run = { bad_key = 1 } }) }
    local text = validation.chart(rows)
    assert.is_truthy(text:find("<svg", 1, true))
    assert.is_truthy(text:find(">synthetic<", 1, true))
    assert.is_truthy(text:find("error: run: unknown key", 1, true))
  end)
end)

describe("published measured cases (spec/validation/)", function()
  local cases = validation.load("spec/validation")

  it("are found, with unique ids", function()
    assert.is_true(#cases >= 26, "cases found: " .. #cases)
    local seen = {}
    for _, c in ipairs(cases) do
      assert.is_nil(seen[c.id], "duplicate id " .. tostring(c.id))
      seen[c.id] = true
    end
  end)

  it("state AutoModel's split of DeepSeek-V3's 61 layers over pp 4 x vpp 8", function()
    -- generate_hf_model_fqn_per_model_part over 32 virtual stages: 61 = 32 x 1 + 29, so
    -- virtual stages 0-28 take 2 layers and 29-31 take 1; virtual stage v is rank v % 4's
    -- chunk v // 4, so chunk 7 of ranks 1, 2, 3 holds 1 and every other chunk 2. As a
    -- per-chunk offset over 61 // 4 // 8 = 1: 1 everywhere but those three, 0 (by hand).
    local want = {}
    for c = 1, 8 do want[c] = { 1, 1, 1, 1 } end
    want[8] = { 1, 0, 0, 0 }
    local found = 0
    for _, c in ipairs(cases) do
      if c.id == "automodel-deepseek-v3-256gpu" or c.id == "automodel-deepseek-v3-1024gpu" then
        assert.are.same(want, c.run.offset, c.id)
        found = found + 1
      end
    end
    assert.are.equal(2, found)
  end)

  it("state Llama 3's balancing: a layer fewer on the first and the last stage", function()
    -- Dubey et al. 2024, section 3.3.2: one Transformer layer fewer on the first and the last
    -- stage, the embedding and the head each in a layer's place. 126 layers + 2 over 16 stages x
    -- 2 chunks is 4 a chunk: the first chunk 3 layers and the embedding, the last 3 and the head,
    -- the other 30 chunks 4 (by hand); without emb_out_in_offset ndlua's own split gives the
    -- last two stages 3 + 4.
    local found = 0
    for _, c in ipairs(cases) do
      if c.group == "llama3 time" then
        local e = nd.estimate(nd.model(c.model), nd.run(c.run))
        local layers = {}
        for s, stage in ipairs(e.stages) do
          for _, row in ipairs(stage.rows) do
            if row.kind ~= "embedding" and row.kind ~= "output" then
              local key = s .. "/" .. row.chunk
              layers[key] = (layers[key] or 0) + row.count
            end
          end
        end
        for s = 1, 16 do
          for chunk = 0, 1 do
            local want = ((s == 1 and chunk == 0) or (s == 16 and chunk == 1)) and 3 or 4
            assert.are.equal(want, layers[s .. "/" .. chunk], c.id .. " stage " .. s .. " chunk " .. chunk)
          end
        end
        found = found + 1
      end
    end
    assert.are.equal(3, found)
  end)

  for _, c in ipairs(cases) do
    local name = tostring(c.id) .. " within its tolerance [" .. tostring(c.source or c.file) .. "]"
    it(name, function()
      local row = c.load_error and { status = "error", message = c.load_error } or validation.evaluate(c)
      assert.are_not.equal("error", row.status, "cannot be built: " .. tostring(row.message))
      local verdict = string.format("measured %.4g %s, ndlua %.4g %s: %+.1f %% against a tolerance of %.0f %%",
                                    c.measured, c.unit, row.ndlua, c.unit, row.error_pct, row.tolerance_pct)
      if row.status == "over" and c.known_gap then
        -- over the bar, but no further than the error reached: a regression fails
        assert.is_true(math.abs(row.error_pct) <= 100 * c.reached,
                       verdict .. ", past the " .. 100 * c.reached .. " % this case had reached")
        pending(c.id .. ": known gap, " .. verdict .. " (" .. c.known_gap .. ")")
      end
      assert.is_true(math.abs(row.error_pct) <= row.tolerance_pct, verdict)
    end)
  end
end)
