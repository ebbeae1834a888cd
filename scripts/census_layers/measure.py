"""What autograd keeps for backward, and what the backward holds at its peak.

Two instruments, both working on real tensors and on the meta device alike:

* `SavedCensus` — a saved-tensor hook (torch.autograd.graph.saved_tensors_hooks)
  that sees every tensor autograd saves during a forward, custom Functions
  included. Storages are deduplicated by the address of their StorageImpl
  (`storage()._cdata`), not by data pointer: meta tensors all have data pointer 0,
  but each still has its own StorageImpl, and views share their base's. The hook
  hands autograd a holder of each saved tensor and follows the holder's life, so a
  storage leaves the census when the graph lets go of it (a dropped branch) and its
  address can be reused safely; the census is taken when the forward ends. Each
  storage is charged once, in full (a view keeps its whole base alive), to the op
  whose module was innermost when it was first saved ("the saver"). Parameters,
  buffers and shared constants (rotary tables, masks) are excluded, and so are 0-dim
  tensors (the Python numbers autograd wraps, loss scalars): they are not
  activations.

* `LiveTracker` — a TorchDispatchMode that sees every op, forward and backward,
  notes each new storage an op returns, and follows its life with weak references
  to the tensors that share it (PyTorch keeps a tensor's Python object alive as
  long as its C++ tensor lives, so the last reference going away is the storage's
  free). Replaying the allocations and frees gives the live bytes after every op
  of the backward; the working set is the peak of that, excluding parameter
  gradients and the forward output. Storages made outside the tracker
  (parameters, constants, the incoming gradient) are never counted.
"""

import gc
import weakref
from contextlib import contextmanager

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

# The op vector of ndlua's op profiles, plus `other` for what no op module saved.
OPS = ("attMM", "attBMM", "ffMM", "softmax", "dropout", "normOp", "gather",
       "headCast", "ffAct", "linrec", "other")


def storage_of(t):
    """The untyped storage of a tensor (torch 1.13 and 2.x spellings)."""
    if hasattr(t, "untyped_storage"):
        return t.untyped_storage()
    return t.storage()._storage


def storage_key(t):
    """(identity, bytes) of a tensor's storage; the identity is the StorageImpl address."""
    st = storage_of(t)
    return st._cdata, st.nbytes()


def storage_keys(tensors):
    """The storage identities of some tensors (None entries skipped)."""
    return {storage_key(t)[0] for t in tensors if isinstance(t, torch.Tensor)}


def module_keys(module):
    """Storage identities of a module's parameters and buffers."""
    return storage_keys(list(module.parameters()) + list(module.buffers()))


class OpScope:
    """Which op module is innermost right now, from forward pre/post hooks.

    A module takes part when it has a `census_op` attribute naming an op of OPS.
    """

    def __init__(self, root):
        self.stack = []
        self.handles = []
        for m in root.modules():
            op = getattr(m, "census_op", None)
            if op is not None:
                self.handles.append(m.register_forward_pre_hook(self._enter(op)))
                self.handles.append(m.register_forward_hook(self._leave))

    def _enter(self, op):
        """A pre-hook pushing `op`."""
        def hook(_module, _inputs):
            self.stack.append(op)
        return hook

    def _leave(self, _module, _inputs, _output):
        """A post-hook popping the innermost op."""
        self.stack.pop()

    def current(self):
        """The innermost op, or `other` outside every op module."""
        return self.stack[-1] if self.stack else "other"

    def close(self):
        """Removes the hooks."""
        for h in self.handles:
            h.remove()
        self.handles = []


class _Saved:
    """What the pack hook hands autograd: a holder of the saved tensor, referenced by the
    graph alone, so its death is the moment autograd lets the tensor go."""

    __slots__ = ("tensor", "__weakref__")

    def __init__(self, tensor):
        self.tensor = tensor


class SavedCensus:
    """Bytes autograd saves during a forward, by storage, charged to the saver's op.

    Only what is still saved when the forward ends counts: a branch of the graph that
    the forward drops (a delta rule's final state nobody asked for) frees its saved
    tensors, and their storages' addresses may then be reused by new ones."""

    def __init__(self, excluded, scope):
        self.excluded = set(excluded)
        self.scope = scope
        self.live = {}      # storage identity -> [bytes, op, holders alive, serial]
        self.serial = 0
        self.frozen = None

    def pack(self, t):
        """Saved-tensor pack hook: note the storage, hand back a holder of the tensor."""
        if not isinstance(t, torch.Tensor) or t.dim() == 0:
            return t
        key, n = storage_key(t)
        if key in self.excluded:
            return t
        entry = self.live.get(key)
        if entry is None:
            self.serial += 1
            entry = self.live[key] = [n, self.scope.current() if self.scope else "other", 0,
                                      self.serial]
        entry[2] += 1
        holder = _Saved(t)
        weakref.finalize(holder, self._release, key, entry[3])
        return holder

    def _release(self, key, serial):
        """A saved tensor was let go; the storage leaves the census with its last one."""
        entry = self.live.get(key)
        if entry is not None and entry[3] == serial:
            entry[2] -= 1
            if entry[2] == 0:
                del self.live[key]

    @staticmethod
    def unpack(held):
        """Saved-tensor unpack hook: the tensor."""
        return held.tensor if isinstance(held, _Saved) else held

    def hooks(self):
        """The context under which a forward is counted."""
        return torch.autograd.graph.saved_tensors_hooks(self.pack, self.unpack)

    def freeze(self):
        """Takes the census now (the end of the forward)."""
        self.frozen = [(e[0], e[1]) for e in self.live.values()]

    def _entries(self):
        """(bytes, op) of every saved storage, as frozen (else as now)."""
        if self.frozen is not None:
            return self.frozen
        return [(e[0], e[1]) for e in self.live.values()]

    def total(self):
        """All saved bytes, each storage once."""
        return sum(n for n, _ in self._entries())

    def by_op(self):
        """Saved bytes per op of OPS (every op present, 0 when nothing)."""
        out = {op: 0 for op in OPS}
        for n, op in self._entries():
            out[op] += n
        return out


def _detach_wrapped_number(arg):
    """detach() of a number autograd wrapped (x * 2 saves the 2): torch 1.13 hands such
    tensors to Python modes as numbers, or returns their detach as a number, and the
    engine then fails on it. Returns the tensor to use, or None for an ordinary tensor."""
    if not isinstance(arg, torch.Tensor):
        return torch.tensor(arg)
    if arg.dim() == 0:
        out = torch.ops.aten.detach.default(arg)
        return out if isinstance(out, torch.Tensor) else arg
    return None


class LiveTracker(TorchDispatchMode):
    """Follows the storages ops allocate, to find the live bytes at the backward peak."""

    def __init__(self):
        super().__init__()
        self.entries = {}     # storage identity -> [serial, aliases alive]
        self.events = []      # ("alloc", serial, bytes) | ("free", serial) | ("sample",)
        self.serial = 0
        self.paused = False
        self.sampling = False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.ops.aten.detach.default:
            wrapped = _detach_wrapped_number(args[0])
            if wrapped is not None:
                return wrapped
        out = func(*args, **kwargs)
        if not self.paused:
            inputs = storage_keys(tree_flatten((args, kwargs))[0])
            for t in tree_flatten(out)[0]:
                if isinstance(t, torch.Tensor):
                    self._note(t, inputs)
            if self.sampling:
                self.events.append(("sample",))
        return out

    def _note(self, t, inputs):
        """Registers an op's output: a new storage, or one more alias of a known one."""
        key, nbytes = storage_key(t)
        entry = self.entries.get(key)
        if entry is None:
            if key in inputs or t.dim() == 0:
                return  # an alias of a storage made outside the tracker, or a scalar
            self.serial += 1
            entry = self.entries[key] = [self.serial, 0]
            self.events.append(("alloc", self.serial, nbytes))
        entry[1] += 1
        weakref.finalize(t, self._release, key, entry[0])

    def _release(self, key, serial):
        """One alias of a storage died; the last one frees the storage."""
        entry = self.entries.get(key)
        if entry is None or entry[0] != serial:
            return
        entry[1] -= 1
        if entry[1] == 0:
            del self.entries[key]
            self.events.append(("free", serial))

    def serial_of(self, t):
        """The serial of a live tracked tensor's storage, or None."""
        entry = self.entries.get(storage_key(t)[0])
        return entry[0] if entry else None

    @contextmanager
    def pause(self):
        """Ops run without being tracked (making the incoming gradient)."""
        self.paused = True
        try:
            yield
        finally:
            self.paused = False

    @contextmanager
    def sample(self):
        """Records the live bytes after every op inside (the backward)."""
        self.events.append(("sample",))
        self.sampling = True
        try:
            yield
        finally:
            self.sampling = False
            self.events.append(("sample",))

    def peak(self, excluded_serials):
        """Highest live bytes over the samples, excluding some storages."""
        live, best, sizes = 0, 0, {}
        for ev in self.events:
            if ev[0] == "alloc":
                if ev[1] not in excluded_serials:
                    sizes[ev[1]] = ev[2]
                    live += ev[2]
            elif ev[0] == "free":
                live -= sizes.pop(ev[1], 0)
            else:
                best = max(best, live)
        return best


class Measurement:
    """What one forward + backward of a module kept and held (bytes, not per token)."""

    def __init__(self, saved, ops, working):
        self.saved = saved
        self.ops = ops
        self.working = working

    def __repr__(self):
        return f"Measurement(saved={self.saved}, working={self.working}, ops={self.ops})"


def _param_grad_serials(module, tracker):
    """Serials of the storages that became parameter gradients."""
    out = set()
    for p in module.parameters():
        if p.grad is not None:
            s = tracker.serial_of(p.grad)
            if s is not None:
                out.add(s)
    return out


def measure(module, x0, constants, backward=True):
    """Runs `module(x, constants)` forward and backward and measures it.

    `x0` is the layer input (a leaf requiring grad, made by the caller). The
    forward runs on a clone made inside the tracker, so the input counts as
    working memory only when the layer saves it (in a stack, the previous
    layer's output lives on only if this layer keeps it). The gradient of the
    input is counted (this layer makes it); the incoming gradient of the output
    is not (the next layer made it). `constants` is a dict of tensors shared by
    all layers (rotary tables, masks, labels); they are never counted.
    """
    excluded = module_keys(module) | storage_keys(constants.values())
    scope = OpScope(module)
    census = SavedCensus(excluded, scope)
    tracker = LiveTracker()
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        with tracker:
            x = x0.clone()
            with census.hooks():
                y = module(x, constants)
            del x
            census.freeze()
            out_serial = tracker.serial_of(y)
            working = None
            if backward:
                with tracker.pause():
                    grad = torch.ones_like(y) if y.dim() > 0 else None
                with tracker.sample():
                    y.backward(grad)
                excluded_serials = _param_grad_serials(module, tracker)
                if out_serial is not None:
                    excluded_serials.add(out_serial)
                working = tracker.peak(excluded_serials)
            del y
    finally:
        scope.close()
        if gc_was_enabled:
            gc.enable()
    return Measurement(census.total(), census.by_op(), working)


def split_tp(whole, halved, ratio=0.5):
    """Splits a measure into the part TP does not divide and the part it does.

    `whole` is measured on the layer, `halved` on the layer with its TP-divided
    widths scaled by `ratio` (1/2). With whole = A + B and halved = A + ratio*B:
    B = (whole - halved) / (1 - ratio), A = whole - B; at ratio 1/2 that is
    B = 2*(X1 - X2), A = 2*X2 - X1. Both parts are clamped at 0. Returns (A, B).
    """
    tp = (whole - halved) / (1.0 - ratio)
    return max(0.0, whole - tp), max(0.0, tp)
