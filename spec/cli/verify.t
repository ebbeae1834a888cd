verify.lua: the model a train.yaml, a hub id or a checkpoint directory
resolves to (issue 3), and for a train.yaml the run it states (issue 5;
spec/cli/verify_train_yaml.t shows that part). Each run has a fresh $HOME and no HF_HOME or
HF_HUB_CACHE, so the Hugging Face cache is $HOME/.cache/huggingface/hub.

Options come from one table, which also writes --help:

  $ ndlua verify.lua --help
  usage: ndlua verify.lua [options] TRAIN_YAML | HUB_ID | DIR [--section.key=value ...]
  
  Resolves a model (the model a train.yaml trains, a Hugging Face hub id, or a
  checkpoint directory holding config.json) and prints its settled spec, where the
  config came from, its parameters by part and its forward FLOPs per token. For a
  train.yaml it also prints the run it states and the values derived from it;
  --section.key=value sets a key of the yaml before it is read.
  
  options:
        --json                print one JSON document: source, model, params, flops_per_token, warnings (and for a train.yaml: run, derived, config)
    -d, --devices N           devices, for a train.yaml without context.device_num
    -M, --device-memory SIZE  device memory, for a train.yaml (e.g. 58GB)
        --list-models         list the built-in model catalog and exit
    -s, --seq-len N           tokens per sequence for the FLOP count (default 4096)
        --visual-seq-len N    visual tokens an image gives the tower, as context.visual_seq_len; 0 derives them (default 0)
        --strict              exit 2 after the answer when the layout does not fit, a key is unknown or unpriced, or a candidate list was widened
    -h, --help                print this help and exit

  $ ndlua verify.lua --frobnicate Qwen/Qwen3-8B
  --frobnicate: unknown option; see --help
  [2]

  $ ndlua verify.lua
  verify.lua takes one TRAIN_YAML, HUB_ID or DIR, got 0 arguments; ndlua verify.lua --help
  [2]

The catalog:

  $ ndlua verify.lua --list-models
  Qwen/Qwen2.5-7B                      qwen2
  Qwen/Qwen2.5-72B                     qwen2
  Qwen/Qwen2.5-72B-Instruct            qwen2
  Qwen/Qwen2.5-VL-7B-Instruct          qwen2_5_vl
  Qwen/Qwen3-0.6B                      qwen3
  Qwen/Qwen3-8B                        qwen3
  Qwen/Qwen3-32B                       qwen3
  Qwen/Qwen3-30B-A3B                   qwen3_moe
  Qwen/Qwen3-235B-A22B                 qwen3_moe
  Qwen/Qwen3-Next-80B-A3B-Instruct     qwen3_next
  Qwen/Qwen3-VL-30B-A3B-Instruct       qwen3_vl_moe
  Qwen/Qwen3.5-9B                      qwen3_5
  Qwen/Qwen3.5-35B-A3B                 qwen3_5_moe
  deepseek-ai/DeepSeek-V2-Lite         deepseek_v2
  deepseek-ai/DeepSeek-V3              deepseek_v3
  google/gemma-2-9b                    gemma2
  meta-llama/Llama-2-7b-hf             llama
  meta-llama/Llama-2-70b-hf            llama
  meta-llama/Llama-3.1-8B              llama
  meta-llama/Llama-3.1-70B             llama
  meta-llama/Llama-3.1-405B            llama
  mistralai/Mixtral-8x7B-v0.1          mixtral
  mistralai/Mixtral-8x22B-v0.1         mixtral
  openai-community/gpt2                gpt2

A catalog model, every field. GPT-2 (openai-community/gpt2): n_embd 768,
n_layer 12, n_head 12, n_positions 1024, no n_inner (4 x 768 = 3072), tied
embeddings; the gpt profile (2-matmul MLP, dropout, no flash attention).
Its 124,439,808 parameters are the GPT-2 card's 124M (PARAMS.md):

  $ ndlua verify.lua openai-community/gpt2
  source: built-in catalog openai-community/gpt2
  config: */lua/nd/catalog/openai-community--gpt2/config.json (glob)
  
  model gpt2 (arch gpt)
    hidden_size                        768
    num_hidden_layers                  12
    num_attention_heads                12
    num_key_value_heads                12
    head_dim                           64
    vocab_size                         50257
    intermediate_size                  3072
    max_position_embeddings            1024
    num_experts                        -
    num_experts_per_tok                -
    num_shared_experts                 -
    moe_intermediate_size              -
    shared_expert_intermediate_size    -
    first_k_dense_replace              -
    mtp_depth                          -
    kv_lora_rank                       -
    q_lora_rank                        -
    qk_rope_head_dim                   -
    qk_nope_head_dim                   -
    v_head_dim                         -
    multiple_of                        -
    ffn_dim_multiplier                 -
    partial_rotary_factor              -
    attn_output_gate                   false
    tie_word_embeddings                true
    learned_position_embeddings        1024
    qk_norm                            false
    qkv_bias                           true
    o_bias                             true
    mlp_bias                           true
    norm_bias                          true
    shared_expert_gate                 false
    layer_norms                        2
    torch_dtype                        -
    linear_num_key_heads               -
    linear_key_head_dim                -
    linear_num_value_heads             -
    linear_value_head_dim              -
    linear_conv_kernel_dim             -
    layers                             12×decoder
    kind decoder                       attention full, ffn (the model's); attMM 4, attBMM 2, ffMM 2, softmax 1, dropout 2, normOp 2, gather 4, headCast 1, ffAct 1, linrec 0
    family                             grad_bytes 4, optimizer_state_bytes 4, optimizer_states 2, main_param_bytes 0, norm_bytes 2, dropout_bytes 1, grad_accumulation false, shard_activations false, loss_parallel true, reshard_params false, deferred_grad_accumulation false, overlapped_grad_reduce false, flash_attention false
  
  parameters
    embedding          * (glob)
    attention          * (glob)
    norms              * (glob)
    dense_mlp          * (glob)
    routed_experts     * (glob)
    shared_experts     * (glob)
    router             * (glob)
    output             * (glob)
    mtp                * (glob)
    vision             * (glob)
    total                       124,439,808  (124.44 M)
    active                      124,439,808  (124.44 M; routed experts at top-k, embeddings and head included)
  
  forward FLOPs per token at 4096 tokens (causal factor *) (glob)
    attention_proj     * (glob)
    attention_scores   * (glob)
    linear_recurrence  * (glob)
    mlp                * (glob)
    routed_experts     * (glob)
    shared_experts     * (glob)
    router             * (glob)
    output             * (glob)
    mtp                * (glob)
    vision             * (glob)
    total              * (glob)
  
  activations per token at 4096 tokens, one layer, TP 1 (formula; census where the model has one)
    kind                    formula   formula TP       census    census TP    ratio
    decoder                7680.0 B   362496.0 B            -            -        -
    output                 3080.0 B   201028.0 B            -            -        -

The activation lines are Korthikanti et al.'s layer (GPT-2 has no flash
attention): 10h = 7,680 bytes a token TP does not split, and 24h + a·s·(softmax
4 + dropout mask 1 + probabilities 2) = 18,432 + 12·4096·7 = 362,496 that it
does (the run's default fp32 softmax: 4 bytes where the paper's fp16 has 2).
The output: the final LayerNorm's input (2h), the head's input (2h), the int64
labels (8), and the fp32 log-probabilities over the vocabulary (4·50257).

Layer stacks. DeepSeek-V3: first_k_dense_replace 3 of 61 layers, one MTP
layer (num_nextn_predict_layers 1), priced as the last body kind:

  $ ndlua verify.lua deepseek-ai/DeepSeek-V3 | grep -E '^  (layers|num_experts|num_shared_experts|kv_lora_rank|head_dim) '
    head_dim                           128
    num_experts                        256
    num_shared_experts                 1
    kv_lora_rank                       512
    layers                             3×dense, 58×moe, 1×moe(mtp)

Qwen3.5-35B-A3B: layer_types is linear x3, full, ten times; one MTP layer
(mtp_num_hidden_layers 1); no intermediate_size, so the dense width is the
shared expert's 512 (the vision tower's lines follow: depth 27):

  $ ndlua verify.lua Qwen/Qwen3.5-35B-A3B | grep -E '^  (layers|intermediate_size|num_shared_experts|shared_expert_gate) '
    intermediate_size                  512
    num_shared_experts                 1
    shared_expert_gate                 true
    layers                             3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 1×full_attention(mtp)
    intermediate_size                  4304
    layers                             27×encoder

Qwen3-Next states full_attention_interval 4 and no layer_types, as
Transformers derives them:

  $ ndlua verify.lua Qwen/Qwen3-Next-80B-A3B-Instruct | grep -E '^(model|  layers) '
  model qwen3_next (arch qwen3_5)
    layers                             3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention, 3×linear_attention, 1×full_attention

Each supported model_type has its op profile (hf_config.SUPPORTED; issue
13 gave Llama, Mistral, Phi-3 and Gemma 2/3 theirs), so a Llama run no
longer warns that no profile matches:

  $ ndlua verify.lua meta-llama/Llama-3.1-8B 2>&1 | grep -E '^(model|warning)'
  model llama (arch llama)

Where the config comes from: a directory of that name wins over the
catalog, and the Hugging Face cache is looked in before the catalog.

  $ mkdir -p Qwen/Qwen3-8B
  $ printf '{"model_type": "qwen3", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 128}' > Qwen/Qwen3-8B/config.json
  $ ndlua verify.lua Qwen/Qwen3-8B | grep -E '^(source:|  hidden_size )'
  source: directory Qwen/Qwen3-8B
    hidden_size                        64
  $ rm -r Qwen

  $ hub=$HOME/.cache/huggingface/hub/models--Qwen--Qwen3-8B
  > mkdir -p $hub/refs $hub/snapshots/0123abc
  > echo 0123abc > $hub/refs/main
  > printf '{"model_type": "qwen3", "hidden_size": 96, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 128}' > $hub/snapshots/0123abc/config.json
  $ ndlua verify.lua Qwen/Qwen3-8B | grep -E '^(source:|  hidden_size )'
  source: Hugging Face cache */.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/0123abc (revision main, snapshot 0123abc) (glob)
    hidden_size                        96
  $ rm -r .cache

An id found nowhere: every place tried, how to fix it, the nearest ids.

  $ ndlua verify.lua Qwen/Qwen3-31B
  model.pretrained_model_name_or_path: cannot find the config.json of 'Qwen/Qwen3-31B'; tried:
    Qwen/Qwen3-31B/config.json  (a local checkpoint directory)
    */.cache/huggingface/hub/models--Qwen--Qwen3-31B/refs/main  (the Hugging Face cache, the default location) (glob)
    the built-in catalog (no id 'Qwen/Qwen3-31B')
  closest catalog ids: Qwen/Qwen3-32B, Qwen/Qwen3-8B, Qwen/Qwen3-0.6B; to fix it, put the checkpoint directory (holding config.json) at that path or in the Hugging Face cache, name a catalog id (ndlua verify.lua --list-models), or state the model's fields under model.config_overrides
  [2]

A train.yaml is read whole (nd.train_yaml), but here only its model
matters: config_overrides lie over the checkpoint (here: one MTP layer
fewer); canonical fields written in the section too, with
config_overrides winning where both state one. The run's warnings (no
device count, no optimizer, no sequence length) go to stderr, which these
lines drop; spec/cli/verify_train_yaml.t shows them.

  $ cat > train.yaml <<'YAML'
  > accelerator:
  >   pp_size: 2
  > model:
  >   pretrained_model_name_or_path: deepseek-ai/DeepSeek-V3
  >   num_hidden_layers: 5
  >   config_overrides:
  >     mtp_depth: 0
  >     num_hidden_layers: 7
  >     offset: [1, 0]
  > YAML
  $ ndlua verify.lua train.yaml 2>/dev/null | grep -E '^(source:|  (num_hidden_layers|mtp_depth|layers) )'
  source: built-in catalog deepseek-ai/DeepSeek-V3
    num_hidden_layers                  7
    mtp_depth                          0
    layers                             3×dense, 4×moe

A model from config_overrides alone:

  $ cat > custom.yaml <<'YAML'
  > model:
  >   name: tiny_llama
  >   config_overrides:
  >     hidden_size: 256
  >     num_hidden_layers: 4
  >     num_attention_heads: 8
  >     num_key_value_heads: 2
  >     vocab_size: 1000
  >     intermediate_size: 512
  >     arch: llama2
  > YAML
  $ ndlua verify.lua custom.yaml 2>/dev/null | grep -E '^(source:|model |  (head_dim|layers) )'
  source: model.config_overrides
  model tiny_llama (arch llama2)
    head_dim                           32
    layers                             4×decoder

A profile of one's own: a copy of a shipped profile file, edited, in an
nd/profiles/ directory on NDLUA_PATH:

  $ mkdir -p mine/nd/profiles
  $ sed 's/shard_activations = true/shard_activations = true, grad_bytes = 2/' $ROOT/lua/nd/profiles/qwen.lua > mine/nd/profiles/myqwen.lua
  $ sed 's/arch: llama2/arch: myqwen/' custom.yaml > mine.yaml
  $ NDLUA_PATH=$PWD/mine ndlua verify.lua mine.yaml 2>/dev/null | grep -E '^(model |  family )'
  model tiny_llama (arch myqwen)
    family                             grad_bytes 2, optimizer_state_bytes 4, optimizer_states 2, main_param_bytes 0, norm_bytes 4, dropout_bytes 0, grad_accumulation false, shard_activations true, loss_parallel true, reshard_params false, deferred_grad_accumulation false, overlapped_grad_reduce false, flash_attention true

  $ sed 's/arch: llama2/arch: qwne/' custom.yaml > typo.yaml
  $ ndlua verify.lua typo.yaml
  typo.yaml:10:11: model.config_overrides.arch: unknown arch 'qwne'; the op profiles are cm, deepseek, default, gemma, gpt, llama, llama2, mistral, mixtral, pangualpha, phi3, qwen, qwen3_5, t5, vision
  [2]

Refusals name the field, the file and the line:

  $ cat > bad.yaml <<'YAML'
  > model:
  >   config_overrides:
  >     hidden_size: 256
  >     num_layers: 4
  > YAML
  $ ndlua verify.lua bad.yaml
  bad.yaml:4:17: model.config_overrides.num_layers: unknown model spec key 'num_layers': a model spec states the model only, and a run's strategy, such as its recompute, belongs in its execution spec; a model field (see lua/nd/README.md) or a run key (offset, full_rec, sel_rec, capacity_factor, cap_fact, use_gmm, gmm, seq_length)
  [2]

  $ cat > heads.yaml <<'YAML'
  > model:
  >   pretrained_model_name_or_path: Qwen/Qwen3-8B
  >   config_overrides:
  >     num_key_value_heads: 5
  > YAML
  $ ndlua verify.lua heads.yaml
  heads.yaml:4:26: model.config_overrides.num_key_value_heads: num_attention_heads 32 is not divisible by num_key_value_heads 5
  [2]

  $ printf 'train: {}\n' > empty.yaml
  $ ndlua verify.lua empty.yaml
  empty.yaml:1:1: model: the train.yaml has no model section; a model mapping with pretrained_model_name_or_path or config_overrides
  [2]

--json: one document; the warnings ride along (and go to stderr once):

  $ ndlua verify.lua --json meta-llama/Llama-2-7b-hf 2>/dev/null > out.json
  $ ndlua -e 'local nd = require "nd"; local t = nd.json.load("out.json")
  > print(table.concat(nd.keys(t), " "))
  > print(t.source.kind, t.source.id, t.model.name, t.model.arch, t.model.layers[1].count)
  > print(string.format("%d %d", t.params.total, t.params.active))
  > print(#t.warnings)'
  activations_per_token flops_per_token model params source warnings
  catalog	meta-llama/Llama-2-7b-hf	llama	llama	32
  6738415616 6738415616
  0
