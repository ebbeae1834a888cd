"""The instruments (census_layers.measure) on toy modules whose saved tensors and
backward peak can be listed by hand. Toy modules run in fp32 (4 bytes per element) on
an input x of shape (1, S, W)."""

import unittest

import torch
from torch import nn

import census_helpers  # noqa: F401  (puts scripts/ on the path)
from census_layers.blocks import Build, Recompute
from census_layers.measure import OPS, measure, split_tp

S, W, O = 8, 8, 16
F32 = 4


class Toy(nn.Module):
    """A module computing `fn(self, x, consts)`."""

    def __init__(self, fn, params=()):
        super().__init__()
        self.fn = fn
        for i, p in enumerate(params):
            self.register_parameter(f"p{i}", p)

    def forward(self, x, consts):
        return self.fn(self, x, consts)


def run(fn, params=(), consts=None, device="cpu", width=W):
    """measure() of a toy on a fresh input (1, S, width)."""
    x = torch.randn(1, S, width, device=device).requires_grad_(True)
    return measure(Toy(fn, params), x, consts or {})


class SavedTensors(unittest.TestCase):
    """What counts as saved: each storage once, no parameters, no constants."""

    def test_tensor_saved_twice_counts_once(self):
        """t * t saves t as both operands, t.view(-1).sin() saves a view of it: one
        storage of S*W fp32 elements."""
        def fn(_m, x, _c):
            t = x * 2
            return (t * t).sum(-1) + t.view(-1).sin().sum()
        for device in ("cpu", "meta"):
            self.assertEqual(run(fn, device=device).saved, S * W * F32)

    def test_parameters_are_not_counted(self):
        """F.linear saves its input and the weight; only the input (S*W) counts."""
        w = nn.Parameter(torch.randn(O, W))
        m = run(lambda m, x, _c: torch.nn.functional.linear(x, m.p0), [w])
        self.assertEqual(m.saved, S * W * F32)

    def test_view_keeps_its_whole_base(self):
        """sin of a one-column slice saves the slice, which keeps all S*W of its base."""
        m = run(lambda _m, x, _c: (x * 2)[..., :1].sin())
        self.assertEqual(m.saved, S * W * F32)

    def test_dropped_branch_is_not_counted(self):
        """A branch whose result the forward drops frees what it saved: only t = x * 3,
        saved by the kept sin, counts (S*W)."""
        def fn(_m, x, _c):
            (x * 2).sin()  # dropped at once
            return (x * 3).sin()
        self.assertEqual(run(fn).saved, S * W * F32)

    def test_shared_constants_are_not_counted(self):
        """x * c saves the constant c (it does not require grad): not counted when c is a
        shared constant handed in, counted (S*W) when the forward makes it."""
        c = torch.randn(1, S, W)
        self.assertEqual(run(lambda _m, x, k: x * k["c"], consts={"c": c}).saved, 0)
        self.assertEqual(run(lambda _m, x, _k: x * torch.ones_like(x)).saved, S * W * F32)

    def test_ops_are_charged_to_the_saver(self):
        """A tagged module's saves go to its op, the rest to `other`: sin inside an
        `ffAct` module saves its S*W input; the outer sin saves another S*W."""
        class Act(nn.Module):
            census_op = "ffAct"

            def forward(self, x):
                return x.sin()

        act = Act()

        def fn(_m, x, _c):
            return act(x * 2).sin()
        toy = Toy(fn)
        toy.act = act
        m = measure(toy, torch.randn(1, S, W).requires_grad_(True), {})
        expect = {op: 0 for op in OPS}
        expect["ffAct"] = expect["other"] = S * W * F32
        self.assertEqual(m.ops, expect)
        self.assertEqual(sum(m.ops.values()), m.saved)

    def test_checkpoint_holds_its_inputs(self):
        """A Recompute region keeps only its input (held for the recompute): sin(sin(t))
        inside the region would save t and sin(t) (2*S*W); under the region only t (the
        region's input, S*W) counts, and the outer sin saves the region's output (S*W)."""
        inner = Toy(lambda _m, t, _c=None: t.sin().sin())
        region = Recompute(_Unary(inner))

        def fn(_m, x, _c):
            return region(x * 2).sin()
        toy = Toy(fn)
        toy.region = region
        for device in ("cpu", "meta"):
            m = measure(toy, torch.randn(1, S, W, device=device).requires_grad_(True), {})
            self.assertEqual(m.saved, 2 * S * W * F32)


class _Unary(nn.Module):
    """Adapts a Toy to one tensor argument."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, t):
        return self.inner(t, {})


class WorkingSet(unittest.TestCase):
    """The backward peak, from the live tracker."""

    def test_silu_of_linear(self):
        """y = silu(x W^T), x (S, W), W (O, W) a parameter. Backward: silu_backward makes
        g_h (S*O) while x (S*W, saved by mm) and h (S*O, saved by silu) are alive:
        S*(W + 2*O). Then h is released, mm makes g_x (S*W): S*(2*W + O), and the weight
        gradient (a parameter's, not counted). With O > W the peak is S*(W + 2*O)
        elements; the output y and the incoming gradient are not counted."""
        w = nn.Parameter(torch.randn(O, W))

        def fn(m, x, _c):
            return torch.nn.functional.silu(torch.nn.functional.linear(x, m.p0))
        for device in ("cpu", "meta"):
            m = run(fn, [nn.Parameter(w.detach().to(device))], device=device)
            self.assertEqual(m.working, S * (W + 2 * O) * F32)
            self.assertEqual(m.saved, S * (W + O) * F32)

    def test_unsaved_input_is_not_working_memory(self):
        """y = x * 2 saves nothing: the backward makes g_x (S*W) and holds nothing else."""
        m = run(lambda _m, x, _c: x * 2)
        self.assertEqual(m.saved, 0)
        self.assertEqual(m.working, S * W * F32)


class TensorParallelSplit(unittest.TestCase):
    """split_tp: non-TP = 2*X2 - X1, TP = 2*(X1 - X2), clamped at 0."""

    def test_recovers_the_parts(self):
        """X1 = A + B, X2 = A + B/2 gives back (A, B)."""
        self.assertEqual(split_tp(300 + 500, 300 + 250), (300, 500))

    def test_other_ratio(self):
        """X2 measured at a 3/8 share of the TP width: X2 = A + 3B/8."""
        self.assertEqual(split_tp(100 + 800, 100 + 300, ratio=3 / 8), (100, 800))

    def test_clamps(self):
        """A part that shrinks by more than half gives no negative non-TP part."""
        self.assertEqual(split_tp(100, 40), (0, 120))

    def test_recovers_parts_built_into_a_layer(self):
        """A toy layer keeps a fixed-width tensor (C = 12 columns) and a tensor of width
        2*H (H = heads, halved under TP): the split of the two measures gives back
        S*C*4 and S*2*H*4 bytes."""
        cols = 12

        def layer(heads):
            def fn(_m, x, _c):
                fixed = x[..., :1].expand(1, S, cols) * 2
                wide = x[..., :1].expand(1, S, 2 * heads) * 3
                return fixed.sin().sum(-1) + wide.sin().sum(-1)
            return fn
        x1, x2 = run(layer(4)).saved, run(layer(2)).saved
        self.assertEqual(split_tp(x1, x2), (S * cols * F32, S * 2 * 4 * F32))


class BuildParams(unittest.TestCase):
    """Parameters of the reference layers."""

    def test_meta_parameters_have_no_data(self):
        """On meta a parameter is a shape only."""
        p = Build("meta").param(4, 4)
        self.assertEqual(p.device.type, "meta")
