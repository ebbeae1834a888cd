#!/usr/bin/env python3
"""The rate of PyTorch's fused causal attention on a GPU, as ndlua counts its FLOPs.

ndlua prices an attention kernel's forward at 2 FLOPs a query, key and head
width for each of QK^T and PV, halved by the causal mask, and its backward at
twice that (src/core/model_flops.c, src/core/timing.c). This script times
F.scaled_dot_product_attention(is_causal=True) forward, and forward with
backward, in bf16 over sequence lengths and head counts, and reports the
rate in that count: 3 x the forward's FLOPs over the forward-and-backward
time. That is what a hardware profile's attention_tflops states
(lua/nd/hardware/).

Usage (a CUDA device, PyTorch >= 2.6):
    python3 scripts/measure/attention_rate.py [--out rates.json]
"""
import argparse
import json

import torch
import torch.nn.functional as F

# the median of timed runs after three warm-ups (beside this script)
from torchtitan_llama import bench


def one(batch, heads, seq, dim=128):
    q = torch.randn(batch, heads, seq, dim, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn_like(q, requires_grad=True)
    v = torch.randn_like(q, requires_grad=True)
    g = torch.randn_like(q)
    fwd = bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True), reps=10)
    both = bench(lambda: torch.autograd.grad(F.scaled_dot_product_attention(q, k, v, is_causal=True), (q, k, v), g),
                 reps=10)
    # ndlua's count: 2 products x 2 FLOPs x seq x dim a query and head, halved by the mask
    forward_flops = batch * heads * seq * 2 * 2 * seq * dim * 0.5
    return {"batch": batch, "heads": heads, "seq": seq, "dim": dim, "forward_s": fwd, "forward_backward_s": both,
            "forward_tflops": forward_flops / fwd / 1e12,
            "ndlua_rate_tflops": 3 * forward_flops / both / 1e12}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="attention_rates.json")
    opts = ap.parse_args()
    rows = []
    # a token budget of 32768 a launch: (batch, heads, seq)
    for batch, heads, seq in [(8, 32, 4096), (4, 32, 8192), (2, 32, 16384), (1, 32, 32768), (4, 16, 8192),
                              (4, 64, 8192), (16, 32, 2048), (1, 16, 65536)]:
        r = one(batch, heads, seq)
        rows.append(r)
        print("b %2d heads %3d seq %6d: forward %.1f TFLOP/s, ndlua's count forward+backward %.1f TFLOP/s"
              % (batch, heads, seq, r["forward_tflops"], r["ndlua_rate_tflops"]), flush=True)
    with open(opts.out, "w") as f:
        json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
