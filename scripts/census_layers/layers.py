"""Decoder layers per family and the output layer, built from a settled model spec.

Which layer is built follows the family (spec.FAMILIES, from `arch`) and the kind's
flavour: attention "linear" is the gated DeltaNet; "full" is MLA when kv_lora_rank > 0,
else GQA (with Qwen3-Next's output gate when attn_output_gate). The feed-forward is the
kind's `ffn` when stated ("dense" | "moe"), else the model's own (MoE when num_experts >
1). GPT-2 has its own layer. Each layer is `module(x, consts)`, consts holding the
tensors every layer shares (rotary tables, the causal mask, labels).
"""

import torch
from torch import nn

from .attention import GPT2Attention, GQAttention, MLAttention
from .blocks import (LayerNorm, RMSNorm, ZeroCenteredRMSNorm, Linear, causal_mask, region,
                     rotary_tables)
from .ffn import GPT2MLP, MLP, MoE, DeepseekRouter, QwenRouter
from .linear_attention import GatedDeltaNet
from .spec import CensusError, family_of, need

# GPT-2's attention, residual and MLP dropout (attn_pdrop = resid_pdrop = 0.1).
GPT_DROPOUT = 0.1

NORMS = {"llama": RMSNorm, "deepseek": RMSNorm, "qwen3_5": ZeroCenteredRMSNorm, "gpt": LayerNorm}


class DecoderLayer(nn.Module):
    """Pre-norm residual layer: h = x + mixer(norm1(x)); out = h + ffn(norm2(h))."""

    def __init__(self, build, norm1, mixer, norm2, ffn):
        super().__init__()
        self.input_layernorm = region(build, norm1, ("normOp",))
        self.mixer = mixer
        self.post_attention_layernorm = region(build, norm2, ("normOp",))
        self.mlp = ffn

    def forward(self, x, consts):
        h = x + self.mixer(self.input_layernorm(x), consts)
        return h + self.mlp(self.post_attention_layernorm(h))


class CausalLMLoss(nn.Module):
    """Transformers' causal-LM loss: logits upcast to fp32, labels shifted by one (a new
    int64 tensor, 8 bytes per token, that the loss keeps), mean cross-entropy (log_softmax
    keeps the fp32 log-probabilities, 4 bytes per vocabulary entry and token)."""

    def forward(self, logits, labels):
        vocab = logits.shape[-1]
        logits = logits.float()
        labels = torch.nn.functional.pad(labels, (0, 1), value=-100)
        shifted = labels[..., 1:].contiguous()
        return torch.nn.functional.cross_entropy(logits.view(-1, vocab), shifted.view(-1),
                                                 ignore_index=-100)


class OutputLayer(nn.Module):
    """Final norm, bias-free h x V head, causal-LM loss; the forward returns the loss."""

    def __init__(self, build, norm, hidden, vocab):
        super().__init__()
        self.norm = region(build, norm, ("normOp",))
        self.lm_head = Linear(build, hidden, vocab, False, "other")
        self.loss = CausalLMLoss()

    def forward(self, x, consts):
        return self.loss(self.lm_head(self.norm(x)), consts["labels"])


def _attention_dims(spec, what):
    """Dims of a full-attention block."""
    d = need(spec, ("hidden_size", "num_attention_heads"), what)
    heads = d["num_attention_heads"]
    kv = spec.get("num_key_value_heads") or heads
    head_dim = spec.get("head_dim") or d["hidden_size"] // heads
    if heads % kv:
        raise CensusError(f"{what}: num_attention_heads ({heads}) must be a multiple of "
                          f"num_key_value_heads ({kv})")
    return {"hidden": d["hidden_size"], "heads": heads, "kv_heads": kv, "head_dim": head_dim,
            "qkv_bias": bool(spec.get("qkv_bias")), "o_bias": bool(spec.get("o_bias")),
            "qk_norm": bool(spec.get("qk_norm")),
            "output_gate": bool(spec.get("attn_output_gate"))}


def _mla_dims(spec, what):
    """Dims of an MLA block; v_head_dim falls back to the family default."""
    if spec.get("v_head_dim") is None and (spec.get("family") or {}).get("v_head_dim"):
        spec = dict(spec, v_head_dim=spec["family"]["v_head_dim"])
    d = need(spec, ("hidden_size", "num_attention_heads", "kv_lora_rank", "qk_rope_head_dim",
                    "qk_nope_head_dim", "v_head_dim"), what)
    return {"hidden": d["hidden_size"], "heads": d["num_attention_heads"],
            "kv_lora_rank": d["kv_lora_rank"], "qk_rope_head_dim": d["qk_rope_head_dim"],
            "qk_nope_head_dim": d["qk_nope_head_dim"], "v_head_dim": d["v_head_dim"],
            "q_lora_rank": spec.get("q_lora_rank") or 0}


def _linear_dims(spec, what):
    """Dims of a gated-DeltaNet block."""
    d = need(spec, ("hidden_size", "linear_num_key_heads", "linear_key_head_dim",
                    "linear_num_value_heads", "linear_value_head_dim", "linear_conv_kernel_dim"),
             what)
    if d["linear_num_value_heads"] % d["linear_num_key_heads"]:
        raise CensusError(f"{what}: linear_num_value_heads must be a multiple of "
                          "linear_num_key_heads")
    return dict(d, hidden=d["hidden_size"])


def _moe_dims(spec, what):
    """Dims of an MoE block: routed width (moe_intermediate_size, else the dense width as
    Mixtral runs its experts), one shared expert of shared_expert_intermediate_size (Qwen),
    else num_shared_experts x the routed width (DeepSeek)."""
    d = need(spec, ("hidden_size", "num_experts", "num_experts_per_tok"), what)
    width = spec.get("moe_intermediate_size") or spec.get("intermediate_size")
    if not width:
        raise CensusError(f"{what} needs moe_intermediate_size (or intermediate_size when the "
                          "experts run at the dense width)")
    shared = 0
    if spec.get("num_shared_experts") or spec.get("shared_expert_intermediate_size"):
        shared = spec.get("shared_expert_intermediate_size") or \
            (spec.get("num_shared_experts") or 1) * width
    if d["num_experts_per_tok"] > d["num_experts"]:
        raise CensusError(f"{what}: num_experts_per_tok ({d['num_experts_per_tok']}) exceeds "
                          f"num_experts ({d['num_experts']})")
    return {"hidden": d["hidden_size"], "experts": d["num_experts"],
            "top_k": d["num_experts_per_tok"], "expert_width": width, "shared_width": shared,
            "shared_expert_gate": bool(spec.get("shared_expert_gate"))}


def _ffn_kind(spec, flavour):
    """"dense" or "moe": the kind's own flavour, else the model's."""
    ffn = flavour.get("ffn")
    if ffn in ("dense", "moe"):
        return ffn
    if ffn is not None:
        raise CensusError(f"kind ffn flavour {ffn!r} is neither \"dense\" nor \"moe\"")
    return "moe" if (spec.get("num_experts") or 1) > 1 else "dense"


def _mixer(build, spec, family, flavour, what):
    """The token mixer of a kind."""
    attention = flavour.get("attention", "full")
    norm = NORMS[family]
    if attention == "linear":
        return GatedDeltaNet(build, _linear_dims(spec, what))
    if attention != "full":
        raise CensusError(f"{what}: attention flavour {attention!r} is neither \"full\" nor "
                          "\"linear\"")
    if (spec.get("kv_lora_rank") or 0) > 0:
        return MLAttention(build, _mla_dims(spec, what), norm)
    return GQAttention(build, _attention_dims(spec, what), norm)


def _ffn(build, spec, family, flavour, what):
    """The feed-forward block of a kind."""
    if _ffn_kind(spec, flavour) == "moe":
        dims = _moe_dims(spec, what)
        if family == "deepseek":
            return MoE(build, dims, DeepseekRouter, False)
        return MoE(build, dims, QwenRouter, dims.get("shared_expert_gate"))
    d = need(spec, ("hidden_size", "intermediate_size"), what)
    return MLP(build, d["hidden_size"], d["intermediate_size"], bool(spec.get("mlp_bias")))


def _gpt_layer(build, spec, what):
    """GPT-2 block: LayerNorm, attention with dropout, LayerNorm, GeLU MLP, dropout."""
    dims = _attention_dims(spec, what)
    if dims["kv_heads"] != dims["heads"]:
        raise CensusError(f"{what}: a GPT-2 layer has as many KV heads as query heads")
    h = dims["hidden"]
    width = spec.get("intermediate_size") or 4 * h
    return DecoderLayer(build, LayerNorm(build, h), GPT2Attention(build, dims, GPT_DROPOUT),
                        LayerNorm(build, h), GPT2MLP(build, h, width, GPT_DROPOUT))


def build_layer(build, spec, kind, flavour):
    """One decoder layer of `kind` (flavour = the spec's kinds[kind])."""
    family = family_of(spec)
    what = f"the {family} reference layer of kind {kind!r}"
    if family == "gpt":
        return _gpt_layer(build, spec, what)
    h = need(spec, ("hidden_size",), what)["hidden_size"]
    norm = NORMS[family]
    return DecoderLayer(build, norm(build, h), _mixer(build, spec, family, flavour, what),
                        norm(build, h), _ffn(build, spec, family, flavour, what))


def build_output(build, spec, vocab=None):
    """The output layer; `vocab` overrides the spec's vocab_size (the TP-halved head)."""
    family = family_of(spec)
    d = need(spec, ("hidden_size", "vocab_size"), f"the {family} output layer")
    return OutputLayer(build, NORMS[family](build, d["hidden_size"]), d["hidden_size"],
                       vocab or d["vocab_size"])


def rope_dims(spec):
    """Rotary widths the layers of a spec may ask for: the head width, MLA's rope width."""
    out = set()
    if spec.get("num_attention_heads") and spec.get("hidden_size"):
        out.add(spec.get("head_dim") or spec["hidden_size"] // spec["num_attention_heads"])
    if spec.get("qk_rope_head_dim"):
        out.add(spec["qk_rope_head_dim"])
    return sorted(out)


def constants(build, spec, seq_len, vocab=None):
    """The tensors all layers share: rotary tables, the causal mask (eager attention and
    GPT-2), labels (the output layer; drawn below `vocab`)."""
    consts = {}
    for dim in rope_dims(spec):
        consts[f"cos{dim}"], consts[f"sin{dim}"] = rotary_tables(build, seq_len, dim)
    if build.eager or spec.get("arch") == "gpt":
        consts["mask"] = causal_mask(build, seq_len)
    if vocab:
        if build.meta:
            consts["labels"] = torch.empty((1, seq_len), dtype=torch.long, device=build.device)
        else:
            consts["labels"] = torch.randint(0, vocab, (1, seq_len), device=build.device)
    return consts


def layer_input(build, spec, seq_len):
    """The layer input (1, s, h), a leaf requiring grad."""
    h = spec["hidden_size"]
    if build.meta:
        x = torch.empty((1, seq_len, h), device=build.device, dtype=build.dtype)
    else:
        x = torch.randn((1, seq_len, h), device=build.device).to(build.dtype)
    return x.requires_grad_(True)
