"""Torch custom operators over the entries of a TEQ artifact: EntryOp (one
entry), Registered (an artifact's ops), register()."""

import hashlib
import os
import re

from teq import runtime as _runtime
from teq.runtime import QuantizedTensor
from teq.torch._common import _dtype_ok, _ident, _lock, _require_torch, torch, torch_dtype

_registered = {}  # namespace -> Registered
_artifacts = {}  # (realpath, device) -> teq.runtime.Artifact


def _load(path, device):
    key = (os.path.realpath(os.fspath(path)), _runtime._ordinal(device))
    with _lock:
        art = _artifacts.get(key)
        if art is None:
            art = _runtime.load(path, device=key[1])
            _artifacts[key] = art
        return art


class EntryOp:
    """One entry as a torch operator. Call it with the entry's inputs
    (tensors; QuantizedTensor for quantized arguments); it returns the
    outputs like teq.runtime's call (tensors and QuantizedTensor)."""

    # Shared, not copied (nn.Module deepcopy).
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __init__(self, entry, namespace, lib):
        self.entry = entry
        self.name = _ident(entry.name)
        self.qualname = f"{namespace}::{self.name}"
        self.inputs = entry.inputs
        self.outputs = entry.outputs
        params = []
        alias = 0
        self.param_labels = []
        for arg in self.inputs:
            for b in arg.buffers:
                pname = _ident(arg.name if not arg.is_proto else f"{arg.name}__{b.name}")
                if arg.kind == "inout":
                    params.append(f"Tensor(a{alias}!) {pname}")
                    alias += 1
                else:
                    params.append(f"Tensor {pname}")
                self.param_labels.append((arg, b))
        self.num_results = sum(len(a.buffers) for a in self.outputs)
        if self.num_results == 0:
            ret = "()"
        elif self.num_results == 1:
            ret = "Tensor"
        else:
            ret = "(" + ", ".join(["Tensor"] * self.num_results) + ")"
        self.schema = f"{self.name}({', '.join(params)}) -> {ret}"
        lib.define(self.schema)
        lib.impl(self.name, self._impl, "CUDA")
        register_fake = getattr(torch.library, "register_fake", None)
        if register_fake is not None:
            register_fake(self.qualname, self._fake, lib=lib)
        else:  # torch < 2.4
            torch.library.impl_abstract(self.qualname, self._fake, lib=lib)
        self.op = getattr(getattr(torch.ops, namespace), self.name).default
        # A call's plan, once: each result buffer's shape, strides and dtype,
        # and where each of the entry's buffers comes from (the op's inputs
        # or its results, by position).
        self._result_layouts = []
        for b in self._result_buffers():
            strides, n = [], 1
            for d in reversed(b.shape):
                strides.append(n)
                n *= d
            self._result_layouts.append((tuple(b.shape), tuple(reversed(strides)),
                                         torch_dtype(b.encoding)))
        self._flat_sources = []
        n_in = n_out = 0
        for arg in entry.args:
            for _ in arg.buffers:
                if arg.kind == "output":
                    self._flat_sources.append((True, n_out))
                    n_out += 1
                else:
                    self._flat_sources.append((False, n_in))
                    n_in += 1

    # -- kernels ----------------------------------------------------------------

    def _result_buffers(self):
        return [b for a in self.outputs for b in a.buffers]

    def _check(self, tensors):
        """Shape and dtype of every input buffer, also under FakeTensor, so a
        wrong call fails at trace time with the argument's name."""
        entry = self.entry.name
        if len(tensors) != len(self.param_labels):
            raise ValueError(f"entry '{entry}': expected {len(self.param_labels)} tensors, "
                             f"got {len(tensors)}")
        for t, (arg, b) in zip(tensors, self.param_labels):
            where = (f"entry '{entry}': argument '{arg.name}'"
                     + (f" buffer '{b.name}'" if arg.is_proto else ""))
            if tuple(t.shape) != b.shape:
                raise ValueError(f"{where}: expected shape {list(b.shape)}, got {list(t.shape)}")
            if not _dtype_ok(b.encoding, t.dtype):
                raise ValueError(f"{where}: expected dtype {torch_dtype(b.encoding)} "
                                 f"({b.encoding}), got {t.dtype}")

    def _impl(self, *tensors):
        # Only the count here: the runtime checks every tensor's device,
        # dtype, shape, strides and alignment where it takes it, naming the
        # buffer as _check does (whose work, a microsecond a tensor, runs
        # only to word a refused input's message in PyTorch's terms).
        if len(tensors) != len(self.param_labels):
            self._check(tensors)
        device = (tensors[0].device if tensors
                  else torch.device("cuda", self.entry.artifact.device))
        empty_strided = torch.empty_strided
        results = [empty_strided(shape, strides, dtype=dtype, device=device)
                   for shape, strides, dtype in self._result_layouts]
        flat = [None] * len(self._flat_sources)
        for k, (is_output, i) in enumerate(self._flat_sources):
            flat[k] = results[i] if is_output else tensors[i]
        try:
            self.entry._run(flat, "torch", None, False, [], False)
        except ValueError:
            self._check(tensors)  # the message in PyTorch's terms, if it is an input's
            raise
        return self._pack(results)

    def _fake(self, *tensors):
        self._check(tensors)
        device = tensors[0].device if tensors else torch.device("cuda", self.entry.artifact.device)
        results = [torch.empty(b.shape, dtype=torch_dtype(b.encoding), device=device)
                   for b in self._result_buffers()]
        return self._pack(results)

    def _pack(self, results):
        if self.num_results == 0:
            return None
        if self.num_results == 1:
            return results[0]
        return tuple(results)

    # -- structured calls ---------------------------------------------------------

    def flatten(self, values):
        """The op's tensor arguments from one value per input argument."""
        if len(values) != len(self.inputs):
            raise TypeError(f"entry '{self.entry.name}' takes {len(self.inputs)} arguments "
                            f"({', '.join(a.name for a in self.inputs)}), got {len(values)}")
        flat = []
        for arg, value in zip(self.inputs, values):
            flat.extend(self.flatten_value(arg, value))
        return flat

    def flatten_value(self, arg, value):
        """The tensors of one value of input argument `arg`, in buffer order."""
        if not arg.is_proto:
            if isinstance(value, (QuantizedTensor, dict, list, tuple)):
                raise ValueError(f"entry '{self.entry.name}': argument '{arg.name}': "
                                 f"expected a tensor {arg.type_text()}")
            return [value]
        if isinstance(value, (QuantizedTensor, dict)):
            buffers = value.buffers if isinstance(value, QuantizedTensor) else value
            flat = []
            for b in arg.buffers:
                if b.name not in buffers:
                    raise ValueError(
                        f"entry '{self.entry.name}': argument '{arg.name}': expected a "
                        f"quantized tensor with buffers {', '.join(arg.buffer_names)}, "
                        f"got {', '.join(buffers)}")
                flat.append(buffers[b.name])
            return flat
        if isinstance(value, (list, tuple)) and len(value) == len(arg.buffers):
            return list(value)
        raise ValueError(f"entry '{self.entry.name}': argument '{arg.name}': expected "
                         f"a QuantizedTensor ({arg.type_text()})")

    def unflatten(self, results, inputs=None):
        """One value per output argument (tensor / QuantizedTensor) from the
        op's results; an alias output (alias_of: an input returned as is,
        not among the op's results) is its value in `inputs` (one value per
        input argument)."""
        if self.num_results == 1:
            results = (results,)
        values, i = [], 0
        for j, arg in enumerate(self.outputs):
            n = len(arg.buffers)
            if arg.alias_of is not None:
                if inputs is None:
                    raise TypeError(f"entry '{self.entry.name}': output '{arg.name}' is "
                                    f"argument '{arg.alias_of}': unflatten needs the inputs")
                values.append(inputs[self.entry._aliases[j]])
            elif arg.is_proto:
                values.append(QuantizedTensor.for_arg(
                    arg, {b.name: results[i + k] for k, b in enumerate(arg.buffers)}))
            else:
                values.append(results[i])
            i += n
        return tuple(values)

    def __call__(self, *values):
        return self.unflatten(self.op(*self.flatten(values)), values)

    def __repr__(self):
        return f"<teq.torch.EntryOp {self.qualname}: {self.schema}>"


class Registered:
    """The operators of one artifact: ``ops.<entry>`` / ``ops["entry"]`` are
    EntryOp (structured calls); ``ops.<entry>.op`` is the torch op
    (``torch.ops.<namespace>.<entry>.default``)."""

    # Shared, not copied (nn.Module deepcopy).
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __init__(self, artifact, namespace):
        self.artifact = artifact
        self.namespace = namespace
        self.library = torch.library.Library(namespace, "FRAGMENT")
        self.ops = {}
        for entry in artifact:
            self.ops[entry.name] = EntryOp(entry, namespace, self.library)

    def __getitem__(self, name):
        try:
            return self.ops[name]
        except KeyError:
            raise KeyError(f"artifact '{self.artifact.path}': no entry '{name}' "
                           f"(entries: {', '.join(self.ops)})") from None

    def __getattr__(self, name):
        ops = self.__dict__.get("ops")
        if ops is not None and name in ops:
            return ops[name]
        raise AttributeError(f"'Registered' object has no attribute '{name}'")

    def __iter__(self):
        return iter(self.ops.values())

    def __repr__(self):
        return f"<teq.torch.Registered {self.namespace}: {', '.join(self.ops)}>"


def default_namespace(path):
    """``teq_<file stem>``, e.g. ``teq_mlp`` for ``/x/mlp.so``."""
    stem = os.path.basename(os.fspath(path))
    stem = stem[:-3] if stem.endswith(".so") else stem
    return "teq_" + _ident(stem).strip("_")


def register(artifact, namespace=None, device=0):
    """Registers every entry of `artifact` (a path or a loaded
    teq.runtime.Artifact) as an operator ``<namespace>::<entry>``. The same
    artifact registers once (later calls return the same Registered); a
    namespace taken by another artifact is a ValueError."""
    _require_torch("teq.torch.register")
    if isinstance(artifact, _runtime.Artifact):
        art = artifact
        if not art.loaded:
            raise ValueError(f"artifact '{art.path}' was only inspected; register a loaded "
                             f"artifact (teq.runtime.load) or a path")
    else:
        art = _load(artifact, device)
    explicit = namespace is not None
    namespace = namespace or default_namespace(art.path)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", namespace):
        raise ValueError(f"namespace '{namespace}' is not an identifier")
    if namespace == "teq":  # teq.torch's own ops (delayed_scaling_update)
        raise ValueError("namespace 'teq' is reserved for teq.torch's own operators")
    real = os.path.realpath(art.path)
    with _lock:
        done = _registered.get(namespace)
        if (done is not None and not explicit
                and os.path.realpath(done.artifact.path) != real):
            # Two files whose names read alike (mlp-x.so, mlp_x.so): the
            # default namespace of the second one gets its path's hash.
            namespace += "_" + hashlib.sha1(real.encode()).hexdigest()[:8]
            done = _registered.get(namespace)
        if done is not None:
            if (os.path.realpath(done.artifact.path) == real
                    and done.artifact.device == art.device):
                return done
            raise ValueError(f"namespace '{namespace}' already holds the ops of artifact "
                             f"'{done.artifact.path}' (cuda:{done.artifact.device}); pass "
                             f"another namespace= for '{art.path}'")
        reg = Registered(art, namespace)
        _registered[namespace] = reg
        return reg
