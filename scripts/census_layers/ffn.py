"""Feed-forward blocks: the gated MLP, GPT-2's MLP, the routed experts as a grouped
matmul, and the MoE blocks of the Qwen family (Qwen2/3-MoE, Qwen3-Next, Mixtral) and of
DeepSeek-V3."""

import torch
from torch import nn

from .blocks import Dropout, GatedAct, Gelu, Linear, region


class MLP(nn.Module):
    """SwiGLU MLP (Llama, Qwen, DeepSeek dense and shared experts):
    down(act(gate(x)) * up(x)). Keeps x (b*h, gate/up inputs), the gate, silu(gate) and
    up (GatedAct, 3 * b*I) and the product (b*I, down's input)."""

    def __init__(self, build, hidden, width, bias=False):
        super().__init__()
        self.gate_proj = Linear(build, hidden, width, bias, "ffMM")
        self.up_proj = Linear(build, hidden, width, bias, "ffMM")
        self.down_proj = Linear(build, width, hidden, bias, "ffMM")
        self.act = region(build, GatedAct(), ("ffAct",))

    def forward(self, x):
        return self.down_proj(self.act(self.gate_proj(x), self.up_proj(x)))


class GPT2MLP(nn.Module):
    """GPT-2 MLP: c_fc (h to 4h, bias), GeLU, c_proj (bias), dropout. Keeps the c_fc
    input (b*h), the GeLU input (b*4h), the c_proj input (b*4h) and the mask (h)."""

    def __init__(self, build, hidden, width, dropout):
        super().__init__()
        self.c_fc = Linear(build, hidden, width, True, "ffMM")
        self.act = region(build, Gelu(), ("ffAct",))
        self.c_proj = Linear(build, width, hidden, True, "ffMM")
        self.dropout = Dropout(dropout, seeded="dropout" in build.recompute)

    def forward(self, x):
        return self.dropout(self.c_proj(self.act(self.c_fc(x))))


class GroupedMM(torch.autograd.Function):
    """A grouped matmul over rows sorted by expert: rows of group e times w[e].

    Keeps what torch._grouped_mm keeps: its input, the weights and the group sizes.
    Real tensors are multiplied group by group into the output (mm with out=, no
    temporaries); on meta only the output is made, so both allocate alike. The
    backward allocates the input and weight gradients the same way.
    """

    @staticmethod
    def _spans(counts):
        """(expert, first row, end row) of every non-empty group."""
        out, lo = [], 0
        for e, n in enumerate(counts.tolist()):
            if n:
                out.append((e, lo, lo + n))
            lo += n
        return out

    @staticmethod
    def forward(ctx, x, w, counts):
        out = x.new_empty((x.shape[0], w.shape[2]))
        if x.device.type != "meta":
            for e, lo, hi in GroupedMM._spans(counts):
                torch.mm(x[lo:hi], w[e], out=out[lo:hi])
        ctx.save_for_backward(x, w, counts)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, w, counts = ctx.saved_tensors
        gx = x.new_empty(x.shape)
        gw = torch.zeros_like(w)
        grad = grad.contiguous()
        if x.device.type != "meta":
            for e, lo, hi in GroupedMM._spans(counts):
                torch.mm(grad[lo:hi], w[e].t(), out=gx[lo:hi])
                torch.mm(x[lo:hi].t(), grad[lo:hi], out=gw[e])
        return gx, gw, None


class Experts(nn.Module):
    """Routed experts as a grouped matmul (Transformers' grouped_mm experts).

    The S*k (token, expert) pairs are sorted by expert; the tokens are gathered into
    that order, run through gate_up (one grouped matmul), GatedAct and down, scaled by
    their routing weights, put back in pair order and summed over each token's k
    experts. Keeps per pair: three int64 indices (8 each: the token of each sorted pair,
    the sort order, the inverse order), the gathered input (b*h), the gate_up output
    (2 * b*I), silu(gate) (b*I), the product (b*I), the down output (b*h) and the sorted
    weight (b); per expert the group sizes (8, int64). All of it is charged to ffMM but
    the GatedAct part (ffAct).
    """

    census_op = "ffMM"

    def __init__(self, build, hidden, width, experts):
        super().__init__()
        self.experts = experts
        self.gate_up = build.param(experts, hidden, 2 * width)
        self.down = build.param(experts, width, hidden)
        self.width = width
        self.act = region(build, GatedAct(), ("ffAct",))

    def forward(self, x, index, weight):
        """x (S, h), index (S, k) experts chosen, weight (S, k) their weights."""
        tokens, k = index.shape
        flat = index.reshape(-1)
        order = torch.sort(flat, stable=True).indices
        inverse = torch.argsort(order)
        token = torch.div(order, k, rounding_mode="floor")
        counts = torch.zeros(self.experts, dtype=torch.long, device=x.device)
        counts = counts.index_add(0, flat, torch.ones_like(flat))
        gu = GroupedMM.apply(x.index_select(0, token), self.gate_up, counts)
        y = self.act(gu[:, :self.width], gu[:, self.width:])
        out = GroupedMM.apply(y, self.down, counts)
        out = out * weight.reshape(-1).index_select(0, order)[:, None]
        return out[inverse].view(tokens, k, -1).sum(dim=1)


class QwenRouter(nn.Module):
    """Qwen-style router: gate (h to E, op ffMM), softmax in fp32, top-k, the chosen
    weights renormalised to sum 1 and cast to the model dtype. Keeps the fp32
    probabilities (4E), the top-k indices (8k) and values (4k) and their sum (4)."""

    census_op = "ffMM"

    def __init__(self, build, hidden, experts, top_k):
        super().__init__()
        self.weight = build.param(experts, hidden)
        self.top_k = top_k

    def forward(self, x):
        probs = torch.softmax(torch.nn.functional.linear(x, self.weight), dim=-1,
                              dtype=torch.float32)
        weight, index = torch.topk(probs, self.top_k, dim=-1)
        weight = weight / weight.sum(dim=-1, keepdim=True)
        return index, weight.to(x.dtype)


class DeepseekRouter(nn.Module):
    """DeepSeek-V3 router: fp32 logits of the fp32 input, sigmoid scores, top-k on
    scores + correction bias (without the node-group limit: it only picks indices), the
    chosen scores gathered, renormalised and scaled. Keeps the fp32 input (4h), the fp32
    weight copy (4*E*h per layer), the scores (4E), the gather index (8k), the chosen
    scores (4k) and their sum (4)."""

    census_op = "ffMM"

    def __init__(self, build, hidden, experts, top_k, scale=2.5):
        super().__init__()
        self.weight = build.param(experts, hidden)
        self.register_buffer("bias", torch.zeros(experts, device=build.device))
        self.top_k = top_k
        self.scale = scale

    def forward(self, x):
        logits = torch.nn.functional.linear(x.float(), self.weight.float())
        scores = logits.sigmoid()
        with torch.no_grad():
            index = torch.topk(scores + self.bias, self.top_k, dim=-1).indices
        weight = scores.gather(1, index)
        weight = weight / (weight.sum(dim=-1, keepdim=True) + 1e-20) * self.scale
        return index, weight.to(x.dtype)


class MoE(nn.Module):
    """A sparse block: a router, routed experts, and optionally shared experts as one MLP
    of the shared width, added. Qwen2-MoE / Qwen3-MoE / Qwen3-Next / Mixtral route with
    QwenRouter and scale the shared expert by sigmoid(shared_expert_gate(x)) when the
    model has that gate; DeepSeek-V3 routes with DeepseekRouter, its shared experts
    (num_shared_experts x moe_intermediate_size) ungated."""

    def __init__(self, build, dims, router_cls, gated):
        super().__init__()
        h = dims["hidden"]
        self.router = router_cls(build, h, dims["experts"], dims["top_k"])
        self.experts = Experts(build, h, dims["expert_width"], dims["experts"])
        self.shared = MLP(build, h, dims["shared_width"]) if dims.get("shared_width") else None
        self.shared_gate = None
        if self.shared is not None and gated:
            self.shared_gate = Linear(build, h, 1, False, "ffMM")

    def forward(self, x):
        b, s, h = x.shape
        flat = x.reshape(-1, h)
        index, weight = self.router(flat)
        out = self.experts(flat, index, weight)
        if self.shared is not None:
            shared = self.shared(flat)
            if self.shared_gate is not None:
                shared = torch.sigmoid(self.shared_gate(flat)) * shared
            out = out + shared
        return out.view(b, s, h)
