// teq.role / teq.role_of on entry arguments and results (the manifest's
// "role"/"of", docs/Artifact.md): the vocabulary is verified.
// RUN: te-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func private @roles
// CHECK-SAME: {teq.role = "parameter"}
// CHECK-SAME: {teq.role = "state"}
// CHECK-SAME: {teq.role = "grad", teq.role_of = "w"}
// CHECK-SAME: {teq.role = "state_update", teq.role_of = "s"}
func.func private @roles(tensor<4xf32> {teq.role = "parameter"},
                         tensor<4xf32> {teq.role = "state"})
    -> (tensor<4xf32> {teq.role = "grad", teq.role_of = "w"},
        tensor<4xf32> {teq.role = "state_update", teq.role_of = "s"})

// -----

// expected-error @+1 {{'teq.role' of argument 0 must be one of input, parameter, output, saved, state, state_update, grad_output, grad, main_grad, quantized_weight, got "weight"}}
func.func private @unknown_role(tensor<4xf32> {teq.role = "weight"})

// -----

// expected-error @+1 {{'teq.role' of result 0 must be one of}}
func.func private @role_not_a_string() -> (tensor<4xf32> {teq.role = 1 : i64})

// -----

// expected-error @+1 {{'teq.role_of' of argument 0 needs a 'teq.role' that refers to another value}}
func.func private @of_an_input(tensor<4xf32> {teq.role = "input", teq.role_of = "x"})

// -----

// expected-error @+1 {{'teq.role_of' of result 0 must be a non-empty string}}
func.func private @empty_of() -> (tensor<4xf32> {teq.role = "grad", teq.role_of = ""})
