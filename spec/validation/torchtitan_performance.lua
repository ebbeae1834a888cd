-- torchtitan's published performance tables (repository pytorch/torchtitan,
-- docs/performance.md, runs of December 2024: torch 1963fc8, torchao eab345c,
-- torchtitan 9dec370), https://github.com/pytorch/torchtitan/blob/main/docs/performance.md.
-- Llama 3.1 8B, 70B and 405B on Grand Teton hosts: 8 H100 (96 GB HBM2e, 500 W)
-- a host over NVLink, 400 Gb/s RDMA a GPU. The Memory(GiB) column is the
-- peak torchtitan logs (its memory monitor: torch.cuda.max_memory_reserved),
-- "the maximum across all GPUs" (the busiest pipeline stage under PP). These
-- tables exercise what the calibration set does not: FSDP over 128 ranks,
-- FSDP with TP, FSDP with PP (1F1B and interleaved), FSDP over CP.
-- Validation: never looked at while designing a mechanism or a constant (the
-- 8-GPU 1D row of Table 1 is the calibration case torchtitan_llama3.lua and
-- is not repeated here), but for Table 2's two 8B rows, calibration: their
-- breakdowns were read to find FSDP's buffers over the CP ranks, and
-- Table 4's 70B row, read to find DTensor's parallel loss, and Table 5's
-- interleaved row, read to find the one-round cap of the interleaved schedule.
local SOURCE = "torchtitan docs/performance.md (https://github.com/pytorch/torchtitan/blob/main/docs/performance.md), "
  .. "Tables 2-6, Memory(GiB), H100 96GB, torchtitan 9dec370 (2024-12-26)"

-- What every case assumes.
local NOTE = "torchtitan at 9dec370: FSDP2 with bf16 parameters for compute and fp32 reduce (its default "
  .. "mixed_precision_param bfloat16, mixed_precision_reduce float32), fp32 sharded parameters, gradients and "
  .. "AdamW states; FSDP shards over the dp_shard x cp mesh (shard_spans_cp); TP is torchtitan's "
  .. "ColwiseParallel/RowwiseParallel with SequenceParallel norms and loss parallel (its default); "
  .. "sequence 8192 unless the row says otherwise (the llama3 tomls' seq_len); no gradient accumulation "
  .. "(torchtitan had none then): the local batch is one step's micro-batch, or split into the pipeline's "
  .. "micro-batches under PP. Assumed: 'full' activation checkpointing wraps every block."

-- Float8: the rows that state it ran torchao's Float8Linear on every linear
-- but the output head. Their toml (llama3_70b/405b) also sets
-- enable_fsdp_float8_all_gather and precompute_float8_dynamic_scale_for_fsdp.
local FLOAT8 = " Float8 (torchao Float8Linear, dynamic scaling, float8 FSDP all-gathers as the 70B/405B tomls "
  .. "set them): ndlua refuses float8 by name (issue 31 item 5), so the row is priced as the bf16 run "
  .. "(assumption; Table 1 shows float8 changed the 8B peak by -0.2 GiB)."

local function titan(run)
  run.runtime = "torchtitan"
  run.shard_spans_cp = true
  run.flash_attention = true
  return run
end

return {
  -- Table 3: 1D FSDP, Llama 3.1 8B, 128 GPUs, local batch 2, global 256, selective AC.
  {
    id = "torchtitan-8b-fsdp128", set = "validation", group = "torchtitan perf memory", kind = "memory",
    source = SOURCE,
    config = "Llama 3.1 8B, FSDP 128 (eager), local batch 2, seq 8192, selective (op) AC",
    model = "meta-llama/Llama-3.1-8B",
    run = titan { dp = 128, micro_batch_size = 2, global_batch_size = 256, seq_length = 8192,
                  recompute = "selective", fused_swiglu = false },
    metric = "reserved", measured = 67.0, unit = "GiB", tolerance = 0.10,
    note = NOTE .. " Eager (no torch.compile): the SwiGLU product unfused. Selective AC is torchtitan's "
      .. "default selective_ac_option 'op'.",
  },
  {
    id = "torchtitan-8b-fsdp128-compile", set = "validation", group = "torchtitan perf memory", kind = "memory",
    source = SOURCE,
    config = "Llama 3.1 8B, FSDP 128, torch.compile, local batch 2, seq 8192, selective (op) AC",
    model = "meta-llama/Llama-3.1-8B",
    run = titan { dp = 128, micro_batch_size = 2, global_batch_size = 256, seq_length = 8192,
                  recompute = "selective" },
    metric = "reserved", measured = 62.0, unit = "GiB", tolerance = 0.10,
    note = NOTE .. " torch.compile per block (the torchtitan profile's fused kernels).",
  },
  -- Table 2: FSDP + CP + torch.compile + Float8, Llama 3.1 8B, 8 GPUs, local batch 1, full AC.
  {
    id = "torchtitan-8b-fsdp8-cp1-32k", set = "calibration", group = "torchtitan perf memory", kind = "memory",
    source = SOURCE,
    config = "Llama 3.1 8B, FSDP 8, CP 1, seq 32768, local batch 1, full AC, torch.compile, float8",
    model = "meta-llama/Llama-3.1-8B",
    run = titan { dp = 8, cp = 1, micro_batch_size = 1, global_batch_size = 8, seq_length = 32768,
                  recompute = "full" },
    metric = "reserved", measured = 83.9, unit = "GiB", tolerance = 0.10,
    note = NOTE .. FLOAT8 .. " Calibration: its breakdown was compared with the CP 8 256k row's (the same "
      .. "32k tokens a rank) to find FSDP's buffers over the CP ranks.",
  },
  {
    id = "torchtitan-8b-fsdp1-cp8-256k", set = "calibration", group = "torchtitan perf memory", kind = "memory",
    source = SOURCE,
    config = "Llama 3.1 8B, FSDP 1, CP 8 (FSDP over the 8 CP ranks), seq 262144, local batch 1, full AC, "
      .. "torch.compile, float8",
    model = "meta-llama/Llama-3.1-8B",
    run = titan { dp = 1, cp = 8, micro_batch_size = 1, global_batch_size = 1, seq_length = 262144,
                  recompute = "full" },
    metric = "reserved", measured = 84.5, unit = "GiB", tolerance = 0.10,
    note = NOTE .. FLOAT8 .. " CP is torchtitan's ring attention (context_parallel with allgather rotation). "
      .. "Calibration: its breakdown (no FSDP buffers at dp 1) beside the CP 1 32k row's was read to find "
      .. "FSDP's buffers over the CP ranks.",
  },
  -- Table 4: 2D (FSDP 32, TP 8) + torch.compile + Float8, Llama 3.1 70B, 256 GPUs, local batch 16, full AC.
  {
    id = "torchtitan-70b-fsdp32-tp8", set = "calibration", group = "torchtitan perf memory", kind = "memory",
    source = SOURCE,
    config = "Llama 3.1 70B, FSDP 32 x TP 8 (256 GPUs), local batch 16, global 512, seq 8192, full AC, "
      .. "torch.compile, float8",
    model = "meta-llama/Llama-3.1-70B",
    run = titan { dp = 32, tp = 8, sequence_parallel = true, loss_parallel = true, micro_batch_size = 16,
                  global_batch_size = 512, seq_length = 8192, recompute = "full" },
    metric = "reserved", measured = 71.9, unit = "GiB", tolerance = 0.10,
    note = NOTE .. FLOAT8 .. " The '2D' row (without async TP). Calibration: its gap (the loss of 131k tokens a "
      .. "micro-batch) was read to find loss_parallel_decomposed; without it ndlua says -25.2 %, and with the "
      .. "embedding whole on each TP rank (vocab_emb_dp, where torchtitan's plan splits it) -5.6 %.",
    known_gap = "10.3 GiB short with DTensor's loss and the TP-split embedding, not found: float8 refused and priced as "
      .. "bf16; what the caching allocator reserves around the loss's 7.8 GiB fp32 tensors. The same table's "
      .. "'2D + AsyncTP' row measured 67.6 GiB, 4.3 GiB less: async TP changes only the compiled blocks' TP "
      .. "collectives, whose 2 GiB buffers (the sequence-parallel all-gather output, the row-parallel matmul's "
      .. "output before its reduce-scatter) are not live at the loss, so about two of them weigh on the measured "
      .. "peak, as allocator holes or in a block's backward",
    reached = 0.143,
  },
  -- Table 5: 3D (FSDP 8, TP 8, PP 8) + compile + Float8 + AsyncTP, Llama 3.1 405B, 512 GPUs,
  -- local batch 32, global 256, full AC.
  {
    id = "torchtitan-405b-fsdp8-tp8-pp8-1f1b", set = "validation", group = "torchtitan perf memory", kind = "memory",
    source = SOURCE,
    config = "Llama 3.1 405B, FSDP 8 x TP 8 x PP 8 (512 GPUs), 1F1B, local batch 32 in 8 micro-batches of 4, "
      .. "seq 8192, full AC, torch.compile, float8, async TP",
    model = "meta-llama/Llama-3.1-405B",
    run = titan { dp = 8, tp = 8, pp = 8, sequence_parallel = true, loss_parallel = true, micro_batch_size = 4,
                  global_batch_size = 256, local_batch_size = 32, seq_length = 8192, recompute = "full",
                  pp_schedule = "1f1b" },
    metric = "reserved", measured = 82.5, unit = "GiB", tolerance = 0.10,
    note = NOTE .. FLOAT8 .. " Assumed: torchtitan's default micro-batch count then, the pipeline degree (8), "
      .. "so micro-batches of 4; layers split evenly (126 over 8 stages: the balanced split ndlua makes). "
      .. "torchtitan applies FSDP under PP with reshard_after_forward false (parallelize_llama: per-"
      .. "micro-batch all-gathers avoided), as its runtime profile states (pp_keeps_gathered). Async TP's symmetric-memory "
      .. "buffers are not priced.",
    known_gap = "11 GiB short: float8 (refused by name, priced as bf16) and async TP unpriced, the sharded gradients the last backward adds beside the unsharded ones",
    reached = 0.14,
  },
  {
    id = "torchtitan-405b-fsdp8-tp8-pp8-interleaved", set = "calibration", group = "torchtitan perf memory",
    kind = "memory", source = SOURCE,
    config = "Llama 3.1 405B, FSDP 8 x TP 8 x PP 8 (512 GPUs), interleaved 1F1B (2 stages a rank), local batch 32 "
      .. "in 8 micro-batches of 4, seq 8192, full AC, torch.compile, float8, async TP",
    model = "meta-llama/Llama-3.1-405B",
    run = titan { dp = 8, tp = 8, pp = 8, vpp = 2, sequence_parallel = true, loss_parallel = true,
                  micro_batch_size = 4, global_batch_size = 256, local_batch_size = 32, seq_length = 8192,
                  recompute = "full", pp_schedule = "1f1b" },
    metric = "reserved", measured = 72.7, unit = "GiB", tolerance = 0.10,
    note = NOTE .. FLOAT8 .. " Assumed: two virtual stages a rank (the table does not say how many), "
      .. "8 micro-batches of 4, reshard_after_forward false under PP (as the 1F1B row). Calibration: its breakdown "
      .. "(stage 0's first chunk holding 15 of the step's 8 micro-batches) was read to find the one-round "
      .. "interleaved cap (no chunk holds more than the step's micro-batches).",
  },
  -- Table 6: 4D (FSDP + TP 8 + PP 8 + CP) + compile + Float8 + AsyncTP + 1F1B, Llama 3.1 405B, 512 GPUs,
  -- local batch 8, full AC.
  {
    id = "torchtitan-405b-fsdp8-tp8-pp8-cp1-32k", set = "validation", group = "torchtitan perf memory",
    kind = "memory", source = SOURCE,
    config = "Llama 3.1 405B, FSDP 8 x TP 8 x PP 8, CP 1, 1F1B, seq 32768, local batch 8 in 8 micro-batches "
      .. "of 1, full AC, torch.compile, float8, async TP",
    model = "meta-llama/Llama-3.1-405B",
    run = titan { dp = 8, tp = 8, pp = 8, cp = 1, sequence_parallel = true, loss_parallel = true,
                  micro_batch_size = 1, global_batch_size = 64, local_batch_size = 8, seq_length = 32768, recompute = "full",
                  pp_schedule = "1f1b" },
    metric = "reserved", measured = 75.3, unit = "GiB", tolerance = 0.10,
    note = NOTE .. FLOAT8 .. " Assumed: 8 micro-batches of 1 (the pipeline degree), reshard_after_forward "
      .. "false under PP.",
  },
  {
    id = "torchtitan-405b-fsdp1-tp8-pp8-cp8-256k", set = "validation", group = "torchtitan perf memory",
    kind = "memory", source = SOURCE,
    config = "Llama 3.1 405B, TP 8 x PP 8 x CP 8 (FSDP over the 8 CP ranks), 1F1B, seq 262144, local batch 8 "
      .. "in 8 micro-batches of 1, full AC, torch.compile, float8, async TP",
    model = "meta-llama/Llama-3.1-405B",
    run = titan { dp = 1, tp = 8, pp = 8, cp = 8, sequence_parallel = true, loss_parallel = true,
                  micro_batch_size = 1, global_batch_size = 8, local_batch_size = 8, seq_length = 262144, recompute = "full",
                  pp_schedule = "1f1b" },
    metric = "reserved", measured = 84.9, unit = "GiB", tolerance = 0.10,
    note = NOTE .. FLOAT8 .. " Assumed: 8 micro-batches of 1, reshard_after_forward false under PP.",
    known_gap = "12 GiB short: 9.6 GiB more was measured than on the CP 1 32k row of "
      .. "the same tokens a rank, which ndlua prices 1.7 GiB apart (ring attention's buffers); float8 and async TP",
    reached = 0.142,
  },
}
