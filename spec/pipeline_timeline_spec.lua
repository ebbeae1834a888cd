-- pipeline_timeline_spec.lua: the order each stage runs its forward and
-- backward chunks in under a schedule, and the timeline that order makes
-- (lua/nd/pipeline_timeline.lua).
--
-- Where the expected numbers come from: every timeline below is derived by
-- hand in the comment above it (unit or stated durations, no communication
-- time); the closed forms are timing.c's pipeline_step (README "Time"), as
-- nd.core.balance_coeffs gives its coefficients a, b of step = a sum X +
-- b max X, X a stage's seconds a micro-batch over all its chunks; the
-- in-flight counts are SAPP-PPB's digest's (nd.balance.sapp_inflight).
package.path = "spec/?.lua;" .. package.path
local core = require "nd.core"
local balance = require "nd.balance"
local tl = require "nd.pipeline_timeline"

-- dur[s][v] = {f, r, b}, alike on every stage and chunk
local function alike(S, I, f, r, b)
  local d = {}
  for s = 1, S do
    d[s] = {}
    for v = 1, I do d[s][v] = { f = f, r = r, b = b } end
  end
  return d
end

-- a stage's blocks as "F<chunk><mb>@start" (chunk and micro-batch from 0)
local function starts(per_stage, s)
  local out = {}
  for _, b in ipairs(per_stage[s]) do
    out[#out + 1] = ("%s%d%d@%g"):format(b.kind, b.chunk - 1, b.mb - 1, b.start)
  end
  return table.concat(out, " ")
end

describe("pipeline timeline", function()
  -- S = 2, I = 2, m = 4, forward 1 and backward 1 a chunk.
  -- Megatron's table (groups of S = 2, chunk by chunk): (c0 mb0) (c0 mb1)
  -- (c1 mb0) (c1 mb1) (c0 mb2) (c0 mb3) (c1 mb2) (c1 mb3); backwards the same
  -- with the chunks swapped. Warm-up (S - s - 1) x 2 + (I - 1) x S: stage 0
  -- 4, stage 1 2. Places along the path: c0 s0 = 1, c0 s1 = 2, c1 s0 = 3,
  -- c1 s1 = 4 (the last: its backward follows its own forward).
  -- Stage 0: F00 0-1, F01 1-2; F10 waits for stage 1's F00 (1-2): 2-3; F11
  -- waits for stage 1's F01 (2-3): 3-4; steady: F02 4-5, B10 waits for stage
  -- 1's B10 (4-5): 5-6, F03 6-7, B11 after stage 1's B11 (6-7): 7-8, F12
  -- after stage 1's F02 (7-8): 8-9, B00 after stage 1's B00 (8-9): 9-10,
  -- F13 after stage 1's F03 (9-10): 10-11, B01 after stage 1's B01 (10-11):
  -- 11-12; cool-down: B12 after stage 1's B12 (12-13): 13-14, B13 after
  -- 14-15: 15-16, B02 after stage 1's B02 (15-16): 16-17, B03 after 16-17:
  -- 17-18.
  -- Stage 1: F00 1-2, F01 2-3; steady: F10 (after stage 0's F10, 2-3) 3-4,
  -- B10 (own F10) 4-5, F11 5-6, B11 6-7, F02 7-8, B00 (after stage 0's B10,
  -- 5-6) 8-9, F03 9-10, B01 10-11, F12 (stage 0's F12 ends 9) 11-12, B12
  -- 12-13, F13 13-14, B13 14-15; cool-down B02 (stage 0's B12 ends 14)
  -- 15-16, B03 16-17.
  -- Span 18 = timing.c's interleaved form for X = I (f + b) = 4:
  -- sum X / I + (m I - 1) max X / I = 8 / 2 + 7 x 4 / 2 = 18.
  it("draws Megatron's interleaved 1F1B at S 2, I 2, m 4 as derived by hand", function()
    local blocks, span, per = tl.timeline("interleaved", 2, 2, 4, alike(2, 2, 1, 0, 1))
    assert.are.equal(32, #blocks)
    assert.are.equal(18, span)
    assert.are.equal("F00@0 F01@1 F10@2 F11@3 F02@4 B10@5 F03@6 B11@7 F12@8 B00@9 F13@10 B01@11 "
      .. "B12@13 B13@15 B02@16 B03@17", starts(per, 1))
    assert.are.equal("F00@1 F01@2 F10@3 B10@4 F11@5 B11@6 F02@7 B00@8 F03@9 B01@10 F12@11 B12@12 "
      .. "F13@13 B13@14 B02@15 B03@16", starts(per, 2))
    local a, b = core.balance_coeffs { pp = 2, vpp = 2, micro = 4 }
    assert.are.equal(a * (4 + 4) + b * 4, span)
  end)

  -- The less-memory variant: warm-up I S - s - 1 = 3 on stage 0 (2 on stage
  -- 1, as above): F00 F01 F10, then F11 B10 F02 B11 F03 B00 F12 B01 F13 B12,
  -- then B13 B02 B03. F11 after stage 1's F01 (2-3): 3-4; B10 after stage 1's
  -- B10 (4-5): 5-6; F02 6-7; B11 after 6-7: 7-8; F03 8-9; B00 after stage 1's
  -- B00 (8-9): 9-10; F12 (stage 1's F02 ends 8) 10-11; B01 (stage 1's B01
  -- ends 11) 11-12; F13 12-13; B12 (stage 1's B12 ends 13) 13-14; B13 15-16,
  -- B02 16-17, B03 17-18. Stage 1 runs as above (each input it waits for is
  -- ready no later than its own previous block ends). Span 18.
  it("draws the less-memory variant with its shorter warm-up", function()
    local _, span, per = tl.timeline("interleaved-less-memory", 2, 2, 4, alike(2, 2, 1, 0, 1))
    assert.are.equal(18, span)
    assert.are.equal("F00@0 F01@1 F10@2 F11@3 B10@5 F02@6 B11@7 F03@8 B00@9 F12@10 B01@11 F13@12 "
      .. "B12@13 B13@15 B02@16 B03@17", starts(per, 1))
    assert.are.equal("F00@1 F01@2 F10@3 B10@4 F11@5 B11@6 F02@7 B00@8 F03@9 B01@10 F12@11 B12@12 "
      .. "F13@13 B13@14 B02@15 B03@16", starts(per, 2))
  end)

  -- DualPipeV, S = 2, m = 4, forward 1 and backward 1 a chunk. Places: c0 s0
  -- = 1, c0 s1 = 2, c1 s1 = 3, c1 s0 = 4 (the loss). Stage 0 (rank 0): step 1
  -- F00 F01, step 2 F02 F10, step 3 B10 F11, step 4 (F03&B11) (F12&B00),
  -- step 5 B12 (F13&B01), step 6 B13 B02, step 7 B03. Stage 1 (the last):
  -- step 2 F00 F10 F01 F11, step 4 F02 B10 (the first pair not paired)
  -- (F12&B00) (F03&B11) (F13&B01), step 6 B12 B02 B13 B03.
  -- Stage 0: F00 0-1 F01 1-2 F02 2-3; stage 1: F00 1-2, F10 2-3, F01 3-4,
  -- F11 4-5, F02 5-6; stage 0: F10 (after stage 1's F10) 3-4, B10 4-5, F11
  -- (after stage 1's F11) 5-6, the pair F03&B11 waits for B11's input (its
  -- own F11): F03 6-7, B11 7-8; stage 1: B10 (after stage 0's B10) 6-7, pair
  -- F12&B00 (its own F02 and B10): 7-8, 8-9; pair F03&B11 (stage 0's F03
  -- ends 7, B11 8) 9-10, 10-11; pair F13&B01 (own F03, B11) 11-12, 12-13;
  -- stage 0: pair F12&B00 (stage 1's F12 ends 8, B00 9) 9-10, 10-11; B12
  -- (own F12) 11-12; pair F13&B01 (stage 1's F13 12, B01 13) 13-14, 14-15;
  -- B13 15-16; stage 1: B12 (stage 0's B12 ends 12) 13-14, B02 14-15, B13
  -- (stage 0's ends 16) 16-17, B03 17-18; stage 0: B02 (stage 1's ends 15)
  -- 16-17, B03 (stage 1's ends 18) 18-19. Span 19; timing.c prices
  -- DualPipeV m max X + (S - 1) max X / 2 = 4 x 4 + 2 = 18: its closed form is
  -- not this order's timeline (the drawing splits off no weight gradient).
  it("draws DualPipeV's V as derived by hand, one longer than the closed form", function()
    local blocks, span, per = tl.timeline("dualpipev", 2, 2, 4, alike(2, 2, 1, 0, 1))
    assert.are.equal(32, #blocks)
    assert.are.equal(19, span)
    assert.are.equal("F00@0 F01@1 F02@2 F10@3 B10@4 F11@5 F03@6 B11@7 F12@9 B00@10 B12@11 F13@13 "
      .. "B01@14 B13@15 B02@16 B03@18", starts(per, 1))
    assert.are.equal("F00@1 F10@2 F01@3 F11@4 F02@5 B10@6 F12@7 B00@8 F03@9 B11@10 F13@11 B01@12 "
      .. "B12@13 B02@14 B13@16 B03@17", starts(per, 2))
    local a, b = core.balance_coeffs { pp = 2, vpp = 2, micro = 4, schedule = "dualpipev" }
    assert.are.equal(18, a * 8 + b * 4)
  end)

  -- 1F1B, S = 4, m = 8, forward 1, backward 2: the classic span
  -- (m + S - 1)(f + b) = 11 x 3 = 33; stage 3 (no warm-up) runs F B in turn
  -- from 3 (the first micro-batch's forward crossed stages 0-2).
  it("draws 1F1B at S 4, m 8 to the classic (m + S - 1)(f + b)", function()
    local blocks, span, per = tl.timeline("1f1b", 4, 1, 8, alike(4, 1, 1, 0, 2))
    assert.are.equal(64, #blocks)
    assert.are.equal(33, span)
    assert.are.equal("F00@3 B00@4 F01@6 B01@7 F02@9 B02@10 F03@12 B03@13 F04@15 B04@16 F05@18 B05@19 "
      .. "F06@21 B06@22 F07@24 B07@25", starts(per, 4))
    local a, b = core.balance_coeffs { pp = 4, micro = 8 }
    assert.are.equal(span, a * 12 + b * 3)
  end)

  -- A backward block carries its recompute first: len r + b, rec r.
  it("puts a backward's recompute in its block", function()
    local blocks = tl.timeline("1f1b", 1, 1, 1, alike(1, 1, 1, 0.5, 2))
    assert.are.same({ "F", 0, 1 }, { blocks[1].kind, blocks[1].start, blocks[1].len })
    assert.are.same({ "B", 1, 2.5, 0.5 }, { blocks[2].kind, blocks[2].start, blocks[2].len, blocks[2].rec })
  end)

  -- An offloading stage's host copies (dur.c) follow its forward in the
  -- forward's block. By hand, 1F1B S 2, m 2, f 1, b 2, stage 0 copies 0.5
  -- a forward: stage 0 F0 0-1.5 (copies 1-1.5), F1 1.5-3; stage 1 F0
  -- 1.5-2.5, B0 2.5-4.5, F1 4.5-5.5, B1 5.5-7.5; stage 0 B0 after stage 1's
  -- 4.5-6.5, B1 after 7.5: 7.5-9.5, the span (9 without the copies).
  it("puts a forward's host copies after it, in its block", function()
    local d = alike(2, 1, 1, 0, 2)
    d[1][1].c = 0.5
    local blocks, span, per_stage = tl.timeline("1f1b", 2, 1, 2, d)
    assert.are.equal(9.5, span)
    assert.are.equal("F00@0 F01@1.5 B00@4.5 B01@7.5", starts(per_stage, 1))
    assert.are.equal("F00@1.5 B00@2.5 F01@4.5 B01@5.5", starts(per_stage, 2))
    assert.are.same({ 1.5, 0.5 }, { per_stage[1][1].len, per_stage[1][1].copy })
    assert.are.same({ 1, 0 }, { per_stage[2][1].len, per_stage[2][1].copy })
    local _, plain = tl.timeline("1f1b", 2, 1, 2, alike(2, 1, 1, 0, 2))
    assert.are.equal(9, plain)
    assert.are.equal(0, blocks[#blocks].copy)
  end)

  -- Where the timeline and timing.c's closed forms agree: stages alike (every
  -- stage the same seconds), m a multiple of S; 1F1B, interleaved and its
  -- less-memory variant. Where they differ: stages unlike (the closed form
  -- charges sum + (m - 1) max; by hand, S 2, m 2, stage 0 forward and
  -- backward 2 each, stage 1 1 each: stage 0 runs F0 0-2, F1 2-4, then B0
  -- after stage 1's B0 (3-4) 4-6 and B1 after stage 1's (5-6) 6-8, never
  -- idle: span 8 = m x 4, where sum + (m - 1) max = 6 + 4 = 10), and
  -- DualPipeV (above).
  it("agrees with timing.c's closed form on alike stages, not on unlike ones", function()
    for _, c in ipairs { { 2, 1, 4 }, { 4, 1, 8 }, { 4, 2, 8 }, { 4, 2, 16 }, { 4, 3, 8 }, { 8, 2, 32 } } do
      local S, I, m = c[1], c[2], c[3]
      local a, b = core.balance_coeffs { pp = S, vpp = I, micro = m }
      for _, sched in ipairs(I == 1 and { "1f1b" } or { "interleaved", "interleaved-less-memory" }) do
        local _, span = tl.timeline(sched, S, I, m, alike(S, I, 1, 0.5, 2))
        local X = I * 3.5
        assert.is_true(math.abs(span - (a * S * X + b * X)) < 1e-9, ("%s S%d I%d m%d"):format(sched, S, I, m))
      end
    end
    local d = { { { f = 2, r = 0, b = 2 } }, { { f = 1, r = 0, b = 1 } } }
    local _, span = tl.timeline("1f1b", 2, 1, 2, d)
    assert.are.equal(8, span)
    local a, b = core.balance_coeffs { pp = 2, micro = 2 }
    assert.are.equal(10, a * 6 + b * 4)
  end)

  -- The orders hold what the balancer's memory rule says each keeps: the
  -- last chunk's peak is the digest's (interleaved S + min(0, S - 2s - 1),
  -- less-memory S - s), both of DualPipeV's (min(2S - s, m), min(s + 1, m)),
  -- 1F1B's S - s. (The first chunk of an interleaved stage peaks at another
  -- moment than the stage: the digest's count for it is not a peak of its
  -- own.) m a multiple of S: with a remainder the first group is larger.
  it("keeps the micro-batches in flight that nd.balance.sapp_inflight counts", function()
    local checked = 0
    for _, sched in ipairs { "1f1b", "interleaved", "interleaved-less-memory", "dualpipev" } do
      for S = 2, 6 do
        for I = 1, 3 do
          for k = 1, 4 do
            local m = k * S
            local orders = tl.orders(sched, S, I, m)
            if orders then
              local peak, want = tl.peak_in_flight(orders, I), balance.sapp_inflight(S, I, m, sched)
              for s = 1, S do
                for v = sched == "dualpipev" and 1 or I, I do
                  assert.are.equal(want[s][v], peak[s][v], ("%s S%d I%d m%d stage %d chunk %d"):format(sched, S,
                    I, m, s, v))
                  checked = checked + 1
                end
              end
            end
          end
        end
      end
    end
    assert.is_true(checked > 300)
  end)

  it("runs every order it builds to the end (no order waits on itself)", function()
    for _, sched in ipairs { "1f1b", "interleaved", "interleaved-less-memory", "dualpipev" } do
      for S = 1, 6 do
        for I = 1, 3 do
          for m = 1, 20 do
            local orders = tl.orders(sched, S, I, m)
            if orders then
              local blocks, why = tl.timeline(sched, S, I, m, alike(S, I, 1, 0, 2))
              assert.is_truthy(blocks, why)
              assert.are.equal(2 * S * I * m, #blocks)
            end
          end
        end
      end
    end
  end)

  it("refuses what the schedules' own code refuses", function()
    local _, why = tl.orders("dualpipev", 4, 2, 6)
    assert.matches("DualPipeV needs at least 2 x 4 = 8 micro%-batches", why)
    _, why = tl.orders("interleaved", 4, 2, 3)
    assert.matches("needs at least 4 micro%-batches", why)
    _, why = tl.orders("interleaved-less-memory", 4, 2, 6)
    assert.matches("a multiple of 4, got 6", why)
    _, why = tl.orders("dualpipev", 4, 1, 8)
    assert.matches("two chunks", why)
    _, why = tl.orders("gpipe", 4, 1, 8)
    assert.matches("no order for the schedule gpipe", why)
  end)

  -- m not a multiple of S (interleaved): the r = m mod S extra micro-batches
  -- open the first group and the warm-up grows by r (I - 1) (MindFormers'
  -- build_virtualpipeline). S 2, I 2, m 3: r 1, table (c0 mb0) (c0 mb1)
  -- (c0 mb2) (c1 mb0) (c1 mb1) (c1 mb2); stage 0 warm-up 2 + 2 + 1 = 5.
  it("opens the first group with the remainder where m is no multiple of S", function()
    local orders = tl.orders("interleaved", 2, 2, 3)
    local seq = {}
    for i = 1, 6 do seq[i] = ("%s%d%d"):format(orders[1][i].kind, orders[1][i].chunk - 1, orders[1][i].mb - 1) end
    assert.are.equal("F00 F01 F02 F10 F11 F12", table.concat(seq, " "))
  end)
end)
