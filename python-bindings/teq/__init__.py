"""TEQ: TransformerEngine's FP8/FP4 programs, compiled ahead of time.

Compiler side (needs the ``teq._teq_compiler`` extension, i.e. a build with
MLIR): recipes and quantizers with TE's names (``teq.recipe``), a program
builder (``teq.Program``, ``teq.autocast``), parsing and pass pipelines, and
``teq.compile`` which writes the same artifact as ``te-compile``.

Runtime side (needs only CUDA: ``teq._teq_runtime``): ``teq.runtime.load``
and ``teq.torch``. On a GPU node without MLIR only these import.
"""

from teq import recipe
from teq.errors import CompilerError
from teq.recipe import (
    CustomRecipe,
    DelayedScaling,
    Float8BlockScaling,
    Float8CurrentScaling,
    Format,
    MMParams,
    MXFP8BlockScaling,
    NVFP4BlockScaling,
    QParams,
)

__version__ = "0.1.0"

# Names served by the compiler extension, imported on first use so that
# `import teq` (and teq.runtime / teq.torch) works where only the runtime is
# built.
_COMPILER_NAMES = {
    "Program": "teq.program",
    "autocast": "teq.program",
    "Target": "teq.compiler",
    "TensorProto": "teq.compiler",
    "Buffer": "teq.compiler",
    "Module": "teq.compiler",
    "parse": "teq.compiler",
    "run_pipeline": "teq.compiler",
    "compile": "teq.compiler",
    "check_recipe_support": "teq.compiler",
    "saved_memory": "teq.compiler",
    "version": "teq.compiler",
}


def __getattr__(name):
    module = _COMPILER_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'teq' has no attribute '{name}'")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_COMPILER_NAMES))
