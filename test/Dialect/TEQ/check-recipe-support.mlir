// teq-check-recipe-support: recipes against the module's #teq.target
// (te-semantics.md §2: TE's check_*_support messages, reported at the
// teq.autocast op), TE's Linear shape rules (§3: assert_dim_for_fp8_exec,
// MXFP8 % 32, NVFP4 % 16), explicit delayed-scaling state, and the default
// recipe of a region that names none (§1.8). The pass never changes the IR.
//
// The first RUN checks every error the pass emits and that the cases after
// the `//--- positive.mlir` marker emit none. The second RUN checks that those
// positive programs pass and come out unchanged (identical to a plain
// round trip); the last that a module without a target is rejected.

// RUN: te-opt %s -split-input-file -verify-diagnostics --teq-check-recipe-support
// RUN: rm -rf %t && split-file %s %t
// RUN: te-opt %t/positive.mlir -split-input-file --teq-check-recipe-support | FileCheck %s --check-prefix=POS --implicit-check-not="{quantization"
// RUN: te-opt %t/positive.mlir -split-input-file > %t/before.mlir
// RUN: te-opt %t/positive.mlir -split-input-file --teq-check-recipe-support > %t/after.mlir
// RUN: diff %t/before.mlir %t/after.mlir
// RUN: not te-opt %t/no-target.mlir --teq-check-recipe-support 2>&1 | FileCheck %s --check-prefix=NOTARGET

//===----------------------------------------------------------------------===//
// Recipes on targets that cannot run them (§2). The message is TE's, at the
// autocast op.
//===----------------------------------------------------------------------===//

// The acceptance pair, first half: MXFP8 on sm_90 is rejected at the autocast
// op (the same program compiles for sm_100: @mxfp8_pair in positive.mlir).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @mxfp8_pair(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    // expected-error @+1 {{MXFP8BlockScaling is not supported on sm_90: Device compute capability 10.0 or higher required for MXFP8 execution.}}
    %y = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// The acceptance pair for NVFP4: rejected on sm_90 (@nvfp4_pair in
// positive.mlir compiles for sm_100).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @nvfp4_pair(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %rng: tensor<2xi64>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    // expected-error @+1 {{NVFP4BlockScaling is not supported on sm_90: Device compute capability 10.0 or higher required for NVFP4 execution.}}
    %y, %sx, %sw = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %o, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %o, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw rng_state(%rng : tensor<2xi64>) config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// -----

// DelayedScaling below CC 8.9 (check_fp8_support). The Linear has its state,
// so the autocast op is the only error.
module attributes {teq.target = #teq.target<sm_80>} {
  func.func @delayed_sm80(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<1024x3xf32>) -> tensor<64x256xbf16> {
    // expected-error @+1 {{DelayedScaling is not supported on sm_80: Device compute capability 8.9 or higher required for FP8 execution.}}
    %y = teq.autocast recipe(#teq.delayed_scaling<>) -> tensor<64x256xbf16> {
      %o, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<1024x3xf32>)
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

module attributes {teq.target = #teq.target<sm_80>} {
  func.func @current_sm80(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    // expected-error @+1 {{Float8CurrentScaling is not supported on sm_80: Device compute capability 8.9 or higher required for FP8 execution.}}
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// Ada needs CUDA 12.1 for FP8.
module attributes {teq.target = #teq.target<sm_89, cuda = "12.0">} {
  func.func @delayed_ada_cuda120(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<1024x3xf32>) -> tensor<64x256xbf16> {
    // expected-error @+1 {{DelayedScaling is not supported on sm_89: Cuda version 12.1 or higher required for FP8 execution on Ada.}}
    %y = teq.autocast recipe(#teq.delayed_scaling<>) -> tensor<64x256xbf16> {
      %o, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<1024x3xf32>)
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

module attributes {teq.target = #teq.target<sm_89, cuda = "12.0">} {
  func.func @current_ada_cuda120(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    // expected-error @+1 {{Float8CurrentScaling is not supported on sm_89: Cuda version 12.1 or higher required for FP8 execution on Ada.}}
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// Block scaling needs CC 9.0 (Ada is not enough, even with CUDA 13.0) ...
module attributes {teq.target = #teq.target<sm_89>} {
  func.func @block_sm89(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    // expected-error @+1 {{Float8BlockScaling is not supported on sm_89: FP8 block scaled GEMM requires compute capability 9.0 or higher and CUDA >= 12.9.}}
    %y = teq.autocast recipe(#teq.float8_block_scaling<>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// ... and CUDA 12.9.
module attributes {teq.target = #teq.target<sm_90, cuda = "12.8">} {
  func.func @block_cuda128(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    // expected-error @+1 {{Float8BlockScaling is not supported on sm_90: FP8 block scaled GEMM requires compute capability 9.0 or higher and CUDA >= 12.9.}}
    %y = teq.autocast recipe(#teq.float8_block_scaling<>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// MXFP8 is not supported on 12.x.
module attributes {teq.target = #teq.target<sm_120>} {
  func.func @mxfp8_sm120(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    // expected-error @+1 {{MXFP8BlockScaling is not supported on sm_120: MXFP8 (for all gemm layouts) is not supported on 12.0+ architectures yet.}}
    %y = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// TE's autocast asserts FP8 support before the recipe's own check, so MXFP8
// and NVFP4 below CC 8.9 get the FP8 message.
module attributes {teq.target = #teq.target<sm_80>} {
  func.func @fp8_first(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x256xbf16>) {
    // expected-error @+1 {{MXFP8BlockScaling is not supported on sm_80: Device compute capability 8.9 or higher required for FP8 execution.}}
    %y = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    // expected-error @+1 {{NVFP4BlockScaling is not supported on sm_80: Device compute capability 8.9 or higher required for FP8 execution.}}
    %z = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y, %z : tensor<64x256xbf16>, tensor<64x256xbf16>
  }
}

// -----

// On Blackwell block scaling is emulated with MXFP8, which needs power-of-two
// scales: use_f32_scales is rejected there (TE's kernel message).
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @block_f32_scales_sm100(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    // expected-error @+1 {{Float8BlockScaling is not supported on sm_100: On Blackwell and newer, the FP8 block scaling recipe is emulated with MXFP8, which requires using power of two scaling factors.}}
    %y = teq.autocast recipe(#teq.float8_block_scaling<use_f32_scales = true>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// A custom recipe must run its quantizers on the target: an MXFP8 quantizer
// needs CC 10.0.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @custom_mxfp8_sm90(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    // expected-error @+1 {{CustomRecipe is not supported on sm_90: Device compute capability 10.0 or higher required for MXFP8 execution.}}
    %y = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = grad_output> -> #teq.mxfp8_quantizer<f8E5M2>, <> -> #teq.mxfp8_quantizer<f8E4M3FN>]>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// Each region is checked on its own: an unsupported inner recipe is reported
// at the inner autocast op, a supported outer one is fine.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @nested_inner_unsupported(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16> {
      // expected-error @+1 {{NVFP4BlockScaling is not supported on sm_90: Device compute capability 10.0 or higher required for NVFP4 execution.}}
      %i = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<64x256xbf16> {
        %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
        teq.yield %o : tensor<64x256xbf16>
      }
      teq.yield %i : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

//===----------------------------------------------------------------------===//
// The default recipe of a region that names none (§1.8).
//===----------------------------------------------------------------------===//

// -----

// sm_90's default is DelayedScaling, which needs its state.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @default_sm90_needs_state(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast -> tensor<64x256xbf16> {
      // expected-error @+1 {{Linear "fc1" under DelayedScaling (the default recipe of sm_90) needs its delayed-scaling state: the recipe keeps a scale and an amax history per quantizer slot (input, weight, output); pass them explicitly with state(%scale, %amax_history : tensor<3xf32>, tensor<1024x3xf32>)}}
      %o = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// sm_80's default (DelayedScaling) cannot run there either; the message says
// that it is the default.
module attributes {teq.target = #teq.target<sm_80>} {
  func.func @default_sm80(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<1024x3xf32>) -> tensor<64x256xbf16> {
    // expected-error @+1 {{DelayedScaling (the default recipe of sm_80, since the region names none) is not supported on sm_80: Device compute capability 8.9 or higher required for FP8 execution.}}
    %y = teq.autocast -> tensor<64x256xbf16> {
      %o, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<1024x3xf32>)
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// sm_100's default is MXFP8BlockScaling, so its shape rule applies.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @default_sm100_shape(%x: tensor<48x64xbf16>, %w: tensor<256x64xbf16>) -> tensor<48x256xbf16> {
    %y = teq.autocast -> tensor<48x256xbf16> {
      // expected-error @+1 {{Linear under MXFP8BlockScaling (the default recipe of sm_100): input with dims=[48, 64]: MXFP8Quantizer needs at least 2 dimensions with both the product of the leading dimensions (48) and the last dimension (64) divisible by 32}}
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<48x64xbf16>, tensor<256x64xbf16> -> tensor<48x256xbf16>
      teq.yield %o : tensor<48x256xbf16>
    }
    return %y : tensor<48x256xbf16>
  }
}

//===----------------------------------------------------------------------===//
// Delayed-scaling state.
//===----------------------------------------------------------------------===//

// -----

// An explicit DelayedScaling recipe: the message shows its history length.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed_no_state(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.delayed_scaling<amax_history_len = 16>) -> tensor<64x256xbf16> {
      // expected-error @+1 {{Linear "fc1" under DelayedScaling needs its delayed-scaling state: the recipe keeps a scale and an amax history per quantizer slot (input, weight, output); pass them explicitly with state(%scale, %amax_history : tensor<3xf32>, tensor<16x3xf32>)}}
      %o = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// Backward runs under its forward's recipe, outside the region, and needs
// the state of its two slots.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed_backward_no_state(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %s: tensor<3xf32>, %h: tensor<1024x3xf32>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.delayed_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %o, %a, %b, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>) updated_amax_history(tensor<1024x3xf32>)
      teq.yield %o, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    // expected-error @+1 {{Linear "fc1" under DelayedScaling needs its delayed-scaling state: the recipe keeps a scale and an amax history per quantizer slot (grad_output, grad_input); pass them explicitly with state(%scale, %amax_history : tensor<2xf32>, tensor<1024x2xf32>)}}
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// -----

// The amax history must have the recipe's amax_history_len rows.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed_wrong_history(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<16x3xf32>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.delayed_scaling<>) -> tensor<64x256xbf16> {
      // expected-error @+1 {{Linear "fc1": the amax history has 16 rows but DelayedScaling has amax_history_len = 1024}}
      %o, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<16x3xf32>)
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// The same for the backward state and a non-default history length.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed_wrong_history_backward(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %s: tensor<3xf32>, %h: tensor<16x3xf32>, %bs: tensor<2xf32>, %bh: tensor<1024x2xf32>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.delayed_scaling<amax_history_len = 16>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %o, %a, %b, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>) updated_amax_history(tensor<16x3xf32>)
      teq.yield %o, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    // expected-error @+1 {{Linear: the amax history has 1024 rows but DelayedScaling has amax_history_len = 16}}
    %dx, %dw, %bh2 = teq.linear_backward %dy, %sx, %sw state(%bs, %bh : tensor<2xf32>, tensor<1024x2xf32>) config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) updated_amax_history(tensor<1024x2xf32>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// -----

// A custom recipe's DelayedScalingRequest makes its quantizers stateful; the
// history length is the request's.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @custom_request_no_state(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = weight> -> #teq.delayed_scaling_request<amax_history_len = 32>, <> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>) -> tensor<64x256xbf16> {
      // expected-error @+1 {{Linear under CustomRecipe needs its delayed-scaling state: the recipe keeps a scale and an amax history per quantizer slot (input, weight, output); pass them explicitly with state(%scale, %amax_history : tensor<3xf32>, tensor<32x3xf32>)}}
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @custom_request_wrong_history(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<1024x3xf32>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.custom_recipe<[<> -> #teq.delayed_scaling_request<amax_history_len = 32>]>) -> tensor<64x256xbf16> {
      // expected-error @+1 {{Linear: the amax history has 1024 rows but CustomRecipe has amax_history_len = 32}}
      %o, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<1024x3xf32>)
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// State on a Linear that runs in high precision: outside any region, and in
// a disabled one.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @state_high_precision(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<1024x3xf32>) -> (tensor<64x256xbf16>, tensor<64x256xbf16>) {
    // expected-error @+1 {{Linear "fc1" takes delayed-scaling state but runs in high precision (no enabled teq.autocast around it)}}
    %o, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<1024x3xf32>)
    %y = teq.autocast recipe(#teq.delayed_scaling<>) enabled(false) -> tensor<64x256xbf16> {
      // expected-error @+1 {{Linear "fc2" takes delayed-scaling state but runs in high precision (no enabled teq.autocast around it)}}
      %o2, %h3 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<name = "fc2">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<1024x3xf32>)
      teq.yield %o2 : tensor<64x256xbf16>
    }
    return %o, %y : tensor<64x256xbf16>, tensor<64x256xbf16>
  }
}

// -----

// State on a Linear whose recipe is stateless.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @state_current_scaling(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<1024x3xf32>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16> {
      // expected-error @+1 {{Linear takes delayed-scaling state but Float8CurrentScaling does not use it}}
      %o, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<1024x3xf32>)
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

//===----------------------------------------------------------------------===//
// Shape rules (§3).
//===----------------------------------------------------------------------===//

// -----

// assert_dim_for_fp8_exec: prod(shape[:-1]) % 8 and shape[-1] % 16, for the
// input and the weight.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @fp8_shape(%x30: tensor<30x128xbf16>, %w: tensor<256x128xbf16>, %x: tensor<64x128xbf16>, %w260: tensor<260x128xbf16>, %x100: tensor<64x100xbf16>, %w100: tensor<256x100xbf16>, %x3d: tensor<3x10x128xbf16>) -> (tensor<30x256xbf16>, tensor<64x260xbf16>, tensor<64x256xbf16>, tensor<3x10x256xbf16>) {
    %a, %b, %c, %d = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<30x256xbf16>, tensor<64x260xbf16>, tensor<64x256xbf16>, tensor<3x10x256xbf16> {
      // expected-error @+1 {{Linear "fc1" under Float8CurrentScaling: input with dims=[30, 128]: FP8 execution requires the product of all dimensions except the last to be divisible by 8 and the last dimension to be divisible by 16, but got tensor with dims=[30, 128]}}
      %o1 = teq.linear_forward %x30, %w config(#teq.linear<name = "fc1">) : tensor<30x128xbf16>, tensor<256x128xbf16> -> tensor<30x256xbf16>
      // expected-error @+1 {{Linear "fc2" under Float8CurrentScaling: weight with dims=[260, 128]: FP8 execution requires the product of all dimensions except the last to be divisible by 8 and the last dimension to be divisible by 16, but got tensor with dims=[260, 128]}}
      %o2 = teq.linear_forward %x, %w260 config(#teq.linear<name = "fc2">) : tensor<64x128xbf16>, tensor<260x128xbf16> -> tensor<64x260xbf16>
      // expected-error @+2 {{Linear "fc3" under Float8CurrentScaling: input with dims=[64, 100]: FP8 execution requires the product of all dimensions except the last to be divisible by 8 and the last dimension to be divisible by 16, but got tensor with dims=[64, 100]}}
      // expected-error @+1 {{Linear "fc3" under Float8CurrentScaling: weight with dims=[256, 100]: FP8 execution requires the product of all dimensions except the last to be divisible by 8 and the last dimension to be divisible by 16, but got tensor with dims=[256, 100]}}
      %o3 = teq.linear_forward %x100, %w100 config(#teq.linear<name = "fc3">) : tensor<64x100xbf16>, tensor<256x100xbf16> -> tensor<64x256xbf16>
      // The leading dimensions multiply: 3 * 10 = 30.
      // expected-error @+1 {{Linear "fc4" under Float8CurrentScaling: input with dims=[3, 10, 128]: FP8 execution requires the product of all dimensions except the last to be divisible by 8 and the last dimension to be divisible by 16, but got tensor with dims=[3, 10, 128]}}
      %o4 = teq.linear_forward %x3d, %w config(#teq.linear<name = "fc4">) : tensor<3x10x128xbf16>, tensor<256x128xbf16> -> tensor<3x10x256xbf16>
      teq.yield %o1, %o2, %o3, %o4 : tensor<30x256xbf16>, tensor<64x260xbf16>, tensor<64x256xbf16>, tensor<3x10x256xbf16>
    }
    return %a, %b, %c, %d : tensor<30x256xbf16>, tensor<64x260xbf16>, tensor<64x256xbf16>, tensor<3x10x256xbf16>
  }
}

// -----

// The FP8 rule applies under every FP8 recipe, delayed scaling included.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @fp8_shape_delayed(%x: tensor<30x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<1024x3xf32>) -> tensor<30x256xbf16> {
    %y = teq.autocast recipe(#teq.delayed_scaling<>) -> tensor<30x256xbf16> {
      // expected-error @+1 {{Linear under DelayedScaling: input with dims=[30, 128]: FP8 execution requires the product of all dimensions except the last to be divisible by 8 and the last dimension to be divisible by 16, but got tensor with dims=[30, 128]}}
      %o, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<>) : tensor<30x128xbf16>, tensor<256x128xbf16> -> tensor<30x256xbf16> updated_amax_history(tensor<1024x3xf32>)
      teq.yield %o : tensor<30x256xbf16>
    }
    return %y : tensor<30x256xbf16>
  }
}

// -----

// MXFP8 on sm_100: both dims % 32 (the FP8 rule holds for all of these).
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @mxfp8_shape(%x48: tensor<48x64xbf16>, %w: tensor<256x64xbf16>, %x: tensor<64x64xbf16>, %w80: tensor<80x64xbf16>, %x3d: tensor<2x8x48xbf16>, %w48: tensor<256x48xbf16>) -> (tensor<48x256xbf16>, tensor<64x80xbf16>, tensor<2x8x256xbf16>) {
    %a, %b, %c = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<48x256xbf16>, tensor<64x80xbf16>, tensor<2x8x256xbf16> {
      // expected-error @+1 {{Linear "fc1" under MXFP8BlockScaling: input with dims=[48, 64]: MXFP8Quantizer needs at least 2 dimensions with both the product of the leading dimensions (48) and the last dimension (64) divisible by 32}}
      %o1 = teq.linear_forward %x48, %w config(#teq.linear<name = "fc1">) : tensor<48x64xbf16>, tensor<256x64xbf16> -> tensor<48x256xbf16>
      // expected-error @+1 {{Linear "fc2" under MXFP8BlockScaling: weight with dims=[80, 64]: MXFP8Quantizer needs at least 2 dimensions with both the product of the leading dimensions (80) and the last dimension (64) divisible by 32}}
      %o2 = teq.linear_forward %x, %w80 config(#teq.linear<name = "fc2">) : tensor<64x64xbf16>, tensor<80x64xbf16> -> tensor<64x80xbf16>
      // expected-error @+2 {{Linear "fc3" under MXFP8BlockScaling: input with dims=[2, 8, 48]: MXFP8Quantizer needs at least 2 dimensions with both the product of the leading dimensions (16) and the last dimension (48) divisible by 32}}
      // expected-error @+1 {{Linear "fc3" under MXFP8BlockScaling: weight with dims=[256, 48]: MXFP8Quantizer needs at least 2 dimensions with both the product of the leading dimensions (256) and the last dimension (48) divisible by 32}}
      %o3 = teq.linear_forward %x3d, %w48 config(#teq.linear<name = "fc3">) : tensor<2x8x48xbf16>, tensor<256x48xbf16> -> tensor<2x8x256xbf16>
      teq.yield %o1, %o2, %o3 : tensor<48x256xbf16>, tensor<64x80xbf16>, tensor<2x8x256xbf16>
    }
    return %a, %b, %c : tensor<48x256xbf16>, tensor<64x80xbf16>, tensor<2x8x256xbf16>
  }
}

// -----

// The MXFP8 rule also holds for the grad_output backward quantizes.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @mxfp8_grad_output_shape(%x: tensor<64x64xbf16>, %w: tensor<48x64xbf16>, %dy: tensor<64x48xbf16>) -> (tensor<64x64xbf16>, tensor<48x64xbf16>) {
    %dx, %dw = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x64xbf16>, tensor<48x64xbf16> {
      // expected-error @+1 {{Linear "fc1" under MXFP8BlockScaling: grad_output with dims=[64, 48]: MXFP8Quantizer needs at least 2 dimensions with both the product of the leading dimensions (64) and the last dimension (48) divisible by 32}}
      %a, %b = teq.linear_backward %dy, %x, %w config(#teq.linear<name = "fc1">) : tensor<64x48xbf16>, tensor<64x64xbf16>, tensor<48x64xbf16> dgrad(tensor<64x64xbf16>) wgrad(tensor<48x64xbf16>)
      teq.yield %a, %b : tensor<64x64xbf16>, tensor<48x64xbf16>
    }
    return %dx, %dw : tensor<64x64xbf16>, tensor<48x64xbf16>
  }
}

// -----

// NVFP4 on sm_100: both dims % 16. 24 rows pass the FP8 rule (% 8) but not
// NVFP4's.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @nvfp4_shape(%x24: tensor<24x64xbf16>, %w: tensor<256x64xbf16>, %x: tensor<64x64xbf16>, %w40: tensor<40x64xbf16>) -> (tensor<24x256xbf16>, tensor<64x40xbf16>) {
    %a, %b = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<24x256xbf16>, tensor<64x40xbf16> {
      // expected-error @+1 {{Linear "fc1" under NVFP4BlockScaling: input with dims=[24, 64]: NVFP4Quantizer needs at least 2 dimensions with both the product of the leading dimensions (24) and the last dimension (64) divisible by 16}}
      %o1 = teq.linear_forward %x24, %w config(#teq.linear<name = "fc1">) : tensor<24x64xbf16>, tensor<256x64xbf16> -> tensor<24x256xbf16>
      // expected-error @+1 {{Linear "fc2" under NVFP4BlockScaling: weight with dims=[40, 64]: NVFP4Quantizer needs at least 2 dimensions with both the product of the leading dimensions (40) and the last dimension (64) divisible by 16}}
      %o2 = teq.linear_forward %x, %w40 config(#teq.linear<name = "fc2">) : tensor<64x64xbf16>, tensor<40x64xbf16> -> tensor<64x40xbf16>
      teq.yield %o1, %o2 : tensor<24x256xbf16>, tensor<64x40xbf16>
    }
    return %a, %b : tensor<24x256xbf16>, tensor<64x40xbf16>
  }
}

// -----

// The NVFP4 rule for a backward grad_output, outside the region: backward
// runs under its forward's recipe.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @nvfp4_grad_output_shape(%x: tensor<64x64xbf16>, %w: tensor<40x64xbf16>, %dy: tensor<64x40xbf16>, %rng: tensor<2xi64>) -> (tensor<64x40xbf16>, tensor<64x64xbf16>, tensor<40x64xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<64x40xbf16>, tensor<64x64xbf16>, tensor<40x64xbf16> {
      // expected-error @+1 {{Linear "fc1" under NVFP4BlockScaling: weight with dims=[40, 64]}}
      %o, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x64xbf16>, tensor<40x64xbf16> -> tensor<64x40xbf16> saved_input(tensor<64x64xbf16>) saved_weight(tensor<40x64xbf16>)
      teq.yield %o, %a, %b : tensor<64x40xbf16>, tensor<64x64xbf16>, tensor<40x64xbf16>
    }
    // expected-error @+1 {{Linear "fc1" under NVFP4BlockScaling: grad_output with dims=[64, 40]: NVFP4Quantizer needs at least 2 dimensions with both the product of the leading dimensions (64) and the last dimension (40) divisible by 16}}
    %dx, %dw = teq.linear_backward %dy, %sx, %sw rng_state(%rng : tensor<2xi64>) config(#teq.linear<name = "fc1">) : tensor<64x40xbf16>, tensor<64x64xbf16>, tensor<40x64xbf16> dgrad(tensor<64x64xbf16>) wgrad(tensor<40x64xbf16>)
    return %y, %dx, %dw : tensor<64x40xbf16>, tensor<64x64xbf16>, tensor<40x64xbf16>
  }
}

//===----------------------------------------------------------------------===//
// Custom recipes.
//===----------------------------------------------------------------------===//

// -----

// Every role of a Linear needs a rule; the first role without one is named.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @custom_missing_role(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = input> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>, <tensor_type = weight> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>, <tensor_type = grad_output> -> #teq.float8_current_scaling_quantizer<f8E5M2>]>) -> tensor<64x256xbf16> {
      // expected-error @+1 {{'teq.linear_forward' op CustomRecipe maps no quantizer to the output of Linear "fc1"; add a rule for it (a catch-all is `<> -> ...`)}}
      %o = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// Rules by module name: a Linear whose name matches no rule has no quantizer
// for its input.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @custom_missing_name(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x256xbf16>) {
    %y, %z = teq.autocast recipe(#teq.custom_recipe<[<name = "fc1", tensor_type = grad_output> -> #teq.float8_current_scaling_quantizer<f8E5M2>, <name = "fc1", tensor_type = grad_input> -> #teq.float8_current_scaling_quantizer<f8E5M2>, <name = "fc1"> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>) -> tensor<64x256xbf16>, tensor<64x256xbf16> {
      %o1 = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      // expected-error @+1 {{'teq.linear_forward' op CustomRecipe maps no quantizer to the input of Linear "fc2"; add a rule for it (a catch-all is `<> -> ...`)}}
      %o2 = teq.linear_forward %x, %w config(#teq.linear<name = "fc2">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o1, %o2 : tensor<64x256xbf16>, tensor<64x256xbf16>
    }
    return %y, %z : tensor<64x256xbf16>, tensor<64x256xbf16>
  }
}

// -----

// A backward op needs its roles too (grad_input here).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @custom_missing_backward_role(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %dx, %dw = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = grad_input> -> #teq.float8_current_scaling_quantizer<f8E5M2>, <module_type = "grouped_linear"> -> #teq.float8_current_scaling_quantizer<f8E5M2>, <module_type = "linear", tensor_type = input> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>, <module_type = "linear", tensor_type = weight> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>, <module_type = "linear", tensor_type = output> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>) -> tensor<64x128xbf16>, tensor<256x128xbf16> {
      // expected-error @+1 {{'teq.linear_backward' op CustomRecipe maps no quantizer to the grad_output of Linear; add a rule for it (a catch-all is `<> -> ...`)}}
      %a, %b = teq.linear_backward %dy, %x, %w config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %a, %b : tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %dx, %dw : tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

//===----------------------------------------------------------------------===//
// Stochastic rounding: the Philox state (seed, offset) is an explicit
// rng_state operand, like delayed scaling's state.
//===----------------------------------------------------------------------===//

// -----

// NVFP4BlockScaling rounds grad_output stochastically by default: backward
// needs its rng_state. Forward rounds nothing stochastically.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @sr_backward_no_rng_state(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %o, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %o, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    // expected-error @+1 {{Linear "fc1" under NVFP4BlockScaling rounds grad_output stochastically (NVFP4 stochastic_rounding) and needs the state of its random bits: pass the Philox seed and offset explicitly with rng_state(%rng : tensor<2xi64>), advancing the offset every step (or disable it, e.g. NVFP4BlockScaling's disable_stochastic_rounding = true)}}
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// -----

// An rng_state where nothing rounds stochastically: NVFP4's forward, NVFP4
// with disable_stochastic_rounding, another recipe, high precision.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @sr_unused_rng_state(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %rng: tensor<2xi64>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      // expected-error @+1 {{Linear "fc1" takes an rng_state but NVFP4BlockScaling rounds none of its tensors stochastically; remove rng_state(...)}}
      %o, %a, %b = teq.linear_forward %x, %w rng_state(%rng : tensor<2xi64>) config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %o, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.autocast recipe(#teq.nvfp4_block_scaling<disable_stochastic_rounding = true>) -> tensor<64x128xbf16>, tensor<256x128xbf16> {
      // expected-error @+1 {{Linear "fc2" takes an rng_state but NVFP4BlockScaling rounds none of its tensors stochastically; remove rng_state(...)}}
      %p, %q = teq.linear_backward %dy, %x, %w rng_state(%rng : tensor<2xi64>) config(#teq.linear<name = "fc2">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %p, %q : tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %m = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16> {
      // expected-error @+1 {{Linear "fc3" takes an rng_state but MXFP8BlockScaling rounds none of its tensors stochastically; remove rng_state(...)}}
      %o = teq.linear_forward %x, %w rng_state(%rng : tensor<2xi64>) config(#teq.linear<name = "fc3">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    // expected-error @+1 {{Linear "fc4" takes an rng_state but runs in high precision (no enabled teq.autocast around it)}}
    %h = teq.linear_forward %x, %w rng_state(%rng : tensor<2xi64>) config(#teq.linear<name = "fc4">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
    return %y, %dx, %dw, %m, %h : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>
  }
}

// -----

// A CustomRecipe can round forward tensors stochastically too: the forward
// Linear then needs the rng_state, and one op cannot round two tensors with
// its one stream.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @sr_custom_forward(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x256xbf16>) {
    %y = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = input> -> #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, <> -> #teq.nvfp4_quantizer<f4E2M1FN>]>) -> tensor<64x256xbf16> {
      // expected-error @+1 {{Linear "fc1" under CustomRecipe rounds input stochastically (NVFP4 stochastic_rounding) and needs the state of its random bits: pass the Philox seed and offset explicitly with rng_state(%rng : tensor<2xi64>)}}
      %o = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    %z = teq.autocast recipe(#teq.custom_recipe<[<> -> #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>]>) -> tensor<64x256xbf16> {
      // expected-error @+1 {{Linear "fc2" under CustomRecipe rounds both input and weight stochastically, but a Linear op has one rng_state (one Philox stream) and both would round with the same random bits; round at most one of them stochastically}}
      %o = teq.linear_forward %x, %w config(#teq.linear<name = "fc2">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y, %z : tensor<64x256xbf16>, tensor<64x256xbf16>
  }
}

//===----------------------------------------------------------------------===//
// Programs the pass accepts unchanged (second RUN). Under the first RUN they
// must produce no diagnostic at all.
//===----------------------------------------------------------------------===//

// -----

//--- positive.mlir

// The acceptance pair, second half: the MXFP8 program rejected for sm_90
// compiles for sm_100.
// POS-LABEL: func.func @mxfp8_pair
// POS: teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16> {
// POS-NEXT: teq.linear_forward %{{.*}}, %{{.*}} config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
// POS-NEXT: teq.yield
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @mxfp8_pair(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// The NVFP4 program rejected for sm_90 compiles for sm_100, backward
// included.
// POS-LABEL: func.func @nvfp4_pair
// POS: teq.autocast recipe(#teq.nvfp4_block_scaling<>)
// POS-NEXT: teq.linear_forward {{.*}} config(#teq.linear<name = "fc1">) :
// POS-NOT: quantization
// POS: teq.linear_backward {{.*}} rng_state(%{{.*}} : tensor<2xi64>) config(#teq.linear<name = "fc1">) :
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @nvfp4_pair(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %rng: tensor<2xi64>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %o, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %o, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw rng_state(%rng : tensor<2xi64>) config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// -----

// MXFP8 and NVFP4 Linears with shapes that meet their rules (3-D inputs
// flatten to 32 and 16 rows), on sm_100 and sm_103.
// POS-LABEL: func.func @blackwell_shapes
// POS: teq.autocast recipe(#teq.mxfp8_block_scaling<fp8_format = HYBRID, enable_2d_quantization = true>)
// POS: teq.autocast recipe(#teq.nvfp4_block_scaling<disable_rht = true>)
module attributes {teq.target = #teq.target<sm_103>} {
  func.func @blackwell_shapes(%x: tensor<2x16x64xbf16>, %w: tensor<96x64xbf16>, %x16: tensor<16x32xbf16>, %w16: tensor<48x32xbf16>) -> (tensor<2x16x96xbf16>, tensor<16x48xbf16>) {
    %a = teq.autocast recipe(#teq.mxfp8_block_scaling<fp8_format = HYBRID, enable_2d_quantization = true>) -> tensor<2x16x96xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<2x16x64xbf16>, tensor<96x64xbf16> -> tensor<2x16x96xbf16>
      teq.yield %o : tensor<2x16x96xbf16>
    }
    %b = teq.autocast recipe(#teq.nvfp4_block_scaling<disable_rht = true>) -> tensor<16x48xbf16> {
      %o = teq.linear_forward %x16, %w16 config(#teq.linear<>) : tensor<16x32xbf16>, tensor<48x32xbf16> -> tensor<16x48xbf16>
      teq.yield %o : tensor<16x48xbf16>
    }
    return %a, %b : tensor<2x16x96xbf16>, tensor<16x48xbf16>
  }
}

// -----

// Block scaling on Hopper with the default CUDA (13.0) and with exactly 12.9;
// on Blackwell with power-of-two scales (the default).
// POS-LABEL: func.func @block_sm90
// POS: teq.autocast recipe(#teq.float8_block_scaling<>)
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @block_sm90(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %o, %a, %b = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %o, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<>) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// -----

// POS-LABEL: module attributes {teq.target = #teq.target<sm_90a, cuda = "12.9">}
// POS: func.func @block_sm90a_cuda129
// POS: teq.autocast recipe(#teq.float8_block_scaling<use_f32_scales = true, w_block_scaling_dim = 1>)
module attributes {teq.target = #teq.target<sm_90a, cuda = "12.9">} {
  func.func @block_sm90a_cuda129(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.float8_block_scaling<use_f32_scales = true, x_block_scaling_dim = 1, w_block_scaling_dim = 1>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// POS-LABEL: func.func @block_sm100
// POS: teq.autocast recipe(#teq.float8_block_scaling<>)
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @block_sm100(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.float8_block_scaling<>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// Delayed scaling with its state passed explicitly: forward (3 slots) inside
// the region, backward (2 slots) outside it, history length as the recipe's.
// POS-LABEL: func.func @delayed_with_state
// POS: teq.autocast recipe(#teq.delayed_scaling<amax_history_len = 16>)
// POS-NEXT: teq.linear_forward {{.*}} state(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<name = "fc1">) :
// POS: teq.linear_backward {{.*}} state(%{{.*}}, %{{.*}} : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<name = "fc1">) :
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed_with_state(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %s: tensor<3xf32>, %h: tensor<16x3xf32>, %bs: tensor<2xf32>, %bh: tensor<16x2xf32>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32>, tensor<16x2xf32>) {
    %y, %sx, %sw, %h1 = teq.autocast recipe(#teq.delayed_scaling<amax_history_len = 16>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32> {
      %o, %a, %b, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>) updated_amax_history(tensor<16x3xf32>)
      teq.yield %o, %a, %b, %h2 : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32>
    }
    %dx, %dw, %bh2 = teq.linear_backward %dy, %sx, %sw state(%bs, %bh : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) updated_amax_history(tensor<16x2xf32>)
    return %y, %dx, %dw, %h1, %bh2 : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32>, tensor<16x2xf32>
  }
}

// -----

// The default recipe of sm_90 (DelayedScaling, amax_history_len = 1024) with
// its state, and of sm_89 with CUDA 12.1 (FP8 on Ada is fine from 12.1).
// POS-LABEL: func.func @default_sm90_with_state
// POS: teq.autocast -> tensor<64x256xbf16> {
// POS-NEXT: teq.linear_forward {{.*}} state(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<1024x3xf32>)
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @default_sm90_with_state(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<1024x3xf32>) -> tensor<64x256xbf16> {
    %y = teq.autocast -> tensor<64x256xbf16> {
      %o, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<1024x3xf32>)
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// POS-LABEL: func.func @ada_cuda121
// POS: teq.autocast -> tensor<64x256xbf16> {
// POS: teq.autocast recipe(#teq.float8_current_scaling<>)
module attributes {teq.target = #teq.target<sm_89, cuda = "12.1">} {
  func.func @ada_cuda121(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<1024x3xf32>) -> (tensor<64x256xbf16>, tensor<64x256xbf16>) {
    %y = teq.autocast -> tensor<64x256xbf16> {
      %o, %h2 = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> updated_amax_history(tensor<1024x3xf32>)
      teq.yield %o : tensor<64x256xbf16>
    }
    %z = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y, %z : tensor<64x256xbf16>, tensor<64x256xbf16>
  }
}

// -----

// The default recipes of sm_100 (MXFP8BlockScaling) and sm_120
// (Float8CurrentScaling) need no state.
// POS-LABEL: func.func @default_sm100
// POS: teq.autocast -> tensor<64x256xbf16> {
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @default_sm100(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// POS-LABEL: func.func @default_sm120
// POS: teq.autocast -> tensor<64x256xbf16> {
module attributes {teq.target = #teq.target<sm_120>} {
  func.func @default_sm120(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

// -----

// Disabled regions run in high precision: no recipe check, no shape rule, no
// state, whatever recipe they name (TE checks recipes only when enabled).
// POS-LABEL: func.func @disabled_sm80
// POS: teq.autocast recipe(#teq.nvfp4_block_scaling<>) enabled(false)
// POS: teq.autocast recipe(#teq.delayed_scaling<>) enabled(false)
// POS: teq.autocast enabled(false)
module attributes {teq.target = #teq.target<sm_80>} {
  func.func @disabled_sm80(%x: tensor<30x100xbf16>, %w: tensor<250x100xbf16>) -> (tensor<30x250xbf16>, tensor<30x250xbf16>, tensor<30x250xbf16>) {
    %a = teq.autocast recipe(#teq.nvfp4_block_scaling<>) enabled(false) -> tensor<30x250xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<30x100xbf16>, tensor<250x100xbf16> -> tensor<30x250xbf16>
      teq.yield %o : tensor<30x250xbf16>
    }
    %b = teq.autocast recipe(#teq.delayed_scaling<>) enabled(false) -> tensor<30x250xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<30x100xbf16>, tensor<250x100xbf16> -> tensor<30x250xbf16>
      teq.yield %o : tensor<30x250xbf16>
    }
    %c = teq.autocast enabled(false) -> tensor<30x250xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<30x100xbf16>, tensor<250x100xbf16> -> tensor<30x250xbf16>
      teq.yield %o : tensor<30x250xbf16>
    }
    return %a, %b, %c : tensor<30x250xbf16>, tensor<30x250xbf16>, tensor<30x250xbf16>
  }
}

// -----

// A disabled region with an unsupported recipe inside a supported one: the
// inner Linear runs in high precision.
// POS-LABEL: func.func @disabled_inside_enabled
// POS: teq.autocast recipe(#teq.float8_current_scaling<>)
// POS: teq.autocast recipe(#teq.mxfp8_block_scaling<>) enabled(false)
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @disabled_inside_enabled(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %x30: tensor<30x128xbf16>) -> (tensor<64x256xbf16>, tensor<30x256xbf16>) {
    %y, %z = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<30x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      %i = teq.autocast recipe(#teq.mxfp8_block_scaling<>) enabled(false) -> tensor<30x256xbf16> {
        %o2 = teq.linear_forward %x30, %w config(#teq.linear<>) : tensor<30x128xbf16>, tensor<256x128xbf16> -> tensor<30x256xbf16>
        teq.yield %o2 : tensor<30x256xbf16>
      }
      teq.yield %o, %i : tensor<64x256xbf16>, tensor<30x256xbf16>
    }
    return %y, %z : tensor<64x256xbf16>, tensor<30x256xbf16>
  }
}

// -----

// High precision outside any region: no shape rule applies.
// POS-LABEL: func.func @no_region
// POS: teq.linear_forward {{.*}} : tensor<30x100xbf16>, tensor<250x100xbf16> -> tensor<30x250xbf16>
module attributes {teq.target = #teq.target<sm_80>} {
  func.func @no_region(%x: tensor<30x100xbf16>, %w: tensor<250x100xbf16>) -> tensor<30x250xbf16> {
    %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<30x100xbf16>, tensor<250x100xbf16> -> tensor<30x250xbf16>
    return %o : tensor<30x250xbf16>
  }
}

// -----

// A custom recipe whose rules cover every role, by name and catch-all.
// POS-LABEL: func.func @custom_complete
// POS: teq.autocast recipe(#teq.custom_recipe<[<tensor_type = weight, name = "fc1"> -> #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, <tensor_type = grad_output> -> #teq.float8_current_scaling_quantizer<f8E5M2>, <> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>)
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @custom_complete(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x256xbf16>) {
    %y, %z = teq.autocast recipe(#teq.custom_recipe<[<name = "fc1", tensor_type = weight> -> #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, <tensor_type = grad_output> -> #teq.float8_current_scaling_quantizer<f8E5M2>, <> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>) -> tensor<64x256xbf16>, tensor<64x256xbf16> {
      %o1 = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      %o2 = teq.linear_forward %x, %w config(#teq.linear<name = "fc2">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o1, %o2 : tensor<64x256xbf16>, tensor<64x256xbf16>
    }
    return %y, %z : tensor<64x256xbf16>, tensor<64x256xbf16>
  }
}

// -----

// A forward Linear whose input quantizer rounds stochastically (a
// CustomRecipe) takes the rng_state.
// POS-LABEL: func.func @sr_custom_forward_rng_state
// POS: teq.linear_forward {{.*}} rng_state(%{{.*}} : tensor<2xi64>) config(#teq.linear<name = "fc1">) :
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @sr_custom_forward_rng_state(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %rng: tensor<2xi64>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = input> -> #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, <> -> #teq.nvfp4_quantizer<f4E2M1FN>]>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w rng_state(%rng : tensor<2xi64>) config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

//--- no-target.mlir
// -----

// Without #teq.target there is nothing to check against.
// NOTARGET: error: no #teq.target on the module: recipe support depends on the GPU; add attributes {teq.target = #teq.target<sm_90>}
// expected-error @+1 {{no #teq.target on the module: recipe support depends on the GPU; add attributes {teq.target = #teq.target<sm_90>}}
module {
  func.func @no_target(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %o : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}
