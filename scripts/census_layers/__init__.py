"""Reference layers and measurement for the activation census (scripts/census.py).

Modules:
  measure           what autograd saves for backward and the backward's working set
  blocks            norms, projections, dropout, activations, casts, recompute regions
  attention         the flash-attention stand-in kernel, eager attention, GQA, MLA, GPT-2
  ffn               dense MLPs, the grouped-matmul experts, Qwen-style and DeepSeek-style MoE
  linear_attention  the gated DeltaNet (Qwen3-Next / Qwen3.5) with the chunked delta rule
  layers            decoder layers per family, the output layer, the family table
  spec              the settled model spec: loading, checks, TP halving
  record            census records of every kind of a model, as ndlua reads them
  hf                the Transformers path (only where `transformers` is importable)
"""
