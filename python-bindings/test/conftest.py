"""Shared fixtures of the teq Python tests.

Run from the build tree: PYTHONPATH=<build>/python-bindings (scripts/test
does this). Tests of the compiler need the teq._teq_compiler extension and
skip without it (a runtime-only build); TEQ_BUILD_DIR names the build whose
te-compile the tests compare against (default <repo>/build)."""

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("TEQ_BUILD_DIR", REPO / "build"))


@pytest.fixture(scope="session")
def compiler():
    """The compiler extension, or skip."""
    return pytest.importorskip("teq._teq_compiler",
                               reason="the compiler extension is not built here")


@pytest.fixture(scope="session")
def te_compile():
    path = BUILD / "bin" / "te-compile"
    if not path.exists():
        pytest.skip(f"no te-compile at {path}")
    return path
