"""Attention: the flash-attention stand-in kernel, eager attention, and the attention
modules of the families (Llama/Qwen GQA with optional QK-norm, QKV bias and Qwen3-Next's
output gate; DeepSeek's MLA; GPT-2's fused-QKV multi-head attention).

Layouts follow Transformers: projections give (b, s, heads, d); the attention core
takes (b, heads, s, d) and returns (b, s, heads, d_v), contiguous.
"""

import torch
from torch import nn

from .blocks import (Dropout, Linear, RMSNorm, apply_rope, inverse_sqrt, region)

# A flash-attention kernel keeps for backward: q, k, v and its output as it was handed
# them (b bytes per element: q and the output at query heads, k and v at KV heads,
# each at its own head width), and two fp32 statistics per query head and token (the
# softmax row max and row sum, as the NPU fusion_attention kernel keeps them;
# flash-attn 2 keeps one fp32 logsumexp instead): 2 x 4 = 8 bytes per head and token.
# Nothing of size s x s is kept.
FLASH_STATS = 2
FLASH_STAT_BYTES = 4


def _reference_attention(q, k, v, scale):
    """Causal softmax(q k^T * scale) v in fp32 on (b, s, heads, d) tensors; returns
    (out, row max, row sum) with out (b, s, a, dv) and the statistics (b, a, s)."""
    rep = q.shape[2] // k.shape[2]
    qf = q.float().transpose(1, 2)
    kf = k.float().transpose(1, 2).repeat_interleave(rep, dim=1)
    vf = v.float().transpose(1, 2).repeat_interleave(rep, dim=1)
    scores = qf @ kf.transpose(-1, -2) * scale
    s = scores.shape[-1]
    scores = scores.masked_fill(torch.ones(s, s, dtype=torch.bool).triu(1), float("-inf"))
    row_max = scores.amax(-1)
    e = (scores - row_max[..., None]).exp()
    row_sum = e.sum(-1)
    out = (e / row_sum[..., None]) @ vf
    return out.transpose(1, 2), row_max, row_sum


class FlashAttention(torch.autograd.Function):
    """A causal flash-attention kernel as autograd sees it (see FLASH_STATS).

    The census needs what the kernel keeps and allocates, not its numbers: the
    forward computes the true attention on real tensors (nothing on meta); the
    backward allocates what a flash backward does — the fp32 row statistic
    D = rowsum(dO * O) and dq, dk, dv — and returns zero gradients.
    """

    @staticmethod
    def forward(ctx, q, k, v, scale):
        b, s, a, _ = q.shape
        out = q.new_empty((b, s, a, v.shape[-1]))
        stats = [q.new_empty((b, a, s), dtype=torch.float32) for _ in range(FLASH_STATS)]
        if q.device.type != "meta":
            ref, row_max, row_sum = _reference_attention(q, k, v, scale)
            out.copy_(ref)
            stats[0].copy_(row_max)
            stats[1].copy_(row_sum)
        ctx.save_for_backward(q, k, v, out, *stats)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        q, k, v = ctx.saved_tensors[:3]
        b, s, a, _ = q.shape
        delta = q.new_empty((b, a, s), dtype=torch.float32)
        grads = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
        del delta  # held while the gradients are made, as a flash backward holds it
        return (*grads, None)


class FlashCore(nn.Module):
    """The attention kernel (op attBMM) on (b, heads, s, d) inputs."""

    census_op = "attBMM"

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, q, k, v, consts):
        return FlashAttention.apply(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                    self.scale)


class Cast(nn.Module):
    """A dtype cast (op headCast); a cast saves nothing for backward."""

    census_op = "headCast"

    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype

    def forward(self, x):
        return x.to(self.dtype)


class ScoreProbs(nn.Module):
    """Scores to probabilities (op softmax): softmax in fp32 then cast back (Transformers'
    eager attention, `upcast`), or softmax in the model dtype (GPT-2). Softmax saves its
    output: 4 bytes per score upcast, b bytes otherwise; the cast saves nothing."""

    census_op = "softmax"

    def __init__(self, dtype, upcast):
        super().__init__()
        self.upcast = upcast
        self.cast = Cast(dtype)

    def forward(self, scores):
        if self.upcast:
            return self.cast(torch.softmax(scores, dim=-1, dtype=torch.float32))
        return torch.softmax(scores, dim=-1)


def repeat_kv(x, n_rep):
    """Transformers' repeat_kv: (b, kv, s, d) to (b, kv * n_rep, s, d), a copy when
    n_rep > 1 (saves nothing itself; the copy is what the score product keeps)."""
    if n_rep == 1:
        return x
    b, kv, s, d = x.shape
    return x[:, :, None].expand(b, kv, n_rep, s, d).reshape(b, kv * n_rep, s, d)


class EagerCore(nn.Module):
    """Eager attention (op attBMM): q k^T * scale + mask, probabilities, dropout, @ v.

    Keeps: q and the (repeated) k (the score product), the probabilities (ScoreProbs),
    the dropout mask, the dropped probabilities and the (repeated) v (the value product).
    Under selective recompute the softmax-and-cast is one recompute region (it keeps
    the scores, b bytes each) and a recomputed dropout keeps nothing.
    """

    census_op = "attBMM"

    def __init__(self, build, scale, upcast, dropout=0.0):
        super().__init__()
        self.scale = scale
        self.probs = region(build, ScoreProbs(build.dtype, upcast), ("softmax", "headCast"))
        self.dropout = Dropout(dropout, seeded="dropout" in build.recompute)

    def forward(self, q, k, v, consts):
        n_rep = q.shape[1] // k.shape[1]
        k, v = repeat_kv(k, n_rep), repeat_kv(v, n_rep)
        scores = torch.matmul(q, k.transpose(2, 3)) * self.scale + consts["mask"]
        probs = self.dropout(self.probs(scores))
        return torch.matmul(probs, v).transpose(1, 2).contiguous()


def attention_core(build, scale, upcast=True, dropout=0.0):
    """The flash kernel, or eager attention when the build asks for it."""
    if build.eager:
        return EagerCore(build, scale, upcast, dropout)
    return FlashCore(scale)


class GQAttention(nn.Module):
    """Llama / Qwen2 / Qwen3 / Qwen3-MoE / Mixtral / Qwen3-Next full attention.

    q, k, v projections (optional bias), optional per-head QK-norm, RoPE, the core, and
    optionally Qwen3-Next's output gate: q_proj also yields a gate per head, and the
    core's output is multiplied by sigmoid(gate) before o_proj.
    """

    def __init__(self, build, dims, norm_cls=RMSNorm):
        super().__init__()
        h, a, kv, d = dims["hidden"], dims["heads"], dims["kv_heads"], dims["head_dim"]
        self.heads, self.kv_heads, self.head_dim = a, kv, d
        self.output_gate = dims.get("output_gate", False)
        q_width = a * d * (2 if self.output_gate else 1)
        self.q_proj = Linear(build, h, q_width, dims.get("qkv_bias", False), "attMM")
        self.k_proj = Linear(build, h, kv * d, dims.get("qkv_bias", False), "attMM")
        self.v_proj = Linear(build, h, kv * d, dims.get("qkv_bias", False), "attMM")
        self.o_proj = Linear(build, a * d, h, dims.get("o_bias", False), "attMM")
        self.q_norm = self.k_norm = None
        if dims.get("qk_norm", False):
            self.q_norm = region(build, norm_cls(build, d), ("normOp",))
            self.k_norm = region(build, norm_cls(build, d), ("normOp",))
        self.core = attention_core(build, inverse_sqrt(d))

    def forward(self, x, consts):
        b, s, _ = x.shape
        q = self.q_proj(x)
        gate = None
        if self.output_gate:
            q, gate = torch.chunk(q.view(b, s, self.heads, 2 * self.head_dim), 2, dim=-1)
            gate = gate.reshape(b, s, -1)
        else:
            q = q.view(b, s, self.heads, self.head_dim)
        k = self.k_proj(x).view(b, s, self.kv_heads, self.head_dim)
        v = self.v_proj(x).view(b, s, self.kv_heads, self.head_dim)
        if self.q_norm is not None:
            q, k = self.q_norm(q), self.k_norm(k)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        cos, sin = consts[f"cos{self.head_dim}"], consts[f"sin{self.head_dim}"]
        q, k = apply_rope(q, k, cos, sin)
        o = self.core(q, k, v, consts).reshape(b, s, -1)
        if gate is not None:
            o = o * torch.sigmoid(gate)
        return self.o_proj(o)


class MLAttention(nn.Module):
    """DeepSeek-V2/V3 multi-head latent attention (Transformers' DeepseekV3Attention).

    q through a low-rank latent (q_a_proj, RMSNorm, q_b_proj) or q_proj; k and v from
    one compressed latent (kv_a_proj_with_mqa: kv_lora_rank + rope dims), its RMSNorm
    and kv_b_proj; the rope part of k is shared by all heads. The value stays a view
    of kv_b_proj's output (no padding to the qk width: the kernel takes its own value
    width), so the kernel keeps that whole output alive.
    """

    def __init__(self, build, dims, norm_cls=RMSNorm):
        super().__init__()
        h, a = dims["hidden"], dims["heads"]
        self.heads, self.nope, self.rope = a, dims["qk_nope_head_dim"], dims["qk_rope_head_dim"]
        self.v_dim, self.kv_rank = dims["v_head_dim"], dims["kv_lora_rank"]
        self.q_rank = dims.get("q_lora_rank") or 0
        qk = self.nope + self.rope
        if self.q_rank:
            self.q_a_proj = Linear(build, h, self.q_rank, False, "attMM")
            self.q_a_layernorm = region(build, norm_cls(build, self.q_rank), ("normOp",))
            self.q_b_proj = Linear(build, self.q_rank, a * qk, False, "attMM")
        else:
            self.q_proj = Linear(build, h, a * qk, False, "attMM")
        self.kv_a_proj_with_mqa = Linear(build, h, self.kv_rank + self.rope, False, "attMM")
        self.kv_a_layernorm = region(build, norm_cls(build, self.kv_rank), ("normOp",))
        self.kv_b_proj = Linear(build, self.kv_rank, a * (self.nope + self.v_dim), False, "attMM")
        self.o_proj = Linear(build, a * self.v_dim, h, False, "attMM")
        self.core = attention_core(build, inverse_sqrt(qk))

    def _query(self, x):
        """The query (b, a, s, nope + rope) before RoPE."""
        b, s, _ = x.shape
        if self.q_rank:
            q = self.q_b_proj(self.q_a_layernorm(self.q_a_proj(x)))
        else:
            q = self.q_proj(x)
        return q.view(b, s, self.heads, self.nope + self.rope).transpose(1, 2)

    def forward(self, x, consts):
        b, s, _ = x.shape
        q_pass, q_rot = torch.split(self._query(x), [self.nope, self.rope], dim=-1)
        k_pass, k_rot = torch.split(self.kv_a_proj_with_mqa(x), [self.kv_rank, self.rope], dim=-1)
        kv = self.kv_b_proj(self.kv_a_layernorm(k_pass))
        kv = kv.view(b, s, self.heads, self.nope + self.v_dim).transpose(1, 2)
        k_pass, value = torch.split(kv, [self.nope, self.v_dim], dim=-1)
        k_rot = k_rot.view(b, 1, s, self.rope)
        cos, sin = consts[f"cos{self.rope}"], consts[f"sin{self.rope}"]
        q_rot, k_rot = apply_rope(q_rot, k_rot, cos, sin)
        k_rot = k_rot.expand(*k_pass.shape[:-1], -1)
        query = torch.cat((q_pass, q_rot), dim=-1)
        key = torch.cat((k_pass, k_rot), dim=-1)
        o = self.core(query, key, value, consts)
        return self.o_proj(o.reshape(b, s, -1))


class GPT2Attention(nn.Module):
    """GPT-2 attention: fused c_attn (bias), eager attention with the softmax in the model
    dtype and dropout on the probabilities, c_proj (bias), residual dropout. No flash."""

    def __init__(self, build, dims, dropout):
        super().__init__()
        h, a, d = dims["hidden"], dims["heads"], dims["head_dim"]
        self.heads, self.head_dim = a, d
        self.c_attn = Linear(build, h, 3 * a * d, True, "attMM")
        self.c_proj = Linear(build, a * d, h, True, "attMM")
        self.core = EagerCore(build, inverse_sqrt(d), upcast=False, dropout=dropout)
        self.resid_dropout = Dropout(dropout, seeded="dropout" in build.recompute)

    def forward(self, x, consts):
        b, s, _ = x.shape
        q, k, v = self.c_attn(x).split(self.heads * self.head_dim, dim=2)
        q, k, v = (t.view(b, s, self.heads, self.head_dim).transpose(1, 2)
                   for t in (q, k, v))
        o = self.core(q, k, v, consts).reshape(b, s, -1)
        return self.resid_dropout(self.c_proj(o))
