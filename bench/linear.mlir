// Linear benchmark inputs (bench/linear_bench.py): one TE Linear (y = x*w^T,
// dx = dy*w, dw = dy^T*x; x:[M,K], w:[N,K], dy:[M,N], bf16 activations) at
// GEMM-bound sizes, under Float8CurrentScaling and Float8BlockScaling
// (te-semantics.md §1.3, §1.5, §6). Entries, for each (M,K,N):
//   fwd_<recipe>_M_K_N(x, w) -> y                 quantize x, w + fprop GEMM
//   fwdbwd_<recipe>_M_K_N(x, w, dy) -> y, dx, dw  forward and backward
//   gemm_current_M_K_N(wq, xq) -> y               the FP8 fprop GEMM alone on
//       pre-quantized E4M3 per-tensor operands (TN, fast accumulation, as the
//       current-scaling recipe runs fprop); te-run fills them by quantizing
//       N(0,1) with its CPU reference.
// scripts/gpu-prepare compiles every bench/*.mlir to .artifacts/<name>.so.
module attributes {teq.target = #teq.target<sm_90>} {

  func.func @fwd_current_8192_8192_8192(%x: tensor<8192x8192xbf16>, %w: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<8192x8192xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<8192x8192xbf16>, tensor<8192x8192xbf16> -> tensor<8192x8192xbf16>
      teq.yield %out : tensor<8192x8192xbf16>
    }
    return %y : tensor<8192x8192xbf16>
  }
  func.func @fwdbwd_current_8192_8192_8192(%x: tensor<8192x8192xbf16>, %w: tensor<8192x8192xbf16>, %dy: tensor<8192x8192xbf16>)
      -> (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<8192x8192xbf16>, tensor<8192x8192xbf16> -> tensor<8192x8192xbf16>
            saved_input(tensor<8192x8192xbf16>) saved_weight(tensor<8192x8192xbf16>)
      %gx, %gw = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc">)
          : tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>
            dgrad(tensor<8192x8192xbf16>) wgrad(tensor<8192x8192xbf16>)
      teq.yield %out, %gx, %gw : tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>
    }
    return %y, %dx, %dw : tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>
  }

  func.func @fwd_block_8192_8192_8192(%x: tensor<8192x8192xbf16>, %w: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
    %y = teq.autocast recipe(#teq.float8_block_scaling<>) -> tensor<8192x8192xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<8192x8192xbf16>, tensor<8192x8192xbf16> -> tensor<8192x8192xbf16>
      teq.yield %out : tensor<8192x8192xbf16>
    }
    return %y : tensor<8192x8192xbf16>
  }
  func.func @fwdbwd_block_8192_8192_8192(%x: tensor<8192x8192xbf16>, %w: tensor<8192x8192xbf16>, %dy: tensor<8192x8192xbf16>)
      -> (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_block_scaling<>)
        -> tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<8192x8192xbf16>, tensor<8192x8192xbf16> -> tensor<8192x8192xbf16>
            saved_input(tensor<8192x8192xbf16>) saved_weight(tensor<8192x8192xbf16>)
      %gx, %gw = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc">)
          : tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>
            dgrad(tensor<8192x8192xbf16>) wgrad(tensor<8192x8192xbf16>)
      teq.yield %out, %gx, %gw : tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>
    }
    return %y, %dx, %dw : tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>
  }

  func.func @gemm_current_8192_8192_8192(%wq: !teq.proto<8192x8192xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>,
                                %xq: !teq.proto<8192x8192xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>) -> tensor<8192x8192xbf16> {
    %y = teq.gemm TN %wq, %xq {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false}
        : !teq.proto<8192x8192xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<8192x8192xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> tensor<8192x8192xbf16>
    return %y : tensor<8192x8192xbf16>
  }

  func.func @fwd_current_16384_4096_4096(%x: tensor<16384x4096xbf16>, %w: tensor<4096x4096xbf16>) -> tensor<16384x4096xbf16> {
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<16384x4096xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<16384x4096xbf16>, tensor<4096x4096xbf16> -> tensor<16384x4096xbf16>
      teq.yield %out : tensor<16384x4096xbf16>
    }
    return %y : tensor<16384x4096xbf16>
  }
  func.func @fwdbwd_current_16384_4096_4096(%x: tensor<16384x4096xbf16>, %w: tensor<4096x4096xbf16>, %dy: tensor<16384x4096xbf16>)
      -> (tensor<16384x4096xbf16>, tensor<16384x4096xbf16>, tensor<4096x4096xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<16384x4096xbf16>, tensor<16384x4096xbf16>, tensor<4096x4096xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<16384x4096xbf16>, tensor<4096x4096xbf16> -> tensor<16384x4096xbf16>
            saved_input(tensor<16384x4096xbf16>) saved_weight(tensor<4096x4096xbf16>)
      %gx, %gw = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc">)
          : tensor<16384x4096xbf16>, tensor<16384x4096xbf16>, tensor<4096x4096xbf16>
            dgrad(tensor<16384x4096xbf16>) wgrad(tensor<4096x4096xbf16>)
      teq.yield %out, %gx, %gw : tensor<16384x4096xbf16>, tensor<16384x4096xbf16>, tensor<4096x4096xbf16>
    }
    return %y, %dx, %dw : tensor<16384x4096xbf16>, tensor<16384x4096xbf16>, tensor<4096x4096xbf16>
  }

  func.func @fwd_block_16384_4096_4096(%x: tensor<16384x4096xbf16>, %w: tensor<4096x4096xbf16>) -> tensor<16384x4096xbf16> {
    %y = teq.autocast recipe(#teq.float8_block_scaling<>) -> tensor<16384x4096xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<16384x4096xbf16>, tensor<4096x4096xbf16> -> tensor<16384x4096xbf16>
      teq.yield %out : tensor<16384x4096xbf16>
    }
    return %y : tensor<16384x4096xbf16>
  }
  func.func @fwdbwd_block_16384_4096_4096(%x: tensor<16384x4096xbf16>, %w: tensor<4096x4096xbf16>, %dy: tensor<16384x4096xbf16>)
      -> (tensor<16384x4096xbf16>, tensor<16384x4096xbf16>, tensor<4096x4096xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_block_scaling<>)
        -> tensor<16384x4096xbf16>, tensor<16384x4096xbf16>, tensor<4096x4096xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<16384x4096xbf16>, tensor<4096x4096xbf16> -> tensor<16384x4096xbf16>
            saved_input(tensor<16384x4096xbf16>) saved_weight(tensor<4096x4096xbf16>)
      %gx, %gw = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc">)
          : tensor<16384x4096xbf16>, tensor<16384x4096xbf16>, tensor<4096x4096xbf16>
            dgrad(tensor<16384x4096xbf16>) wgrad(tensor<4096x4096xbf16>)
      teq.yield %out, %gx, %gw : tensor<16384x4096xbf16>, tensor<16384x4096xbf16>, tensor<4096x4096xbf16>
    }
    return %y, %dx, %dw : tensor<16384x4096xbf16>, tensor<16384x4096xbf16>, tensor<4096x4096xbf16>
  }

  func.func @gemm_current_16384_4096_4096(%wq: !teq.proto<4096x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>,
                                %xq: !teq.proto<16384x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>) -> tensor<16384x4096xbf16> {
    %y = teq.gemm TN %wq, %xq {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false}
        : !teq.proto<4096x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<16384x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> tensor<16384x4096xbf16>
    return %y : tensor<16384x4096xbf16>
  }

  func.func @fwd_current_4096_4096_4096(%x: tensor<4096x4096xbf16>, %w: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<4096x4096xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
      teq.yield %out : tensor<4096x4096xbf16>
    }
    return %y : tensor<4096x4096xbf16>
  }
  func.func @fwdbwd_current_4096_4096_4096(%x: tensor<4096x4096xbf16>, %w: tensor<4096x4096xbf16>, %dy: tensor<4096x4096xbf16>)
      -> (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<4096x4096xbf16>, tensor<4096x4096xbf16>, tensor<4096x4096xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
            saved_input(tensor<4096x4096xbf16>) saved_weight(tensor<4096x4096xbf16>)
      %gx, %gw = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc">)
          : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>, tensor<4096x4096xbf16>
            dgrad(tensor<4096x4096xbf16>) wgrad(tensor<4096x4096xbf16>)
      teq.yield %out, %gx, %gw : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>, tensor<4096x4096xbf16>
    }
    return %y, %dx, %dw : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>, tensor<4096x4096xbf16>
  }

  func.func @fwd_block_4096_4096_4096(%x: tensor<4096x4096xbf16>, %w: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
    %y = teq.autocast recipe(#teq.float8_block_scaling<>) -> tensor<4096x4096xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
      teq.yield %out : tensor<4096x4096xbf16>
    }
    return %y : tensor<4096x4096xbf16>
  }
  func.func @fwdbwd_block_4096_4096_4096(%x: tensor<4096x4096xbf16>, %w: tensor<4096x4096xbf16>, %dy: tensor<4096x4096xbf16>)
      -> (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_block_scaling<>)
        -> tensor<4096x4096xbf16>, tensor<4096x4096xbf16>, tensor<4096x4096xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
            saved_input(tensor<4096x4096xbf16>) saved_weight(tensor<4096x4096xbf16>)
      %gx, %gw = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc">)
          : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>, tensor<4096x4096xbf16>
            dgrad(tensor<4096x4096xbf16>) wgrad(tensor<4096x4096xbf16>)
      teq.yield %out, %gx, %gw : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>, tensor<4096x4096xbf16>
    }
    return %y, %dx, %dw : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>, tensor<4096x4096xbf16>
  }

  func.func @gemm_current_4096_4096_4096(%wq: !teq.proto<4096x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>,
                                %xq: !teq.proto<4096x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>) -> tensor<4096x4096xbf16> {
    %y = teq.gemm TN %wq, %xq {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false}
        : !teq.proto<4096x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<4096x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> tensor<4096x4096xbf16>
    return %y : tensor<4096x4096xbf16>
  }

  func.func @fwd_current_2048_2048_2048(%x: tensor<2048x2048xbf16>, %w: tensor<2048x2048xbf16>) -> tensor<2048x2048xbf16> {
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<2048x2048xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<2048x2048xbf16>, tensor<2048x2048xbf16> -> tensor<2048x2048xbf16>
      teq.yield %out : tensor<2048x2048xbf16>
    }
    return %y : tensor<2048x2048xbf16>
  }
  func.func @fwdbwd_current_2048_2048_2048(%x: tensor<2048x2048xbf16>, %w: tensor<2048x2048xbf16>, %dy: tensor<2048x2048xbf16>)
      -> (tensor<2048x2048xbf16>, tensor<2048x2048xbf16>, tensor<2048x2048xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<2048x2048xbf16>, tensor<2048x2048xbf16>, tensor<2048x2048xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<2048x2048xbf16>, tensor<2048x2048xbf16> -> tensor<2048x2048xbf16>
            saved_input(tensor<2048x2048xbf16>) saved_weight(tensor<2048x2048xbf16>)
      %gx, %gw = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc">)
          : tensor<2048x2048xbf16>, tensor<2048x2048xbf16>, tensor<2048x2048xbf16>
            dgrad(tensor<2048x2048xbf16>) wgrad(tensor<2048x2048xbf16>)
      teq.yield %out, %gx, %gw : tensor<2048x2048xbf16>, tensor<2048x2048xbf16>, tensor<2048x2048xbf16>
    }
    return %y, %dx, %dw : tensor<2048x2048xbf16>, tensor<2048x2048xbf16>, tensor<2048x2048xbf16>
  }

  func.func @fwd_block_2048_2048_2048(%x: tensor<2048x2048xbf16>, %w: tensor<2048x2048xbf16>) -> tensor<2048x2048xbf16> {
    %y = teq.autocast recipe(#teq.float8_block_scaling<>) -> tensor<2048x2048xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<2048x2048xbf16>, tensor<2048x2048xbf16> -> tensor<2048x2048xbf16>
      teq.yield %out : tensor<2048x2048xbf16>
    }
    return %y : tensor<2048x2048xbf16>
  }
  func.func @fwdbwd_block_2048_2048_2048(%x: tensor<2048x2048xbf16>, %w: tensor<2048x2048xbf16>, %dy: tensor<2048x2048xbf16>)
      -> (tensor<2048x2048xbf16>, tensor<2048x2048xbf16>, tensor<2048x2048xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_block_scaling<>)
        -> tensor<2048x2048xbf16>, tensor<2048x2048xbf16>, tensor<2048x2048xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<2048x2048xbf16>, tensor<2048x2048xbf16> -> tensor<2048x2048xbf16>
            saved_input(tensor<2048x2048xbf16>) saved_weight(tensor<2048x2048xbf16>)
      %gx, %gw = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc">)
          : tensor<2048x2048xbf16>, tensor<2048x2048xbf16>, tensor<2048x2048xbf16>
            dgrad(tensor<2048x2048xbf16>) wgrad(tensor<2048x2048xbf16>)
      teq.yield %out, %gx, %gw : tensor<2048x2048xbf16>, tensor<2048x2048xbf16>, tensor<2048x2048xbf16>
    }
    return %y, %dx, %dw : tensor<2048x2048xbf16>, tensor<2048x2048xbf16>, tensor<2048x2048xbf16>
  }

  func.func @gemm_current_2048_2048_2048(%wq: !teq.proto<2048x2048xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>,
                                %xq: !teq.proto<2048x2048xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>) -> tensor<2048x2048xbf16> {
    %y = teq.gemm TN %wq, %xq {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false}
        : !teq.proto<2048x2048xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<2048x2048xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> tensor<2048x2048xbf16>
    return %y : tensor<2048x2048xbf16>
  }
}
