-- Dubey et al. 2024, "The Llama 3 Herd of Models", Table 4: Llama 3 405B
-- pre-training on H100 (BF16 MFU, TFLOP/s per GPU) in three stages of
-- 4D parallelism (TP 8, CP, PP 16, DP), 16M tokens a batch. The paper's
-- MFU is model FLOPs over the dense BF16 peak (989 TFLOP/s: 430 TFLOP/s
-- is 43 %), as ndlua's mfu counts it (3 x the forward of every token,
-- attention included, recomputation not; see scripts/sanity_time.lua).
-- Calibration: these MFUs check the Hopper profiles' sustained rate (70 %).
local SOURCE = "Dubey et al. 2024, \"The Llama 3 Herd of Models\", Table 4 (BF16 MFU of Llama 3 405B "
  .. "pre-training on H100)"

local NOTE = "Meta's own PyTorch 4D stack (FSDP in ZeRO-2 style: optimizer states and gradients sharded "
  .. "over DP, parameters kept after the forward); the torchtitan runtime is the nearest ndlua has. "
  .. "Interleaved 1F1B taken as vpp 2. The paper's balancing (section 3.3.2, pipeline parallelism "
  .. "improvements): one Transformer layer fewer on the first and on the last stage, the embedding and the "
  .. "output projection with the loss each in a layer's place: nd.run's emb_out_in_offset (126 layers and "
  .. "those two over 32 chunks of 4: the first chunk of the first stage holds the embedding and 3 layers, "
  .. "the last chunk of the last stage 3 layers and the head, every other chunk 4). Micro-batch 1; "
  .. "sequence parallelism with TP."

return {
  {
    id = "llama3-405b-8192gpu", set = "calibration", group = "llama3 time", kind = "time", source = SOURCE,
    config = "Llama 3 405B, TP 8 CP 1 PP 16 DP 64, 8192 H100, seq 8192, 32 sequences a DP rank (16M tokens)",
    model = "meta-llama/Llama-3.1-405B",
    run = { runtime = "torchtitan", emb_out_in_offset = true, tp = 8, pp = 16, vpp = 2, dp = 64, micro_batch_size = 1, global_batch_size = 2048,
            seq_length = 8192, sequence_parallel = true, grad_accumulation = true, optimizer_parallel = true,
            grad_shard = true, param_shard = false, reshard_params = false, grad_bytes = 4 },
    hardware = "H100", metric = "mfu", measured = 43, unit = "%", tolerance = 0.15, note = NOTE,
  },
  {
    id = "llama3-405b-16384gpu", set = "calibration", group = "llama3 time", kind = "time", source = SOURCE,
    config = "Llama 3 405B, TP 8 CP 1 PP 16 DP 128, 16384 H100, seq 8192, 16 sequences a DP rank (16M tokens)",
    model = "meta-llama/Llama-3.1-405B",
    run = { runtime = "torchtitan", emb_out_in_offset = true, tp = 8, pp = 16, vpp = 2, dp = 128, micro_batch_size = 1, global_batch_size = 2048,
            seq_length = 8192, sequence_parallel = true, grad_accumulation = true, optimizer_parallel = true,
            grad_shard = true, param_shard = false, reshard_params = false, grad_bytes = 4 },
    hardware = "H100", metric = "mfu", measured = 41, unit = "%", tolerance = 0.15, note = NOTE,
  },
  {
    id = "llama3-405b-cp16", set = "calibration", group = "llama3 time", kind = "time", source = SOURCE,
    config = "Llama 3 405B, TP 8 CP 16 PP 16 DP 8, 16384 H100, seq 131072, 16 sequences a DP rank (16M tokens)",
    model = "meta-llama/Llama-3.1-405B",
    run = { runtime = "torchtitan", emb_out_in_offset = true, tp = 8, cp = 16, pp = 16, vpp = 2, dp = 8, micro_batch_size = 1,
            global_batch_size = 128, seq_length = 131072, sequence_parallel = true, grad_accumulation = true,
            optimizer_parallel = true, grad_shard = true, param_shard = false, reshard_params = false, grad_bytes = 4 },
    hardware = "H100", metric = "mfu", measured = 38, unit = "%", tolerance = 0.15,
    note = NOTE .. " Llama 3's context parallelism all-gathers K and V; ndlua prices its default (ring) "
      .. "algorithm.",
  },
}
