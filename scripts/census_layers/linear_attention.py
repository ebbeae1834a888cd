"""Qwen3-Next / Qwen3.5 linear attention: the gated DeltaNet in the Qwen3.5 projection
layout (in_proj_qkv, in_proj_z, in_proj_b, in_proj_a), with the chunked gated delta rule
(chunk 64) either as Transformers' eager torch_chunk_gated_delta_rule (the default, what
Transformers runs without flash-linear-attention: its row-by-row chunk solve keeps a lot)
or as a fused kernel keeps it (DeltaRuleKernel, --delta-rule kernel).

Ops: the projections are attMM; the short causal convolution (with its SiLU) is
`other`; the delta rule with its gates and the q/k L2 norms is linrec; the gated
RMSNorm on the output is normOp.
"""

import torch
import torch.nn.functional as F
from torch import nn

from .blocks import GatedRMSNorm, Linear, region

CHUNK = 64


class CausalConvFn(torch.autograd.Function):
    """Depthwise conv1d with padding kernel - 1 on both sides (nn.Conv1d as Qwen3-Next
    builds it; the caller keeps the first s outputs). Keeps what convolution keeps: its
    input and weight. torch 1.13 has no meta backward for convolution, so this Function
    stands in: the true convolution forward on real tensors, and a backward that
    allocates the input and weight gradients (zeros: the census measures shapes)."""

    @staticmethod
    def forward(ctx, x, w):
        b, c, s = x.shape
        k = w.shape[-1]
        out = x.new_empty((b, c, s + k - 1))
        if x.device.type != "meta":
            out.copy_(F.conv1d(x.float(), w.float(), padding=k - 1, groups=c))
        ctx.save_for_backward(x, w)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        return torch.zeros_like(x), torch.zeros_like(w)


class ShortConv(nn.Module):
    """The causal short convolution over q, k, v channels, then SiLU. Keeps the
    convolution input (the projection output, b per channel) and the convolution
    output (b per channel and s + kernel - 1 positions, saved by SiLU)."""

    census_op = "other"

    def __init__(self, build, channels, kernel):
        super().__init__()
        self.weight = build.param(channels, 1, kernel)

    def forward(self, x):
        s = x.shape[1]
        y = CausalConvFn.apply(x.transpose(1, 2), self.weight)[:, :, :s]
        return F.silu(y).transpose(1, 2)


def l2norm(x, eps=1e-6):
    """Transformers' l2norm over the last dim."""
    return x * torch.rsqrt((x * x).sum(dim=-1, keepdim=True) + eps)


def _intra_chunk(k_beta, key, decay_mask, chunk):
    """The chunk's lower-triangular solve, as Transformers writes it (row by row)."""
    mask = torch.triu(torch.ones(chunk, chunk, dtype=torch.bool, device=key.device), diagonal=0)
    attn = -((k_beta @ key.transpose(-1, -2)) * decay_mask).masked_fill(mask, 0)
    for i in range(1, chunk):
        row = attn[..., i, :i].clone()
        sub = attn[..., :i, :i].clone()
        attn[..., i, :i] = row + (row.unsqueeze(-1) * sub).sum(-2)
    return attn + torch.eye(chunk, dtype=attn.dtype, device=attn.device)


def chunk_gated_delta_rule(query, key, value, g, beta, chunk=CHUNK):
    """Transformers' torch_chunk_gated_delta_rule with q/k L2-normalised in the kernel,
    no initial or final state. Inputs (b, s, heads, d); returns (b, s, heads, d_v)."""
    dtype = query.dtype
    query, key = l2norm(query), l2norm(key)
    query, key, value, beta, g = [x.transpose(1, 2).contiguous().to(torch.float32)
                                  for x in (query, key, value, beta, g)]
    b, heads, s, d_k = key.shape
    d_v = value.shape[-1]
    pad = (chunk - s % chunk) % chunk
    query, key, value = (F.pad(x, (0, 0, 0, pad)) for x in (query, key, value))
    beta, g = F.pad(beta, (0, pad)), F.pad(g, (0, pad))
    total = s + pad
    query = query * (d_k ** -0.5)
    v_beta = value * beta.unsqueeze(-1)
    k_beta = key * beta.unsqueeze(-1)
    query, key, value, k_beta, v_beta = [x.reshape(b, heads, -1, chunk, x.shape[-1])
                                         for x in (query, key, value, k_beta, v_beta)]
    g = g.reshape(b, heads, -1, chunk).cumsum(dim=-1)
    decay_mask = ((g.unsqueeze(-1) - g.unsqueeze(-2)).tril().exp().float()).tril()
    attn = _intra_chunk(k_beta, key, decay_mask, chunk)
    value = attn @ v_beta
    k_cumdecay = attn @ (k_beta * g.exp().unsqueeze(-1))
    state = torch.zeros(b, heads, d_k, d_v).to(value)
    out = torch.zeros_like(value)
    mask = torch.triu(torch.ones(chunk, chunk, dtype=torch.bool, device=query.device), diagonal=1)
    for i in range(total // chunk):
        q_i, k_i, v_i = query[:, :, i], key[:, :, i], value[:, :, i]
        attn = (q_i @ k_i.transpose(-1, -2) * decay_mask[:, :, i]).masked_fill_(mask, 0)
        v_new = v_i - k_cumdecay[:, :, i] @ state
        attn_inter = (q_i * g[:, :, i, :, None].exp()) @ state
        out[:, :, i] = attn_inter + attn @ v_new
        state = (state * g[:, :, i, -1, None, None].exp()
                 + (k_i * (g[:, :, i, -1, None] - g[:, :, i]).exp()[..., None]).transpose(-1, -2)
                 @ v_new)
    out = out.reshape(b, heads, -1, d_v)[:, :, :s]
    return out.transpose(1, 2).contiguous().to(dtype)


class DeltaRuleKernel(torch.autograd.Function):
    """The chunked gated delta rule as a fused kernel keeps it (flash-linear-attention's
    chunk_gated_delta_rule with q/k L2-normalised in the kernel; HyperParallel's kernel
    contract): per value head and token, q and k after the L2 norm (b*d_k each) and their
    fp32 inverse norms (4 + 4), v (b*d_v), the fp32 chunk-local cumulative gate (4), beta
    (b) and one row of the chunk's solved lower-triangular matrix (b*CHUNK). The output
    is not kept (its consumer keeps it). The forward computes the rule on real tensors;
    the backward allocates the five input gradients (zeros: the census measures shapes).
    """

    @staticmethod
    def forward(ctx, q, k, v, g, beta):
        b, s, heads, _ = q.shape
        out = v.new_empty(v.shape)
        q_rstd = q.new_empty((b, s, heads), dtype=torch.float32)
        k_rstd = k.new_empty((b, s, heads), dtype=torch.float32)
        qn, kn = q.new_empty(q.shape), k.new_empty(k.shape)
        g_cum = g.new_empty(g.shape, dtype=torch.float32)
        chunk_matrix = q.new_empty((b, s, heads, CHUNK))
        if q.device.type != "meta":
            qf, kf = q.float(), k.float()
            q_rstd.copy_(torch.rsqrt((qf * qf).sum(-1) + 1e-6))
            k_rstd.copy_(torch.rsqrt((kf * kf).sum(-1) + 1e-6))
            qn.copy_(qf * q_rstd[..., None])
            kn.copy_(kf * k_rstd[..., None])
            g_cum.copy_(g.float())
            chunk_matrix.zero_()
            out.copy_(chunk_gated_delta_rule(q, k, v, g, beta))
        ctx.save_for_backward(qn, q_rstd, kn, k_rstd, v, g_cum, beta, chunk_matrix)
        return out

    @staticmethod
    def backward(ctx, grad):
        qn, _, kn, _, v, g_cum, beta, _ = ctx.saved_tensors
        return (torch.zeros_like(qn), torch.zeros_like(kn), torch.zeros_like(v),
                torch.zeros_like(g_cum), torch.zeros_like(beta))


class DeltaRule(nn.Module):
    """The gates and the chunked delta rule (op linrec): beta = sigmoid(b),
    g = -exp(A_log) * softplus(a + dt_bias), q and k repeated to the value heads."""

    census_op = "linrec"

    def __init__(self, build, key_heads, value_heads):
        super().__init__()
        self.kernel = build.delta_rule == "kernel"
        self.repeat = value_heads // key_heads
        self.value_heads = value_heads
        self.A_log = build.param(value_heads)
        self.dt_bias = build.param(value_heads, init="ones")

    def forward(self, q, k, v, b_raw, a_raw):
        beta = b_raw.sigmoid()
        g = -self.A_log.float().exp() * F.softplus(a_raw.float() + self.dt_bias)
        if self.repeat > 1:
            q = q.repeat_interleave(self.repeat, dim=2, output_size=self.value_heads)
            k = k.repeat_interleave(self.repeat, dim=2, output_size=self.value_heads)
        if self.kernel:
            return DeltaRuleKernel.apply(q, k, v, g, beta)
        return chunk_gated_delta_rule(q, k, v, g, beta)


class GatedDeltaNet(nn.Module):
    """Qwen3.5 / Qwen3-Next linear attention (Transformers' Qwen3NextGatedDeltaNet)."""

    def __init__(self, build, dims):
        super().__init__()
        h = dims["hidden"]
        self.nk, self.dk = dims["linear_num_key_heads"], dims["linear_key_head_dim"]
        self.nv, self.dv = dims["linear_num_value_heads"], dims["linear_value_head_dim"]
        key_dim, value_dim = self.nk * self.dk, self.nv * self.dv
        self.split = [key_dim, key_dim, value_dim]
        self.in_proj_qkv = Linear(build, h, 2 * key_dim + value_dim, False, "attMM")
        self.in_proj_z = Linear(build, h, value_dim, False, "attMM")
        self.in_proj_b = Linear(build, h, self.nv, False, "attMM")
        self.in_proj_a = Linear(build, h, self.nv, False, "attMM")
        self.conv = ShortConv(build, 2 * key_dim + value_dim, dims["linear_conv_kernel_dim"])
        self.rule = DeltaRule(build, self.nk, self.nv)
        self.norm = region(build, GatedRMSNorm(build, self.dv), ("normOp",))
        self.out_proj = Linear(build, value_dim, h, False, "attMM")

    def forward(self, x, consts):
        b, s, _ = x.shape
        q, k, v = torch.split(self.conv(self.in_proj_qkv(x)), self.split, dim=-1)
        q = q.reshape(b, s, self.nk, self.dk)
        k = k.reshape(b, s, self.nk, self.dk)
        v = v.reshape(b, s, self.nv, self.dv)
        z = self.in_proj_z(x).reshape(b, s, self.nv, self.dv)
        core = self.rule(q, k, v, self.in_proj_b(x), self.in_proj_a(x))
        core = self.norm(core.reshape(-1, self.dv), z.reshape(-1, self.dv))
        return self.out_proj(core.reshape(b, s, -1))
