#!/usr/bin/env python3
"""What Megatron-LM's bias-dropout-add keeps for its backward at dropout 0.

Megatron's TransformerLayer adds each sublayer's output to the residual
through bias_dropout_add_fused_train, which its jit_fuser compiled with
torch.jit.script before PyTorch 2.2, under the JIT options its
initialize._set_jit_fusion_options sets. TorchScript's autodiff replaces the
dropout by native_dropout, which makes and keeps a bool mask whatever the
probability; eager F.dropout at probability 0 returns its input and keeps
nothing. This script runs both on the CPU (Debian's python3-torch) and
prints, as JSON, the bytes an element each leaves allocated after its
forward beyond its output: what the backward holds.

    /usr/bin/python3 scripts/measure/torchscript_dropout.py [--elements N]
"""
import argparse
import json
from typing import Optional

import torch
from torch.profiler import ProfilerActivity, profile


def bias_dropout_add(x, bias: Optional[torch.Tensor], residual, prob: float, training: bool):
    if bias is not None:
        x = x + bias
    out = torch.nn.functional.dropout(x, p=prob, training=training)
    return residual + out


@torch.jit.script
def bias_dropout_add_fused_train(x, bias: Optional[torch.Tensor], residual, prob: float):
    return bias_dropout_add(x, bias, residual, prob, True)


def eager_train(x, bias: Optional[torch.Tensor], residual, prob: float):
    return bias_dropout_add(x, bias, residual, prob, True)


def set_megatron_jit_options():
    """Megatron-LM's _set_jit_fusion_options for PyTorch 1.10 and later (nvFuser; the CPU runs unfused)."""
    torch._C._jit_set_profiling_executor(True)
    torch._C._jit_set_profiling_mode(True)
    torch._C._jit_override_can_fuse_on_cpu(False)
    torch._C._jit_override_can_fuse_on_gpu(False)
    torch._C._jit_set_texpr_fuser_enabled(False)
    torch._C._debug_set_autodiff_subgraph_inlining(False)


def kept_bytes(fn, elements):
    """Bytes still allocated after one forward of fn at dropout 0, less its output's."""
    x = torch.randn(elements, dtype=torch.bfloat16, requires_grad=True)
    residual = torch.randn(elements, dtype=torch.bfloat16, requires_grad=True)
    for _ in range(5):  # the profiling executor optimizes after its profiled runs, as Megatron warms up
        fn(x, None, residual, 0.0).sum().backward()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        out = fn(x, None, residual, 0.0)
    net = sum(e.self_cpu_memory_usage for e in prof.events())  # each allocation and free once
    return net - out.numel() * out.element_size()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=1 << 20, help="elements of the hidden state (default 2^20)")
    args = parser.parse_args()
    set_megatron_jit_options()
    scripted = kept_bytes(bias_dropout_add_fused_train, args.elements)
    eager = kept_bytes(eager_train, args.elements)
    print(json.dumps({
        "torch": torch.__version__,
        "elements": args.elements,
        "scripted_kept_bytes_per_element": scripted / args.elements,
        "eager_kept_bytes_per_element": eager / args.elements,
    }))


if __name__ == "__main__":
    main()
