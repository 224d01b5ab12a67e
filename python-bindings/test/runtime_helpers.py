"""Shared helpers of the runtime/torch tests: where te-compile, te-run and the
compiled test artifacts are, and whether a GPU context can be made."""

import functools
import os
import shutil
import subprocess
import tempfile

import pytest

TEST_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(TEST_DIR))
INPUTS = os.path.join(TEST_DIR, "Inputs")

# Every Input, compiled to <name>.so (scripts/gpu-prepare does the same into
# .artifacts/python for the GPU machine, which has no MLIR).
INPUT_NAMES = ("linear-current", "linear-delayed", "linear-hp", "mlp-current", "parallel",
               "parallel-mlp", "parallel-mlp-delayed", "saved-alias")


def te_compile():
    path = os.environ.get("TEQ_TE_COMPILE", os.path.join(REPO, "build", "bin", "te-compile"))
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def te_run():
    for path in (os.environ.get("TEQ_TE_RUN"),
                 os.path.join(REPO, "build-gpu", "bin", "te-run"),
                 os.path.join(REPO, "build", "bin", "te-run")):
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


@functools.lru_cache(maxsize=None)
def _compiled_dir():
    compiler = te_compile()
    if compiler is not None:
        out = tempfile.mkdtemp(prefix="teq-py-artifacts-")
        for name in INPUT_NAMES:
            subprocess.run([compiler, os.path.join(INPUTS, name + ".mlir"), "-o",
                            os.path.join(out, name + ".so")], check=True,
                           capture_output=True, text=True)
        return out
    return os.environ.get("TEQ_ARTIFACTS", os.path.join(REPO, ".artifacts", "python"))


def artifact(name):
    """The compiled test artifact `name` (te-compile if present, else
    $TEQ_ARTIFACTS); skips the test if neither has it."""
    path = os.path.join(_compiled_dir(), name + ".so")
    if not os.path.isfile(path):
        pytest.skip(f"no te-compile (TEQ_TE_COMPILE) and no {path} (TEQ_ARTIFACTS)", allow_module_level=True)
    return path


def runtime_module():
    try:
        from teq import _teq_runtime
    except ImportError as error:
        pytest.skip(f"teq._teq_runtime is not built: {error}", allow_module_level=True)
    return _teq_runtime


@functools.lru_cache(maxsize=None)
def _gpu_reason():
    rt = runtime_module()
    try:
        rt.Context(0)
    except Exception as error:  # no driver, no device
        return str(error)
    return None


def require_gpu():
    reason = _gpu_reason()
    if reason is not None:
        pytest.skip(f"no CUDA context: {reason}", allow_module_level=True)


def require_torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device", allow_module_level=True)
    require_gpu()
    return torch


def which(name):
    return shutil.which(name)
