#!/usr/bin/env python3
"""Measures torchtitan-style Llama 3 training steps on one GPU (issue 12).

ndlua's torchtitan runtime prices FSDP2 with bf16 mixed precision, torch's
RMSNorm, torchtitan's rotary embedding and GQA key/value repeat, the fp32
cross-entropy and fused AdamW. This script runs exactly that stack on one
device, so the peak memory and the step time it reports are measured values
ndlua can be checked against (spec/validation/h200_torchtitan.lua).

The model is torchtitan's llama3 `model.py` (tok_embeddings, TransformerBlock
of Attention + FeedForward with nn.RMSNorm pre-norms, norm, output), re-typed
here module by module; its training loop is torchtitan's train_step: zero_grad
(set_to_none), forward, F.cross_entropy on the fp32 upcast of the logits,
backward, clip_grad_norm_(1.0), AdamW(fused=True) step. Parallelism is
torchtitan's apply_ac (checkpoint_wrapper, its per-op selective policy) then
apply_fsdp (fully_shard each block, reshard after forward but the last, then
the root) with MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32), on a
one-rank mesh: the all-gathers and reduce-scatters run, over one rank. (On one
GPU torchtitan itself would not apply FSDP, which it does when dp_shard > 1;
these runs are the per-rank memory and time of its FSDP2 setup at sharding
degree 1, which ndlua prices as dp = 1, zero = 3.) The model is built on the
meta device and materialised after sharding, as torchtitan does, so no
unsharded copy distorts the allocator's reserve.

The shape is Llama 3.1 8B's (hidden 4096, 32 heads, 8 KV heads, FFN 14336,
vocabulary 128256) with fewer layers, so that fp32 parameters, gradients and
Adam states fit one device unsharded. Runs with 2 and 4 layers separate the
per-layer activations from the fixed part.

Usage (on a GPU machine with PyTorch >= 2.6; torchtitan's run_train.sh sets
the allocator's expandable segments, the setting its reserved peaks need):
    PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True \
        python3 scripts/measure/torchtitan_llama.py --out results.json [--profile]
    python3 scripts/measure/torchtitan_llama.py --help
Prints one line per configuration (peaks in GiB, the median step in
seconds) and writes every number as JSON: per step the allocated and reserved
peaks and the time; for the 4-layer runs the tensors live at the allocated
peak grouped by the line and stream that allocated them, each stream's
segments, the allocator's statistics and (--profile) the step's kernel time
by kind; then one block's saved tensors and the kernel rates at the step's
shapes. The figures in spec/validation/data/ come from this script on one
H200 (2026-12-04).
"""

import argparse
import gc
import json
import math
import os
import sys
import time
import traceback
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F

GiB = 1024 ** 3


class Args:
    dim = 4096
    n_heads = 32
    n_kv_heads = 8
    vocab_size = 128256
    ffn_hidden = 14336
    norm_eps = 1e-5
    rope_theta = 500000.0


def precompute_freqs_cis(dim, end, theta):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)


def reshape_for_broadcast(freqs_cis, x):
    seqlen = x.shape[1]
    freqs_cis = freqs_cis[0:seqlen]
    shape = [d if i == 1 or i == x.ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def repeat_kv(x, n_rep):
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    return (torch.unsqueeze(x, dim=3).expand(bs, slen, n_kv_heads, n_rep, head_dim)
            .reshape(bs, slen, n_kv_heads * n_rep, head_dim))


class Attention(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.n_heads = a.n_heads
        self.n_kv_heads = a.n_kv_heads
        self.n_rep = a.n_heads // a.n_kv_heads
        self.head_dim = a.dim // a.n_heads
        self.wq = nn.Linear(a.dim, a.n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(a.dim, a.n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(a.dim, a.n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(a.n_heads * self.head_dim, a.dim, bias=False)

    def forward(self, x, freqs_cis):
        bs, seqlen, _ = x.shape
        xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
        xq = xq.view(bs, seqlen, -1, self.head_dim)
        xk = xk.view(bs, seqlen, -1, self.head_dim)
        xv = xv.view(bs, seqlen, -1, self.head_dim)
        xq, xk = apply_rotary_emb(xq, xk, freqs_cis=freqs_cis)
        keys = repeat_kv(xk, self.n_rep)
        values = repeat_kv(xv, self.n_rep)
        xq = xq.transpose(1, 2)
        xk = keys.transpose(1, 2)
        xv = values.transpose(1, 2)
        output = F.scaled_dot_product_attention(xq, xk, xv, is_causal=True)
        output = output.transpose(1, 2).contiguous()
        output = output.view(bs, seqlen, -1)
        return self.wo(output)


class FeedForward(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.w1 = nn.Linear(a.dim, a.ffn_hidden, bias=False)
        self.w2 = nn.Linear(a.ffn_hidden, a.dim, bias=False)
        self.w3 = nn.Linear(a.dim, a.ffn_hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.attention = Attention(a)
        self.feed_forward = FeedForward(a)
        self.attention_norm = nn.RMSNorm(a.dim, eps=a.norm_eps)
        self.ffn_norm = nn.RMSNorm(a.dim, eps=a.norm_eps)

    def forward(self, x, freqs_cis):
        h = x + self.attention(self.attention_norm(x), freqs_cis)
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(nn.Module):
    def __init__(self, a, n_layers, seq_len):
        super().__init__()
        self.tok_embeddings = nn.Embedding(a.vocab_size, a.dim)
        # Filled after the parameters are materialised (run_config).
        self.register_buffer("freqs_cis", torch.empty(seq_len * 2, a.dim // a.n_heads // 2, dtype=torch.complex64),
                             persistent=False)
        self.layers = nn.ModuleDict({str(i): TransformerBlock(a) for i in range(n_layers)})
        self.norm = nn.RMSNorm(a.dim, eps=a.norm_eps)
        self.output = nn.Linear(a.dim, a.vocab_size, bias=False)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens)
        for layer in self.layers.values():
            h = layer(h, self.freqs_cis)
        h = self.norm(h)
        return self.output(h)


# torchtitan's per-op selective activation checkpointing policy
# (activation_checkpoint.mode = "selective", selective_ac_option = "op").
def save_list():
    ops = torch.ops.aten
    s = {ops.mm.default, ops._scaled_dot_product_efficient_attention.default,
         ops._scaled_dot_product_flash_attention.default, ops.max.default, ops.abs.default}
    if hasattr(ops, "_scaled_dot_product_cudnn_attention"):
        s.add(ops._scaled_dot_product_cudnn_attention.default)
    try:
        s.add(torch.ops._c10d_functional.reduce_scatter_tensor.default)
    except Exception:
        pass
    return s


def op_sac_context_fn():
    from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts
    saved = save_list()
    meta = defaultdict(int)

    def policy(ctx, func, *args, **kwargs):
        mode = "recompute" if ctx.is_recompute else "forward"
        key = mode + "_mm_count"
        if func == torch.ops.aten.mm.default:
            meta[key] += 1
        to_save = func in saved and not (func == torch.ops.aten.mm.default and meta[key] % 2 == 0)
        return CheckpointPolicy.MUST_SAVE if to_save else CheckpointPolicy.PREFER_RECOMPUTE

    return create_selective_checkpoint_contexts(policy)


def apply_ac(model, mode):
    if mode == "none":
        return
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper
    for layer_id, block in model.layers.named_children():
        if mode == "full":
            wrapped = checkpoint_wrapper(block, preserve_rng_state=False)
        else:
            wrapped = checkpoint_wrapper(block, context_fn=op_sac_context_fn, preserve_rng_state=False)
        model.layers.register_module(layer_id, wrapped)


def apply_fsdp(model, mesh):
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    n = len(model.layers)
    for layer_id, block in model.layers.items():
        fully_shard(block, mesh=mesh, mp_policy=mp, reshard_after_forward=int(layer_id) < n - 1)
    fully_shard(model, mesh=mesh, mp_policy=mp, reshard_after_forward=True)


def sync():
    torch.cuda.synchronize()


def run_config(mesh, n_layers, batch, seq, ac, steps, compile_blocks=False, record=False, accum=1):
    gc.collect()
    torch.cuda.empty_cache()
    baseline = torch.cuda.memory_allocated()
    torch.manual_seed(0)
    a = Args()
    dev = torch.device("cuda")
    # torchtitan builds the model on the meta device, applies AC, compile
    # and FSDP, then materialises the sharded parameters (to_empty) and
    # initialises them: no unsharded copy is ever allocated.
    with torch.device("meta"):
        model = Transformer(a, n_layers, seq)
    n_params = sum(p.numel() for p in model.parameters())
    apply_ac(model, ac)
    if compile_blocks:
        for layer_id, block in model.layers.named_children():
            model.layers.register_module(layer_id, torch.compile(block, fullgraph=True))
    apply_fsdp(model, mesh)
    model.to_empty(device=dev)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.fill_(1.0)
            else:
                p.normal_(0.0, 0.02)
        model.freqs_cis = precompute_freqs_cis(a.dim // a.n_heads, seq * 2, a.rope_theta).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1,
                            fused=True)
    tokens = torch.randint(0, a.vocab_size, (batch, seq), device=dev)
    labels = torch.randint(0, a.vocab_size, (batch, seq), device=dev)
    rows = []
    for step in range(1, steps + 1):
        torch.cuda.reset_peak_memory_stats()
        sync()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        before_fwd = torch.cuda.memory_allocated()
        # torchtitan's gradient accumulation: each micro-batch's loss scaled
        # by the steps and run backward before the next forward
        for _ in range(accum):
            pred = model(tokens)
            loss = F.cross_entropy(pred.flatten(0, 1).float(), labels.flatten(0, 1)) / accum
            after_loss = torch.cuda.memory_allocated()
            del pred
            loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=True)
        opt.step()
        sync()
        t1 = time.perf_counter()
        rows.append({"step": step, "time_s": t1 - t0, "before_fwd": before_fwd, "after_loss": after_loss,
                     "peak_allocated": torch.cuda.max_memory_allocated(),
                     "peak_reserved": torch.cuda.max_memory_reserved(), "loss": float(loss.item())})
    trace = peak_trace(lambda: one_step(model, opt, tokens, labels, accum)) if record else None
    kernels = kernel_profile(lambda: one_step(model, opt, tokens, labels, accum)) if PROFILE and record else None
    steady = rows[1:]
    times = sorted(r["time_s"] for r in rows[2:]) or [rows[-1]["time_s"]]
    out = {"layers": n_layers, "batch": batch, "seq": seq, "ac": ac, "compile": compile_blocks, "params": n_params,
           "accum": accum,
           "peak_allocated": max(r["peak_allocated"] for r in steady),
           "peak_reserved": max(r["peak_reserved"] for r in steady),
           "before_fwd": steady[-1]["before_fwd"], "after_loss": steady[-1]["after_loss"],
           "step_time_median_s": times[len(times) // 2], "steps": rows, "baseline": baseline, "trace": trace,
           "kernels": kernels}
    del opt, model, tokens, labels, loss
    gc.collect()
    torch.cuda.empty_cache()
    return out


def one_step(model, opt, tokens, labels, accum=1):
    opt.zero_grad(set_to_none=True)
    for _ in range(accum):
        pred = model(tokens)
        loss = F.cross_entropy(pred.flatten(0, 1).float(), labels.flatten(0, 1)) / accum
        del pred
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=True)
    opt.step()
    sync()


PROFILE = False


def kernel_kind(name):
    n = name.lower()
    if "nccl" in n:
        return "nccl"
    if "gemm" in n or "cutlass" in n or "xmma" in n or "nvjet" in n or "sm90_" in n or "cublas" in n:
        return "gemm"
    if "flash" in n or "fmha" in n or "cudnn" in n or "attention" in n or "sdpa" in n:
        return "attention"
    if "adam" in n:
        return "optimizer"
    if "multi_tensor" in n or "foreach" in n:
        return "foreach"
    if "softmax" in n or "nll" in n or "cross_entropy" in n:
        return "loss"
    if "copy" in n or "cat" in n or "split" in n:
        return "copy"
    if "reduce" in n or "norm" in n:
        return "reduce/norm"
    return "elementwise"


def kernel_profile(step):
    """One step under the profiler: the GPU time of its kernels by kind
    and the largest kernels by name."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
    by_kind, by_name = defaultdict(float), defaultdict(float)
    counts = defaultdict(int)
    for e in prof.events():
        if str(getattr(e, "device_type", "")) != "DeviceType.CUDA":
            continue
        dt = e.time_range.elapsed_us()
        by_kind[kernel_kind(e.name)] += dt / 1e6
        by_name[e.name[:120]] += dt / 1e6
        counts[kernel_kind(e.name)] += 1
    top = sorted(by_name.items(), key=lambda kv: -kv[1])[:40]
    return {"by_kind_s": dict(by_kind), "counts": dict(counts), "top": top}


def where(frames):
    mine = next((f for f in frames if f["filename"].endswith("torchtitan_llama.py")), None)
    inner = frames[0] if frames else None
    a = "L%d %s" % (mine["line"], mine["name"]) if mine else "-"
    b = "%s:%d %s" % (os.path.basename(inner["filename"]), inner["line"], inner["name"]) if inner else "-"
    return a + " | " + b


def peak_trace(step):
    """One step under the allocator's history: what was live at the step's
    allocated peak, grouped by where it was allocated (this script's line,
    innermost Python frame), beside what was live before the step."""
    torch.cuda.memory._record_memory_history(enabled="all", context="alloc", stacks="python", max_entries=400000)
    start = torch.cuda.memory_allocated()
    step()
    snap = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    events = snap["device_traces"][0]
    live, total, peak, peak_live, n = {}, 0, 0, {}, 0
    by_stream, stream_peak, stream_at_peak = defaultdict(int), defaultdict(int), {}
    for e in events:
        act = e["action"]
        st = str(e.get("stream", 0))
        if act == "alloc":
            live[e["addr"]] = (e["size"], where(e.get("frames", [])), st)
            total += e["size"]
            by_stream[st] += e["size"]
            stream_peak[st] = max(stream_peak[st], by_stream[st])
            n += 1
            if total > peak:
                peak, peak_live, stream_at_peak = total, dict(live), dict(by_stream)
        elif act == "free_completed" and e["addr"] in live:
            size, _, st0 = live.pop(e["addr"])
            total -= size
            by_stream[st0] -= size
    groups = defaultdict(int)
    for size, w, st in peak_live.values():
        groups[w + " | stream " + st] += size
    segs = defaultdict(lambda: [0, 0])
    for seg in snap["segments"]:
        segs[str(seg.get("stream", 0))][0] += seg["total_size"]
        segs[str(seg.get("stream", 0))][1] += seg["allocated_size"]
    stats = torch.cuda.memory_stats()
    keep = ("allocated_bytes.all.peak", "reserved_bytes.all.peak", "inactive_split_bytes.all.peak",
            "reserved_bytes.all.current", "allocated_bytes.all.current", "num_alloc_retries",
            "reserved_bytes.large_pool.peak", "reserved_bytes.small_pool.peak")
    top = sorted(groups.items(), key=lambda kv: -kv[1])[:40]
    return {"start_allocated": start, "peak_above_start": peak, "events": len(events), "allocs": n,
            "peak_live": [[w, b] for w, b in top], "stream_peak_above_start": dict(stream_peak),
            "stream_at_peak": stream_at_peak, "segments_by_stream": dict(segs),
            "stats": {k: stats.get(k) for k in keep}}


def saved_tensor_census(seq, batch):
    """The tensors autograd saves for one block's forward, bf16 weights,
    no checkpointing: (grad_fn, shape, dtype, bytes), storages counted once."""
    a = Args()
    dev = torch.device("cuda")
    with dev:
        block = TransformerBlock(a).to(torch.bfloat16)
        freqs = precompute_freqs_cis(a.dim // a.n_heads, seq, a.rope_theta)
    x = torch.randn(batch, seq, a.dim, device=dev, dtype=torch.bfloat16, requires_grad=True)
    params = {p.untyped_storage().data_ptr() for p in block.parameters()}
    seen, items = set(), []

    def pack(t):
        ptr = t.untyped_storage().data_ptr()
        new = ptr not in seen and ptr not in params and ptr != x.untyped_storage().data_ptr()
        seen.add(ptr)
        items.append({"shape": list(t.shape), "dtype": str(t.dtype), "storage_bytes": t.untyped_storage().nbytes(),
                      "counted": new, "is_param": ptr in params, "is_input": ptr == x.untyped_storage().data_ptr()})
        return t

    base = torch.cuda.memory_allocated()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = block(x, freqs)
    held = torch.cuda.memory_allocated() - base
    counted = sum(i["storage_bytes"] for i in items if i["counted"])
    ops = op_census(block, x, freqs)
    del y
    return {"items": items, "counted_bytes": counted, "allocated_delta_with_output": held,
            "output_bytes": batch * seq * a.dim * 2, "ops": ops}


def op_census(block, x, freqs):
    from torch.utils._python_dispatch import TorchDispatchMode

    class Census(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            r = func(*args, **(kwargs or {}))
            outs = r if isinstance(r, (tuple, list)) else [r]
            desc = [[list(o.shape), str(o.dtype)] for o in outs if isinstance(o, torch.Tensor)]
            self.ops.append([str(func), desc])
            return r

    c = Census()
    with c:
        y = block(x, freqs)
    del y
    return c.ops


def bench(fn, reps=20):
    for _ in range(3):
        fn()
    sync()
    ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        sync()
        ts.append(s.elapsed_time(e) / 1e3)
    ts.sort()
    return ts[len(ts) // 2]


def kernel_rates(seq, batch):
    """Sustained rates of the step's kernels at its shapes: each GEMM of a
    block and the head (forward shape), flash attention forward and backward,
    and a device-to-device copy."""
    a = Args()
    dev = torch.device("cuda")
    t = seq * batch
    res = {}
    shapes = {"wq": (a.dim, a.dim), "wkv": (a.dim, 2 * 1024), "wo": (a.dim, a.dim), "w13": (a.dim, a.ffn_hidden),
              "w2": (a.ffn_hidden, a.dim), "head": (a.dim, a.vocab_size), "square8192": (8192, 8192)}
    for name, (k, n) in shapes.items():
        m = 8192 if name == "square8192" else t
        x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        w = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
        s = bench(lambda: x @ w)
        res["gemm_" + name] = {"m": m, "k": k, "n": n, "s": s, "tflops": 2 * m * k * n / s / 1e12}
        del x, w
    q = torch.randn(batch, a.n_heads, seq, a.dim // a.n_heads, device=dev, dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn_like(q, requires_grad=True)
    v = torch.randn_like(q, requires_grad=True)
    fwd = bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
    o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    g = torch.randn_like(o)
    both = bench(lambda: torch.autograd.grad(F.scaled_dot_product_attention(q, k, v, is_causal=True), (q, k, v), g))
    causal_flops = 4 * batch * seq * seq * a.dim / 2
    res["flash_fwd"] = {"s": fwd, "tflops": causal_flops / fwd / 1e12}
    res["flash_fwd_bwd"] = {"s": both, "tflops": 3.5 * causal_flops / both / 1e12}
    big = torch.empty(1 << 30, device=dev, dtype=torch.uint8)
    dst = torch.empty_like(big)
    cp = bench(lambda: dst.copy_(big))
    res["copy_GBps_read_plus_write"] = 2 * big.numel() / cp / 1e9
    del big, dst, q, k, v, o, g
    torch.cuda.empty_cache()
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="results.json")
    ap.add_argument("--seq", type=int, default=8192)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--budget-s", type=float, default=330.0, help="skip what would start after this many seconds")
    ap.add_argument("--only", default="", help="comma-separated configs to run (e.g. L4b1none,L2b1none)")
    ap.add_argument("--profile", action="store_true", help="profile the kernels of a recorded step")
    ap.add_argument("--skip-extras", action="store_true", help="skip the saved-tensor census and kernel rates")
    opts = ap.parse_args()
    global PROFILE
    PROFILE = opts.profile
    start = time.perf_counter()
    results = {"torch": torch.__version__, "device": torch.cuda.get_device_name(),
               "total_memory": torch.cuda.get_device_properties(0).total_memory, "runs": [], "errors": []}

    def save():
        with open(opts.out, "w") as f:
            json.dump(results, f, indent=1)

    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29531")
    os.environ.setdefault("RANK", "0")
    os.environ.setdefault("WORLD_SIZE", "1")
    torch.cuda.set_device(0)
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    try:
        dist.init_process_group("nccl")
        results["backend"] = "nccl"
    except Exception as e:
        # A one-rank group that skips the collectives: the memory and the
        # kernels are the same, the all-gather's copy is not made.
        from torch.testing._internal.distributed.fake_pg import FakeStore
        dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=1)
        results["backend"] = "fake (nccl failed: %r)" % (e,)
    mesh = init_device_mesh("cuda", (1,))

    def guarded(name, fn):
        if time.perf_counter() - start > opts.budget_s:
            results["errors"].append({"what": name, "error": "skipped: over the time budget"})
            return None
        try:
            return fn()
        except Exception as e:
            results["errors"].append({"what": name, "error": repr(e), "trace": traceback.format_exc()})
            print("ERROR", name, repr(e), flush=True)
            torch.cuda.empty_cache()
            return None
        finally:
            save()

    # layers, micro-batch, checkpointing, compiled, sequence (0: --seq), micro-batches a step
    configs = [(4, 1, "none", False, 0, 1), (2, 1, "none", False, 0, 1), (4, 1, "full", False, 0, 1),
               (2, 1, "full", False, 0, 1), (4, 1, "op", False, 0, 1), (2, 1, "op", False, 0, 1),
               (4, 2, "none", False, 0, 1), (4, 1, "op", True, 0, 1), (2, 1, "op", True, 0, 1),
               (4, 1, "none", True, 0, 1),
               # the other end of the backward, and gradients kept across micro-batches
               (4, 1, "full", False, 2048, 1), (4, 1, "none", False, 2048, 1), (4, 1, "none", False, 0, 2),
               (4, 1, "op", False, 4096, 2)]
    for layers, batch, ac, comp, seq, accum in configs:
        seq = seq or opts.seq
        tag = "L%db%d%s%s" % (layers, batch, ac, "c" if comp else "")
        if seq != opts.seq or accum != 1:
            tag += "s%dm%d" % (seq, accum)
        if opts.only and tag not in opts.only.split(","):
            continue
        r = guarded("run " + tag,
                    lambda: run_config(mesh, layers, batch, seq, ac, opts.steps, comp,
                                       record=(layers == 4 and batch == 1), accum=accum))
        if r:
            results["runs"].append(r)
            print("%s: L=%d b=%d s=%d m=%d ac=%-4s%s peak alloc %.3f GiB reserved %.3f GiB  fwd+loss %.3f GiB  "
                  "step %.4f s  (baseline %d B)"
                  % (tag, layers, batch, seq, accum, ac, " compiled" if comp else "", r["peak_allocated"] / GiB,
                     r["peak_reserved"] / GiB, (r["after_loss"] - r["before_fwd"]) / GiB,
                     r["step_time_median_s"], r["baseline"]), flush=True)
            if r["kernels"]:
                k = r["kernels"]
                print("  kernels: " + ", ".join("%s %.4f s" % kv for kv in sorted(k["by_kind_s"].items())), flush=True)
                for name, sec in k["top"][:15]:
                    print("    %.4f s  %s" % (sec, name), flush=True)
            if r["trace"]:
                t = r["trace"]
                print("  trace: start %.3f GiB + peak %.3f GiB" % (t["start_allocated"] / GiB,
                                                                   t["peak_above_start"] / GiB), flush=True)
                for w, b in t["peak_live"][:12]:
                    print("    %8.1f MiB  %s" % (b / 2 ** 20, w), flush=True)
                print("  stream peaks above start (GiB): " + ", ".join(
                    "%s %.3f" % (k, v / GiB) for k, v in t["stream_peak_above_start"].items()), flush=True)
                print("  streams at the peak (GiB): " + ", ".join(
                    "%s %.3f" % (k, v / GiB) for k, v in t["stream_at_peak"].items()), flush=True)
                print("  segments by stream (reserved, allocated GiB): " + ", ".join(
                    "%s %.3f %.3f" % (k, v[0] / GiB, v[1] / GiB) for k, v in t["segments_by_stream"].items()),
                    flush=True)
                print("  stats: " + json.dumps(t["stats"]), flush=True)
    if opts.skip_extras:
        results["elapsed_s"] = time.perf_counter() - start
        results["alloc_conf"] = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
        save()
        dist.destroy_process_group()
        print("done in %.1f s; errors: %d" % (results["elapsed_s"], len(results["errors"])), flush=True)
        return 0
    census = guarded("saved tensors", lambda: saved_tensor_census(opts.seq, 1))
    if census:
        results["census"] = census
        print("one block saves %.3f GiB (%d tensors)" % (census["counted_bytes"] / GiB, len(census["items"])),
              flush=True)
    rates = guarded("kernel rates", lambda: kernel_rates(opts.seq, 1))
    if rates:
        results["rates"] = rates
        for k, v in rates.items():
            print(k, json.dumps(v), flush=True)
    results["elapsed_s"] = time.perf_counter() - start
    results["alloc_conf"] = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
    save()
    dist.destroy_process_group()
    print("done in %.1f s; errors: %d" % (results["elapsed_s"], len(results["errors"])), flush=True)


if __name__ == "__main__":
    sys.exit(main())
