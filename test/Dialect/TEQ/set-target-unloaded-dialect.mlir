// teq-set-target, and the pipelines that start with it, on a module without
// teq ops: nothing had loaded the teq dialect, and creating the module's
// #teq.target crashed (StorageUniquer, an unregistered attribute). Found by
// the fuzzer (test/Fuzz/teq-fuzz.py) on a mutated lit test; the pass now
// declares the dialect it creates attributes of.
// RUN: te-opt %s --teq-set-target=target=sm_90 | FileCheck %s --check-prefix=SET
// RUN: te-opt %s --teq-frontend=target=sm_100a | FileCheck %s --check-prefix=FRONTEND
// RUN: te-opt %s --teq-lower-to-gemm=target=sm_110a | FileCheck %s --check-prefix=GEMM
// RUN: te-opt %s '--pass-pipeline=builtin.module(teq-frontend{target=sm_90})' | FileCheck %s --check-prefix=SET

// SET: module attributes {teq.target = #teq.target<sm_90>}
// FRONTEND: module attributes {teq.target = #teq.target<sm_100a>}
// GEMM: module attributes {teq.target = #teq.target<sm_110a>}
// SET: func.func private @nvfp4_fp4_format()

func.func private @nvfp4_fp4_format() attributes {
}
