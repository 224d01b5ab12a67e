# -*- Python -*-
# lit configuration of the TEQ regression tests.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TEQ"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Unit", "Inputs", "GPU", "lib"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.teq_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%teq_src_root", config.teq_src_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# Every FileCheck in the suite binds variables per CHECK-LABEL block.
config.environment["FILECHECK_OPTS"] = "-enable-var-scope"

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.teq_tools_dir, config.llvm_tools_dir]
tools = ["te-opt", "te-compile"]
if config.teq_build_runtime:
    tools += ["te-run", "te-seal"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# te-compile --device-code=cubin needs ptxas (the CUDA toolkit).
if shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
    config.substitutions.append(
        ("%ptxas", shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"))

# GPU tests (REQUIRES: cuda) run only where a CUDA device answers.
if os.environ.get("TEQ_ENABLE_CUDA_TESTS") == "1" or (
    shutil.which("nvidia-smi") and os.system("nvidia-smi -L >/dev/null 2>&1") == 0
):
    config.available_features.add("cuda")

# test/Embedding: programs built against the installed package (target
# teq-embedding-consumer) and the prefix they were built against.
config.substitutions.append(("%embed_bin", config.teq_embedding_bin))
config.substitutions.append(("%embed_prefix", config.teq_embedding_prefix))
config.substitutions.append(("%runtime_only", config.teq_runtime_only_root))
if config.teq_build_runtime:
    config.available_features.add("teq-runtime")
