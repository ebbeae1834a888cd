-- nd.strict (issue 33, item 5): the problems --strict refuses are the
-- warnings of the kinds it names (unknown and unpriced keys, widened
-- lists) and what a script adds (a layout that does not fit); without
-- --strict nothing is raised.
local strict = require "nd.strict"
local warnings = require "nd.warnings"

describe("nd.strict", function()
  local function collector()
    local w = warnings.quiet()
    w:warn("trainning", "no rule reads this key", "unknown")
    w:warn("optimizer._target_", "the config states no optimizer") -- no kind: never refused
    w:warn("fsdp_config.forward_prefetch_depth", "is 2, not priced", "unpriced")
    w:warn("parallelism.micro_batch_num", "refused every candidate; searched as auto", "widened")
    return w
  end

  it("lists the warnings of the refused kinds, then the extra problems", function()
    assert.are.same({
      "unknown key: trainning: no rule reads this key",
      "unpriced key: fsdp_config.forward_prefetch_depth: is 2, not priced",
      "widened list: parallelism.micro_batch_num: refused every candidate; searched as auto",
      "does not fit",
    }, strict.problems(collector(), { nil, "does not fit", n = 2 }))
    assert.are.same({}, strict.problems(warnings.quiet()))
  end)

  it("keeps each warning's kind beside its text, once", function()
    local w = collector()
    w:warn("trainning", "no rule reads this key", "unknown") -- the same text again: kept once
    local kinds = w:all_kinds()
    assert.are.equal(4, #kinds)
    assert.are.same({ text = "optimizer._target_: the config states no optimizer" }, kinds[2])
    assert.are.equal(#w:all(), #kinds)
  end)

  it("raises a bad-input error (exit 2) only under --strict and only with a problem", function()
    assert.has_no.errors(function() strict.finish({ strict = false }, collector(), { "does not fit" }) end)
    assert.has_no.errors(function() strict.finish({ strict = true }, warnings.quiet(), { nil, n = 1 }) end)
    local ok, err = pcall(strict.finish, { strict = true }, collector())
    assert.is_false(ok)
    assert.is_true(err.bad_input)
    assert.are.equal("--strict: 3 problems:\n  unknown key: trainning: no rule reads this key\n"
      .. "  unpriced key: fsdp_config.forward_prefetch_depth: is 2, not priced\n"
      .. "  widened list: parallelism.micro_batch_num: refused every candidate; searched as auto", err.message)
  end)
end)
