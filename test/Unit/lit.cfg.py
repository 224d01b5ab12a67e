# -*- Python -*-
# Runs the GoogleTest unit tests (build/unittests/**/*Tests) under lit, so
# check-teq's summary counts them.

import os

import lit.formats

config.name = "TEQ-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.teq_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
