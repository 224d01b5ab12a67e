# -*- Python -*-
# GPU integration tests: run compiled artifacts with te-run on an NVIDIA GPU.
#
# Standalone (no CMake site config), because the GPU machine has the runtime
# and te-run but no MLIR: scripts/gpu-check runs
#   TEQ_RUN=build-gpu/bin/te-run TEQ_ARTIFACTS=.artifacts lit test/GPU
# On machines without a GPU every test here is UNSUPPORTED (REQUIRES: cuda).

import os
import shutil
import subprocess

import lit.formats

config.name = "TEQ-GPU"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
config.test_exec_root = os.environ.get(
    "TEQ_GPU_TEST_EXEC_ROOT", os.path.join(root, "build", "test", "GPU"))

te_run = os.environ.get("TEQ_RUN", os.path.join(root, "build", "bin", "te-run"))
artifacts = os.environ.get("TEQ_ARTIFACTS", os.path.join(root, ".artifacts"))
config.substitutions.append(("%te-run", te_run))
config.substitutions.append(("%artifacts", artifacts))
# NCCL (the multi-GPU tests): which library, and NVLink multicast kept off.
for var in ["CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "HOME", "PATH",
            "TEQ_NCCL_LIBRARY", "NCCL_NVLS_ENABLE", "NCCL_DEBUG"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]


def gpu_present():
    if os.environ.get("TEQ_ENABLE_CUDA_TESTS") == "1":
        return True
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    return subprocess.run([smi, "-L"], capture_output=True).returncode == 0


if gpu_present() and os.path.exists(te_run):
    config.available_features.add("cuda")
    # Tests of several ranks (te-run --nranks 2) need two GPUs.
    listed = subprocess.run([shutil.which("nvidia-smi") or "nvidia-smi", "-L"],
                            capture_output=True, text=True)
    if listed.returncode == 0 and len(listed.stdout.strip().splitlines()) >= 2:
        config.available_features.add("two-gpus")
