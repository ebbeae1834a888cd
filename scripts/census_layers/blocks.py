"""Building blocks of the reference layers: norms, projections, dropout, activations,
casts, rotary embeddings and recompute regions.

Each block mirrors what the Transformers module of the same name saves for backward,
so that the census of a reference layer is the census of the model's own layer. A
block that is an op of ndlua's op vector carries `census_op` (see measure.OpScope).

Byte widths below are per element: b = the model dtype's bytes (2 in bf16/fp16).
"""

import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

# HyperParallel's selective rule (sel_rec_rule = hyperparallel): a selective run sets
# the recompute switches {attBMM: 1, headCast: 0, dropout: 0, softmax: 0, normOp: 0,
# gather: 0, ffAct: 0}; a switch at 0 means the op is recomputed in backward, so what
# it saved is not kept. The attention kernel (attBMM) stays. `gather` is a TP
# communication, absent from a one-device layer.
SELECTIVE_RECOMPUTE = frozenset({"headCast", "dropout", "softmax", "normOp", "gather", "ffAct"})


class Build:
    """Where and how a layer is built: device, dtype, eager attention, recompute set, and
    the delta rule of linear attention ("eager" or "kernel")."""

    def __init__(self, device="cpu", dtype=torch.bfloat16, eager=False, recompute=frozenset(),
                 delta_rule="eager"):
        self.device = torch.device(device)
        self.dtype = dtype
        self.eager = eager
        self.recompute = frozenset(recompute)
        self.delta_rule = delta_rule

    @property
    def meta(self):
        """True on the meta device (shapes only, no data)."""
        return self.device.type == "meta"

    def param(self, *shape, init="normal"):
        """A parameter of the model dtype: normal(0, 0.02), ones or zeros; empty on meta."""
        t = torch.empty(*shape, device=self.device, dtype=self.dtype)
        if not self.meta:
            with torch.no_grad():
                if init == "ones":
                    t.fill_(1.0)
                elif init == "zeros":
                    t.zero_()
                else:
                    t.normal_(0.0, 0.02)
        return nn.Parameter(t)


class Linear(nn.Module):
    """nn.Linear (F.linear): saves its input; the weight is a parameter.

    A 3-D contiguous input with a bias goes through addmm on a view, without, through
    mm on a view: either way the saved input is the caller's storage.
    """

    def __init__(self, build, n_in, n_out, bias=False, op="other"):
        super().__init__()
        self.weight = build.param(n_out, n_in)
        self.bias = build.param(n_out, init="zeros") if bias else None
        self.census_op = op

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)


def mean_last(x):
    """x.mean(-1, keepdim=True), spelled as a sum divided by the width: torch >= 2.0's
    mean keeps only sizes for backward, torch 1.13's keeps its whole input; the sum keeps
    what current torch keeps, so the census does not depend on the torch version."""
    return x.sum(-1, keepdim=True) / x.shape[-1]


class RMSNorm(nn.Module):
    """Transformers' LlamaRMSNorm (Llama, Qwen2/3, Qwen3-MoE, DeepSeek, Mixtral).

    Saves per row of width w: the fp32 copy of the input (4w; the input itself when
    it is fp32), rstd (4), the normalised row cast back (b*w, saved by the weight
    multiply). The input in the model dtype is not saved.
    """

    census_op = "normOp"

    def __init__(self, build, width, eps=1e-6):
        super().__init__()
        self.weight = build.param(width, init="ones")
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        h = x.to(torch.float32)
        variance = mean_last(h.pow(2))
        h = h * torch.rsqrt(variance + self.eps)
        return self.weight * h.to(dtype)


class ZeroCenteredRMSNorm(nn.Module):
    """Qwen3-Next / Qwen3.5 RMSNorm: x * rstd * (1 + w), in fp32, cast back.

    Saves per row of width w: the fp32 input (4w), rstd (4), the fp32 normalised row
    (4w), and (1 + w) in fp32 (4w per layer, a parameter-derived tensor).
    """

    census_op = "normOp"

    def __init__(self, build, width, eps=1e-6):
        super().__init__()
        self.weight = build.param(width, init="zeros")
        self.eps = eps

    def forward(self, x):
        h = x.float()
        h = h * torch.rsqrt(mean_last(h.pow(2)) + self.eps)
        h = h * (1.0 + self.weight.float())
        return h.type_as(x)


class GatedRMSNorm(nn.Module):
    """Qwen3-Next's gated RMSNorm on the linear-attention output: norm(x) * silu(z).

    Saves per row of width w: fp32 x (4w), rstd (4), the normalised row cast back
    (b*w, saved by the weight multiply), the weighted row (b*w) and silu(z) (4w) (both
    saved by the gate multiply), fp32 z (4w, saved by silu).
    """

    census_op = "normOp"

    def __init__(self, build, width, eps=1e-6):
        super().__init__()
        self.weight = build.param(width, init="ones")
        self.eps = eps

    def forward(self, x, gate):
        dtype = x.dtype
        h = x.to(torch.float32)
        h = h * torch.rsqrt(mean_last(h.pow(2)) + self.eps)
        h = self.weight * h.to(dtype)
        h = h * F.silu(gate.to(torch.float32))
        return h.to(dtype)


class LayerNorm(nn.Module):
    """nn.LayerNorm (GPT-2): saves its input (b*w) and fp32 mean and rstd (4 + 4)."""

    census_op = "normOp"

    def __init__(self, build, width, eps=1e-5):
        super().__init__()
        self.weight = build.param(width, init="ones")
        self.bias = build.param(width, init="zeros")
        self.eps = eps

    def forward(self, x):
        return F.layer_norm(x, (x.shape[-1],), self.weight, self.bias, self.eps)


class SeededDropout(torch.autograd.Function):
    """Dropout whose mask is regenerated in backward from a seed: saves no tensor.

    This is how a recomputed dropout works (Megatron, NPU dropout-with-seed): the
    mask is made again from the RNG state, which holds no activation. A generic
    checkpoint of a lone dropout would instead hold its input (b bytes) to drop a
    1-byte mask, so the selective rule's dropout switch is modelled this way.
    """

    @staticmethod
    def _mask(x, p, seed):
        """The keep-mask for `seed` (all-empty on meta)."""
        mask = torch.empty(x.shape, dtype=torch.bool, device=x.device)
        if x.device.type != "meta":
            gen = torch.Generator(device=x.device)
            gen.manual_seed(seed)
            mask.bernoulli_(1.0 - p, generator=gen)
        return mask

    @staticmethod
    def forward(ctx, x, p):
        ctx.p = p
        ctx.seed = int(torch.randint(0, 2**62, (1,)).item())
        return x * SeededDropout._mask(x, p, ctx.seed) / (1.0 - p)

    @staticmethod
    def backward(ctx, grad):
        mask = SeededDropout._mask(grad, ctx.p, ctx.seed)
        return grad * mask / (1.0 - ctx.p), None


class Dropout(nn.Module):
    """Dropout as the fused GPU kernel does it (torch.native_dropout): saves a bool
    mask (1 byte per element). F.dropout on CPU would save a mask in the model dtype
    (input * noise). p = 0 is the identity and saves nothing. Under a recomputed
    dropout (`seeded`) it saves nothing (SeededDropout)."""

    census_op = "dropout"

    def __init__(self, p, seeded=False):
        super().__init__()
        self.p = p
        self.seeded = seeded

    def forward(self, x):
        if self.p == 0 or not self.training:
            return x
        if self.seeded:
            return SeededDropout.apply(x, self.p)
        return torch.native_dropout(x, self.p, True)[0]


class GatedAct(nn.Module):
    """SwiGLU's act(gate) * up (Transformers: act_fn(gate_proj(x)) * up_proj(x)).

    Saves per element of the width I: the gate (b, saved by silu), silu(gate) (b) and
    the up projection (b) (both saved by the multiply).
    """

    census_op = "ffAct"

    def forward(self, gate, up):
        return F.silu(gate) * up


class Gelu(nn.Module):
    """GeLU as one kernel (F.gelu, tanh form): saves its input only, as Megatron's
    fused bias-GeLU does (Transformers' gelu_new written out in Python would save
    several intermediates)."""

    census_op = "ffAct"

    def forward(self, x):
        return F.gelu(x, approximate="tanh")


class HoldInputs(torch.autograd.Function):
    """Identity that saves its inputs: a non-reentrant checkpoint holds its inputs for
    the recompute (in a closure, out of the saved-tensor hooks' sight); passing them
    through this Function first makes that hold visible to the census."""

    @staticmethod
    def forward(ctx, *tensors):
        ctx.save_for_backward(*tensors)
        return tuple(t.view_as(t) for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        return grads


class Recompute(nn.Module):
    """A recompute region: the inner module runs under torch.utils.checkpoint
    (non-reentrant), so it keeps only its inputs; its outputs are kept by whoever
    saves them downstream. Inputs must be tensors."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, *tensors):
        held = HoldInputs.apply(*tensors)
        return checkpoint(self.inner, *held, use_reentrant=False)


def region(build, module, switches):
    """`module` as a recompute region when every switch in `switches` is recomputed
    under this build, else `module` itself."""
    if build.recompute and set(switches) <= build.recompute:
        return Recompute(module)
    return module


def rotary_tables(build, seq_len, dim, base=10000.0):
    """cos and sin tables (1, s, dim) in the model dtype, as a model's rotary
    embedding hands them to every layer (shared: excluded from each layer's census)."""
    if build.meta:
        shape = (1, seq_len, dim)
        return (torch.empty(shape, device=build.device, dtype=build.dtype),
                torch.empty(shape, device=build.device, dtype=build.dtype))
    inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    freqs = torch.outer(torch.arange(seq_len, dtype=torch.float32), inv)
    emb = torch.cat((freqs, freqs), dim=-1)[None]
    return emb.cos().to(build.device, build.dtype), emb.sin().to(build.device, build.dtype)


def rotate_half(x):
    """Transformers' rotate_half: (-x2, x1)."""
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rope(q, k, cos, sin):
    """Transformers' apply_rotary_pos_emb on (b, heads, s, d) tensors.

    q * cos saves cos, rotate_half(q) * sin saves sin (shared tables, excluded):
    RoPE keeps nothing of its own; the rotated q and k are new storages.
    """
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def causal_mask(build, seq_len):
    """Additive causal mask (1, 1, s, s) in the model dtype, shared by all layers.
    Adding it saves nothing (unlike torch.where / masked_fill, which keep the mask)."""
    if build.meta:
        return torch.empty((1, 1, seq_len, seq_len), device=build.device, dtype=build.dtype)
    m = torch.full((seq_len, seq_len), torch.finfo(build.dtype).min, dtype=build.dtype)
    return torch.triu(m, diagonal=1)[None, None].to(build.device)


def inverse_sqrt(d):
    """1/sqrt(d), the attention scale."""
    return 1.0 / math.sqrt(d)
