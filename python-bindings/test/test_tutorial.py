"""Runs docs/Python.md, so that the tutorial cannot rot.

Its ```python blocks run in order in one namespace: the build-host blocks
(compile a Program into mlp.so) wherever the compiler extension is built,
the ```python gpu blocks where PyTorch and a CUDA GPU are (they load the
mlp.so the build-host blocks wrote). On the GPU machine, which has no
compiler, `scripts/gpu-prepare` runs the build-host part here first:

    python3 python-bindings/test/test_tutorial.py --prepare DIR

and the GPU test finds DIR/mlp.so through TEQ_ARTIFACTS (DIR's parent).
```python te blocks are TransformerEngine's code for comparison: not run.
"""

import os
import pathlib
import re
import sys

import pytest

TUTORIAL = pathlib.Path(__file__).resolve().parents[2] / "docs" / "Python.md"
_BLOCK = re.compile(r"^```python( \w+)?\n(.*?)^```", re.M | re.S)


def blocks(kind):
    """The code of the ```python blocks tagged `kind` ("" for untagged)."""
    return [code for tag, code in _BLOCK.findall(TUTORIAL.read_text())
            if (tag or "").strip() == kind]


def run_blocks(kind, directory):
    """Runs the blocks tagged `kind` in `directory`; returns their namespace."""
    namespace = {"__name__": "tutorial"}
    cwd = os.getcwd()
    os.chdir(directory)
    try:
        for code in blocks(kind):
            exec(compile(code, str(TUTORIAL), "exec"), namespace)
    finally:
        os.chdir(cwd)
    return namespace


def run_build_host_part(directory):
    return run_blocks("", directory)


def test_tutorial_has_both_parts():
    assert len(blocks("")) >= 4 and len(blocks("gpu")) >= 1
    assert len(blocks("te")) == 1


def test_tutorial_build_host_part(tmp_path):
    pytest.importorskip("teq._teq_compiler",
                        reason="the compiler extension is not built here")
    namespace = run_build_host_part(tmp_path)
    assert (tmp_path / "mlp.so").stat().st_size > 0
    assert namespace["artifact"] == "mlp.so"


def test_tutorial_torch_gpu_part(tmp_path):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    prepared = pathlib.Path(os.environ.get("TEQ_ARTIFACTS", "")) / "tutorial"
    if (prepared / "mlp.so").exists():
        directory = prepared
    else:
        pytest.importorskip("teq._teq_compiler",
                            reason="no prepared tutorial artifact and no compiler")
        run_build_host_part(tmp_path)
        directory = tmp_path
    namespace = run_blocks("gpu", directory)
    assert namespace["losses"][-1] < namespace["losses"][0]


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--prepare":
        sys.exit("usage: test_tutorial.py --prepare DIR")
    out = pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    run_build_host_part(out)
    print(f"tutorial artifact: {out / 'mlp.so'}")
