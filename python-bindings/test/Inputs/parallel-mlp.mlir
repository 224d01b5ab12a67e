// The tensor/sequence parallel MLP of issue 17 on 2 ranks ("tp" group of 2),
// current scaling, forward and backward: a column-parallel fc1 (hidden 256
// -> FFN 2048, 1024 features a rank) and a row-parallel fc2 (2048 -> 256),
// with sequence parallelism (512 tokens, 256 a rank): x's amax all-reduced,
// x gathered in FP8, fprop, tanh, fprop, reduce-scatter of y; backward:
// dy's amax all-reduced and dy gathered in FP8, fc2's dgrad, tanh', x
// re-gathered in FP8 and transposed, both wgrads (fc1 needs no dgrad).
// @mlp_forward / @mlp_backward: the same MLP unsharded on one GPU (512
// tokens, FFN 2048), what the ranks' results are compared with
// (python-bindings/test/test_runtime_parallel.py).
// Written by the Python builder (teq.Program, as in test_compiler_program's
// test_tensor_and_sequence_parallel_linears, at these shapes).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @tp_mlp_forward(%arg0: tensor<256x256xbf16> {teq.name = "x"}, %arg1: tensor<1024x256xbf16> {teq.name = "fc1.weight"}, %arg2: tensor<256x1024xbf16> {teq.name = "fc2.weight"}, %arg3: !teq.process_group {teq.name = "tp"}) -> (tensor<256x256xbf16> {teq.name = "output0"}, tensor<256x256xbf16> {teq.name = "fc1.saved_input"}, tensor<1024x256xbf16> {teq.name = "fc1.saved_weight"}, tensor<512x1024xbf16> {teq.name = "tanh1.result"}, tensor<512x1024xbf16> {teq.name = "fc2.saved_input"}, tensor<256x1024xbf16> {teq.name = "fc2.saved_weight"}) {
    %0:6 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<256x256xbf16>, tensor<1024x256xbf16>, tensor<512x1024xbf16>, tensor<256x256xbf16>, tensor<512x1024xbf16>, tensor<256x1024xbf16> {
      %output, %saved_input, %saved_weight = teq.linear_forward %arg0, %arg1 tp_group(%arg3) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, requires_dgrad = false, name = "fc1">) : tensor<256x256xbf16>, tensor<1024x256xbf16> -> tensor<512x1024xbf16> saved_input(tensor<256x256xbf16>) saved_weight(tensor<1024x256xbf16>)
      %1 = math.tanh %output : tensor<512x1024xbf16>
      %output_0, %saved_input_1, %saved_weight_2 = teq.linear_forward %1, %arg2 tp_group(%arg3) config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "fc2">) : tensor<512x1024xbf16>, tensor<256x1024xbf16> -> tensor<256x256xbf16> saved_input(tensor<512x1024xbf16>) saved_weight(tensor<256x1024xbf16>)
      teq.yield %saved_input, %saved_weight, %1, %output_0, %saved_input_1, %saved_weight_2 : tensor<256x256xbf16>, tensor<1024x256xbf16>, tensor<512x1024xbf16>, tensor<256x256xbf16>, tensor<512x1024xbf16>, tensor<256x1024xbf16>
    }
    return %0#3, %0#0, %0#1, %0#2, %0#4, %0#5 : tensor<256x256xbf16>, tensor<256x256xbf16>, tensor<1024x256xbf16>, tensor<512x1024xbf16>, tensor<512x1024xbf16>, tensor<256x1024xbf16>
  }
  func.func @tp_mlp_backward(%arg0: tensor<256x256xbf16> {teq.name = "grad_output0"}, %arg1: tensor<256x256xbf16> {teq.name = "fc1.saved_input"}, %arg2: tensor<1024x256xbf16> {teq.name = "fc1.saved_weight"}, %arg3: tensor<512x1024xbf16> {teq.name = "tanh1.result"}, %arg4: tensor<512x1024xbf16> {teq.name = "fc2.saved_input"}, %arg5: tensor<256x1024xbf16> {teq.name = "fc2.saved_weight"}, %arg6: !teq.process_group {teq.name = "tp"}) -> (tensor<1024x256xbf16> {teq.name = "grad_fc1.weight"}, tensor<256x1024xbf16> {teq.name = "grad_fc2.weight"}) {
    %0:2 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<256x1024xbf16>, tensor<1024x256xbf16> {
      %dgrad, %wgrad = teq.linear_backward %arg0, %arg4, %arg5 tp_group(%arg6) config(#teq.linear<parallel_mode = row, sequence_parallel = true, tp_size = 2, name = "fc2">) : tensor<256x256xbf16>, tensor<512x1024xbf16>, tensor<256x1024xbf16> dgrad(tensor<512x1024xbf16>) wgrad(tensor<256x1024xbf16>)
      %1 = arith.mulf %dgrad, %arg3 : tensor<512x1024xbf16>
      %2 = arith.mulf %1, %arg3 : tensor<512x1024xbf16>
      %3 = arith.subf %dgrad, %2 : tensor<512x1024xbf16>
      %wgrad_0 = teq.linear_backward %3, %arg1, %arg2 tp_group(%arg6) config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, requires_dgrad = false, name = "fc1">) : tensor<512x1024xbf16>, tensor<256x256xbf16>, tensor<1024x256xbf16> wgrad(tensor<1024x256xbf16>)
      teq.yield %wgrad, %wgrad_0 : tensor<256x1024xbf16>, tensor<1024x256xbf16>
    }
    return %0#1, %0#0 : tensor<1024x256xbf16>, tensor<256x1024xbf16>
  }
  func.func @mlp_forward(%arg0: tensor<512x256xbf16> {teq.name = "x"}, %arg1: tensor<2048x256xbf16> {teq.name = "fc1.weight"}, %arg2: tensor<256x2048xbf16> {teq.name = "fc2.weight"}) -> (tensor<512x256xbf16> {teq.name = "output0"}, tensor<512x256xbf16> {teq.name = "fc1.saved_input"}, tensor<2048x256xbf16> {teq.name = "fc1.saved_weight"}, tensor<512x2048xbf16> {teq.name = "tanh1.result"}, tensor<512x2048xbf16> {teq.name = "fc2.saved_input"}, tensor<256x2048xbf16> {teq.name = "fc2.saved_weight"}) {
    %0:6 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<512x256xbf16>, tensor<2048x256xbf16>, tensor<512x2048xbf16>, tensor<512x256xbf16>, tensor<512x2048xbf16>, tensor<256x2048xbf16> {
      %output, %saved_input, %saved_weight = teq.linear_forward %arg0, %arg1 config(#teq.linear<requires_dgrad = false, name = "fc1">) : tensor<512x256xbf16>, tensor<2048x256xbf16> -> tensor<512x2048xbf16> saved_input(tensor<512x256xbf16>) saved_weight(tensor<2048x256xbf16>)
      %1 = math.tanh %output : tensor<512x2048xbf16>
      %output_0, %saved_input_1, %saved_weight_2 = teq.linear_forward %1, %arg2 config(#teq.linear<name = "fc2">) : tensor<512x2048xbf16>, tensor<256x2048xbf16> -> tensor<512x256xbf16> saved_input(tensor<512x2048xbf16>) saved_weight(tensor<256x2048xbf16>)
      teq.yield %saved_input, %saved_weight, %1, %output_0, %saved_input_1, %saved_weight_2 : tensor<512x256xbf16>, tensor<2048x256xbf16>, tensor<512x2048xbf16>, tensor<512x256xbf16>, tensor<512x2048xbf16>, tensor<256x2048xbf16>
    }
    return %0#3, %0#0, %0#1, %0#2, %0#4, %0#5 : tensor<512x256xbf16>, tensor<512x256xbf16>, tensor<2048x256xbf16>, tensor<512x2048xbf16>, tensor<512x2048xbf16>, tensor<256x2048xbf16>
  }
  func.func @mlp_backward(%arg0: tensor<512x256xbf16> {teq.name = "grad_output0"}, %arg1: tensor<512x256xbf16> {teq.name = "fc1.saved_input"}, %arg2: tensor<2048x256xbf16> {teq.name = "fc1.saved_weight"}, %arg3: tensor<512x2048xbf16> {teq.name = "tanh1.result"}, %arg4: tensor<512x2048xbf16> {teq.name = "fc2.saved_input"}, %arg5: tensor<256x2048xbf16> {teq.name = "fc2.saved_weight"}) -> (tensor<2048x256xbf16> {teq.name = "grad_fc1.weight"}, tensor<256x2048xbf16> {teq.name = "grad_fc2.weight"}) {
    %0:2 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<256x2048xbf16>, tensor<2048x256xbf16> {
      %dgrad, %wgrad = teq.linear_backward %arg0, %arg4, %arg5 config(#teq.linear<name = "fc2">) : tensor<512x256xbf16>, tensor<512x2048xbf16>, tensor<256x2048xbf16> dgrad(tensor<512x2048xbf16>) wgrad(tensor<256x2048xbf16>)
      %1 = arith.mulf %dgrad, %arg3 : tensor<512x2048xbf16>
      %2 = arith.mulf %1, %arg3 : tensor<512x2048xbf16>
      %3 = arith.subf %dgrad, %2 : tensor<512x2048xbf16>
      %wgrad_0 = teq.linear_backward %3, %arg1, %arg2 config(#teq.linear<requires_dgrad = false, name = "fc1">) : tensor<512x2048xbf16>, tensor<512x256xbf16>, tensor<2048x256xbf16> wgrad(tensor<2048x256xbf16>)
      teq.yield %wgrad, %wgrad_0 : tensor<256x2048xbf16>, tensor<2048x256xbf16>
    }
    return %0#1, %0#0 : tensor<2048x256xbf16>, tensor<256x2048xbf16>
  }
}
