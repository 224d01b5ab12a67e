// bench/tp_mlp_bench.py's programs (issue 17): the tensor/sequence parallel
// MLP for a "tp" group of 2 (column-parallel fc1, row-parallel fc2, sequence
// parallelism, current scaling, forward and backward; tanh between them) at
// 8192 tokens (4096 a rank), hidden 4096, FFN 16384 (8192 a rank), and the
// same MLP unsharded on one GPU (@mlp_forward / @mlp_backward). Written by
// the Python builder as python-bindings/test/Inputs/parallel-mlp.mlir is.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @tp_mlp_forward(%arg0: tensor<4096x4096xbf16> {teq.name = "x"}, %arg1: tensor<8192x4096xbf16> {teq.name = "fc1.weight"}, %arg2: tensor<4096x8192xbf16> {teq.name = "fc2.weight"}, %arg3: !teq.process_group {teq.name = "tp"}) -> (tensor<4096x4096xbf16> {teq.name = "output0"}, tensor<4096x4096xbf16> {teq.name = "fc1.saved_input"}, tensor<8192x4096xbf16> {teq.name = "fc1.saved_weight"}, tensor<8192x8192xbf16> {teq.name = "tanh1.result"}, tensor<8192x8192xbf16> {teq.name = "fc2.saved_input"}, tensor<4096x8192xbf16> {teq.name = "fc2.saved_weight"}) {
    %0:6 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<4096x4096xbf16>, tensor<8192x4096xbf16>, tensor<8192x8192xbf16>, tensor<4096x4096xbf16>, tensor<8192x8192xbf16>, tensor<4096x8192xbf16> {
      %output, %saved_input, %saved_weight = teq.linear_forward %arg0, %arg1 tp_group(%arg3) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, requires_dgrad = false, name = "fc1">) : tensor<4096x4096xbf16>, tensor<8192x4096xbf16> -> tensor<8192x8192xbf16> saved_input(tensor<4096x4096xbf16>) saved_weight(tensor<8192x4096xbf16>)
      %1 = math.tanh %output : tensor<8192x8192xbf16>
      %output_0, %saved_input_1, %saved_weight_2 = teq.linear_forward %1, %arg2 tp_group(%arg3) config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "fc2">) : tensor<8192x8192xbf16>, tensor<4096x8192xbf16> -> tensor<4096x4096xbf16> saved_input(tensor<8192x8192xbf16>) saved_weight(tensor<4096x8192xbf16>)
      teq.yield %saved_input, %saved_weight, %1, %output_0, %saved_input_1, %saved_weight_2 : tensor<4096x4096xbf16>, tensor<8192x4096xbf16>, tensor<8192x8192xbf16>, tensor<4096x4096xbf16>, tensor<8192x8192xbf16>, tensor<4096x8192xbf16>
    }
    return %0#3, %0#0, %0#1, %0#2, %0#4, %0#5 : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>, tensor<8192x4096xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<4096x8192xbf16>
  }
  func.func @tp_mlp_backward(%arg0: tensor<4096x4096xbf16> {teq.name = "grad_output0"}, %arg1: tensor<4096x4096xbf16> {teq.name = "fc1.saved_input"}, %arg2: tensor<8192x4096xbf16> {teq.name = "fc1.saved_weight"}, %arg3: tensor<8192x8192xbf16> {teq.name = "tanh1.result"}, %arg4: tensor<8192x8192xbf16> {teq.name = "fc2.saved_input"}, %arg5: tensor<4096x8192xbf16> {teq.name = "fc2.saved_weight"}, %arg6: !teq.process_group {teq.name = "tp"}) -> (tensor<8192x4096xbf16> {teq.name = "grad_fc1.weight"}, tensor<4096x8192xbf16> {teq.name = "grad_fc2.weight"}) {
    %0:2 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<4096x8192xbf16>, tensor<8192x4096xbf16> {
      %dgrad, %wgrad = teq.linear_backward %arg0, %arg4, %arg5 tp_group(%arg6) config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "fc2">) : tensor<4096x4096xbf16>, tensor<8192x8192xbf16>, tensor<4096x8192xbf16> dgrad(tensor<8192x8192xbf16>) wgrad(tensor<4096x8192xbf16>)
      %1 = arith.mulf %dgrad, %arg3 : tensor<8192x8192xbf16>
      %2 = arith.mulf %1, %arg3 : tensor<8192x8192xbf16>
      %3 = arith.subf %dgrad, %2 : tensor<8192x8192xbf16>
      %wgrad_0 = teq.linear_backward %3, %arg1, %arg2 tp_group(%arg6) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, requires_dgrad = false, name = "fc1">) : tensor<8192x8192xbf16>, tensor<4096x4096xbf16>, tensor<8192x4096xbf16> wgrad(tensor<8192x4096xbf16>)
      teq.yield %wgrad, %wgrad_0 : tensor<4096x8192xbf16>, tensor<8192x4096xbf16>
    }
    return %0#1, %0#0 : tensor<8192x4096xbf16>, tensor<4096x8192xbf16>
  }
  func.func @mlp_forward(%arg0: tensor<8192x4096xbf16> {teq.name = "x"}, %arg1: tensor<16384x4096xbf16> {teq.name = "fc1.weight"}, %arg2: tensor<4096x16384xbf16> {teq.name = "fc2.weight"}) -> (tensor<8192x4096xbf16> {teq.name = "output0"}, tensor<8192x4096xbf16> {teq.name = "fc1.saved_input"}, tensor<16384x4096xbf16> {teq.name = "fc1.saved_weight"}, tensor<8192x16384xbf16> {teq.name = "tanh1.result"}, tensor<8192x16384xbf16> {teq.name = "fc2.saved_input"}, tensor<4096x16384xbf16> {teq.name = "fc2.saved_weight"}) {
    %0:6 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<8192x4096xbf16>, tensor<16384x4096xbf16>, tensor<8192x16384xbf16>, tensor<8192x4096xbf16>, tensor<8192x16384xbf16>, tensor<4096x16384xbf16> {
      %output, %saved_input, %saved_weight = teq.linear_forward %arg0, %arg1 config(#teq.linear<requires_dgrad = false, name = "fc1">) : tensor<8192x4096xbf16>, tensor<16384x4096xbf16> -> tensor<8192x16384xbf16> saved_input(tensor<8192x4096xbf16>) saved_weight(tensor<16384x4096xbf16>)
      %1 = math.tanh %output : tensor<8192x16384xbf16>
      %output_0, %saved_input_1, %saved_weight_2 = teq.linear_forward %1, %arg2 config(#teq.linear<name = "fc2">) : tensor<8192x16384xbf16>, tensor<4096x16384xbf16> -> tensor<8192x4096xbf16> saved_input(tensor<8192x16384xbf16>) saved_weight(tensor<4096x16384xbf16>)
      teq.yield %saved_input, %saved_weight, %1, %output_0, %saved_input_1, %saved_weight_2 : tensor<8192x4096xbf16>, tensor<16384x4096xbf16>, tensor<8192x16384xbf16>, tensor<8192x4096xbf16>, tensor<8192x16384xbf16>, tensor<4096x16384xbf16>
    }
    return %0#3, %0#0, %0#1, %0#2, %0#4, %0#5 : tensor<8192x4096xbf16>, tensor<8192x4096xbf16>, tensor<16384x4096xbf16>, tensor<8192x16384xbf16>, tensor<8192x16384xbf16>, tensor<4096x16384xbf16>
  }
  func.func @mlp_backward(%arg0: tensor<8192x4096xbf16> {teq.name = "grad_output0"}, %arg1: tensor<8192x4096xbf16> {teq.name = "fc1.saved_input"}, %arg2: tensor<16384x4096xbf16> {teq.name = "fc1.saved_weight"}, %arg3: tensor<8192x16384xbf16> {teq.name = "tanh1.result"}, %arg4: tensor<8192x16384xbf16> {teq.name = "fc2.saved_input"}, %arg5: tensor<4096x16384xbf16> {teq.name = "fc2.saved_weight"}) -> (tensor<16384x4096xbf16> {teq.name = "grad_fc1.weight"}, tensor<4096x16384xbf16> {teq.name = "grad_fc2.weight"}) {
    %0:2 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<4096x16384xbf16>, tensor<16384x4096xbf16> {
      %dgrad, %wgrad = teq.linear_backward %arg0, %arg4, %arg5 config(#teq.linear<name = "fc2">) : tensor<8192x4096xbf16>, tensor<8192x16384xbf16>, tensor<4096x16384xbf16> dgrad(tensor<8192x16384xbf16>) wgrad(tensor<4096x16384xbf16>)
      %1 = arith.mulf %dgrad, %arg3 : tensor<8192x16384xbf16>
      %2 = arith.mulf %1, %arg3 : tensor<8192x16384xbf16>
      %3 = arith.subf %dgrad, %2 : tensor<8192x16384xbf16>
      %wgrad_0 = teq.linear_backward %3, %arg1, %arg2 config(#teq.linear<requires_dgrad = false, name = "fc1">) : tensor<8192x16384xbf16>, tensor<8192x4096xbf16>, tensor<16384x4096xbf16> wgrad(tensor<16384x4096xbf16>)
      teq.yield %wgrad, %wgrad_0 : tensor<4096x16384xbf16>, tensor<16384x4096xbf16>
    }
    return %0#1, %0#0 : tensor<16384x4096xbf16>, tensor<4096x16384xbf16>
  }
}
