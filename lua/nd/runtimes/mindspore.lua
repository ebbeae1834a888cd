-- MindSpore / MindFormers in graph mode with the parallel optimizer.
return {
  name = "mindspore",
  about = "MindSpore/MindFormers: fp32 params, bf16 compute, parallel optimizer keeping gathered weights",
  peak = "allocated",
  run = {
    -- MindFormers trains with fp32 parameters (param_init_type float32) and
    -- bf16 compute (compute_dtype bfloat16); the optimizer updates the fp32
    -- parameters themselves.
    precision = {
      param_bytes = 4, compute_bytes = 2, main_param_bytes = 0, grad_bytes = 4,
      optimizer_state_bytes = 4, optimizer_states = 2, grad_accumulation = true,
    },
    -- The parallel optimizer inserts an AllGather of each sharded weight
    -- (cast to bf16) before its first use in the forward; the backward
    -- reuses the gathered weight unless the all-gather is recomputed, so a
    -- stage keeps its layers' gathered bf16 weights through the backward.
    --
    -- Gradients: the pipeline wrappers (MindFormers' MFPipelineWithLossScaleCell,
    -- MindSpore's _TrainPipelineWithLossScaleCell) clone the optimizer's
    -- parameters into accu_grads, so the accumulation buffer has the parameters'
    -- width (grad_bytes 4 with fp32 parameters). Each micro-batch's gradient is
    -- not a second parameter-sized buffer: the pipeline pass puts a
    -- _VirtualAssignAdd on every forward use of a weight, so the gradient of that
    -- use is added into accu_grads where the backward produces it
    -- (InsertVirtualAssignAdd, mindspore/ccsrc/frontend/parallel/graph_util/
    -- pipeline_split_utils.cc). accu_grads stay whole over DP unless
    -- parallel_optimizer_config.gradient_accumulation_shard (grad_shard) is on;
    -- then that add first reduce-scatters over the weight's opt_shard_group and
    -- accu_grads are sliced as the parameters are: over the optimizer shard
    -- (optimizer_weight_shard_size), not the whole DP degree.
    --
    -- The parallel optimizer slices every parameter over its own group: the
    -- devices repeating the parameter, cut into groups of
    -- optimizer_weight_shard_size when it is set (OperatorInfo::
    -- CreateGroupForOptShard, mindspore/ccsrc/frontend/parallel/ops_info/
    -- operator_info.cc: "not fully use opt shard"); the embedding too, so its
    -- weights and optimizer states divide by that group, not by the whole DP.
    --
    -- That all-gather follows the cast of each sharded parameter, the
    -- tables' too, and every forward user of the parameter shares it
    -- (step_parallel.cc InsertParallelOpt, InsertAllGatherAfterCast under
    -- PP): the stage keeps the head's gathered copy through its backward and,
    -- under PP, the embedding's through its micro-batches' forwards.
    --
    -- Under vocab_emb_dp MindFormers leaves the embedding and the head whole
    -- on every TP rank at any PP degree (LlamaEmbedding.shard: gather
    -- ((1, 1), (dp, 1)); DeepseekV2ForCausalLM: lm_head ((dp·cp, 1), (1, 1))):
    -- their parallel-optimizer group is the dp x tp ranks repeating them, cut
    -- into groups of optimizer_weight_shard_size, and their accu_grads are
    -- whole. DeepSeek-V3's MTP module looks its tokens up in the embedding's
    -- weight and its output goes through the model's one lm_head
    -- (DeepseekV2Model.construct, TrainingDeepseekV3ForCausalLM.construct):
    -- no head of its own.
    sharding = { keep_gathered_params = true, grad_shard_opt_group = true, emb_opt_group = true,
                 tables_whole_tp = true, mtp_shares_head = true },
    -- MindFormers' CrossEntropyLoss (mindformers/core/loss/loss.py) casts the
    -- logits to fp32 in _LogSoftmax, which returns the log-softmax and the
    -- labels one-hot (fp32 on/off values), both split (dp, mp); _NLLLoss's
    -- custom bprop takes both, so the loss keeps the two for its backward.
    -- Its head whole over TP under vocab_emb_dp (above) writes whole-vocabulary
    -- logits on every TP rank before the loss slices them over mp, and takes
    -- their gradient gathered whole again (priced with tables_whole_tp).
    loss = { loss_keeps_one_hot = true },
    -- MindFormers' RotaryEmbedding is the rotate_half form (a negated half,
    -- a concatenation, two products and a sum), operator by operator in its
    -- graph unless graph-kernel fusion, off by default, joins them.
    kernels = { rope = "rotate_half" },
  },
}
