"""TEQ artifacts in PyTorch: custom ops and a Linear module.

::

    import torch, teq.torch
    ops = teq.torch.register("pair.so")          # torch.ops.teq_pair.fwd, .bwd
    y, saved_x, saved_w = ops.fwd(x, w)          # QuantizedTensor for protos

    fc1 = teq.torch.Linear.from_artifact("pair.so", forward="fwd", backward="bwd")
    step = torch.compile(lambda x: fc1(x).float().sum(), fullgraph=True)
    step(x).backward()                           # fc1.weight.grad

``register`` makes every entry of an artifact a ``torch.library`` operator
``<namespace>::<entry>`` whose arguments are the entry's input and inout
buffers (a quantized argument is one Tensor per buffer, ``<arg>__<buffer>``)
and whose results are its output buffers; inout arguments are declared
mutated (``Tensor(a!)``). Each has a fake (meta) implementation computed from
the manifest, so ``torch.compile(fullgraph=True)`` traces through it as one
opaque node. The CUDA implementation runs the entry on PyTorch's current
stream, zero copy (teq.runtime).

``Linear.from_artifact`` ties a forward entry and a backward entry into an
``nn.Module`` through a ``torch.autograd.Function`` (teq.runtime.TrainingPair
says how the arguments map, explicitly): weight and bias are parameters,
delayed-scaling state and ``main_grad`` are buffers.

``Module.from_artifact`` / ``Module.from_program`` do the same for a whole
compiled ``teq.Program`` (``<name>_forward``, ``<name>_backward`` and, for
DelayedScaling, ``<name>_update``), with the roles read from the names the
manifest gives every argument and result (``ProgramPair``, which needs no
torch: this module imports without it, and only its torch parts raise).

The package by job: ``ops`` (EntryOp, Registered, register: torch custom
ops over an artifact's entries), ``roles`` (ProgramPair: the roles of a
forward/backward/update entry set), ``scaling`` (delayed-scaling state and
TE's update step, lib/Reference's rule through the runtime extension),
``linear`` (Linear and its autograd function), ``modules`` (Module and its
autograd function); ``_common`` holds what they share.
"""

from teq.torch._common import torch_dtype
from teq.torch.linear import Linear
from teq.torch.modules import Module
from teq.torch.ops import EntryOp, Registered, default_namespace, register
from teq.torch.roles import STATE_SUFFIXES, ProgramPair, _pick_entries, _program_saved_from_args
from teq.torch.scaling import delayed_scaling_update

__all__ = ["EntryOp", "Linear", "Module", "ProgramPair", "Registered", "delayed_scaling_update",
           "register"]
