// Linear accuracy inputs (test/GPU/linear-accuracy.test runs
// test/GPU/linear_accuracy.py on every entry): one TE Linear forward and
// backward (x:[M,K], w:[N,K], dy:[M,N], bf16; y = x*w^T (+ bias),
// dx = dy*w, dw = dy^T*x (, dbias = sum of dy over rows)) under
// Float8CurrentScaling (E4M3 x/w, E5M2 dy, fprop fast accumulation) and
// Float8BlockScaling (1x128 x/dy, 128x128 w, E4M3, split accumulation).
// The script compares each output's error against a float64 reference with
// PyTorch's own FP8 path on the same inputs (te-semantics.md §1.3, §1.5, §6).
// Argument order the script relies on: inputs x, w, [bias], dy; results
// y, dx, dw, [dbias].
// Entry names: linear_<recipe>[_bias]_m<M>_k<K>_n<N>.
module attributes {teq.target = #teq.target<sm_90>} {

  func.func @linear_current_m256_k512_n1024(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %dy: tensor<256x1024xbf16>)
      -> (tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<256x512xbf16>, tensor<1024x512xbf16> -> tensor<256x1024xbf16>
            saved_input(tensor<256x512xbf16>) saved_weight(tensor<1024x512xbf16>)
      %gx, %gw = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc">)
          : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
            dgrad(tensor<256x512xbf16>) wgrad(tensor<1024x512xbf16>)
      teq.yield %out, %gx, %gw : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
    }
    return %y, %dx, %dw : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
  }

  func.func @linear_current_m2048_k1024_n4096(%x: tensor<2048x1024xbf16>, %w: tensor<4096x1024xbf16>, %dy: tensor<2048x4096xbf16>)
      -> (tensor<2048x4096xbf16>, tensor<2048x1024xbf16>, tensor<4096x1024xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<2048x4096xbf16>, tensor<2048x1024xbf16>, tensor<4096x1024xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<2048x1024xbf16>, tensor<4096x1024xbf16> -> tensor<2048x4096xbf16>
            saved_input(tensor<2048x1024xbf16>) saved_weight(tensor<4096x1024xbf16>)
      %gx, %gw = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc">)
          : tensor<2048x4096xbf16>, tensor<2048x1024xbf16>, tensor<4096x1024xbf16>
            dgrad(tensor<2048x1024xbf16>) wgrad(tensor<4096x1024xbf16>)
      teq.yield %out, %gx, %gw : tensor<2048x4096xbf16>, tensor<2048x1024xbf16>, tensor<4096x1024xbf16>
    }
    return %y, %dx, %dw : tensor<2048x4096xbf16>, tensor<2048x1024xbf16>, tensor<4096x1024xbf16>
  }

  func.func @linear_current_bias_m256_k512_n1024(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %b: tensor<1024xbf16>, %dy: tensor<256x1024xbf16>)
      -> (tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>) {
    %y, %dx, %dw, %db = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w bias(%b : tensor<1024xbf16>) config(#teq.linear<name = "fc", bias = true>)
          : tensor<256x512xbf16>, tensor<1024x512xbf16> -> tensor<256x1024xbf16>
            saved_input(tensor<256x512xbf16>) saved_weight(tensor<1024x512xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc", bias = true>)
          : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
            dgrad(tensor<256x512xbf16>) wgrad(tensor<1024x512xbf16>) dbias(tensor<1024xbf16>)
      teq.yield %out, %gx, %gw, %gb : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>
    }
    return %y, %dx, %dw, %db : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>
  }

  func.func @linear_block_m256_k512_n1024(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %dy: tensor<256x1024xbf16>)
      -> (tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_block_scaling<>)
        -> tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<256x512xbf16>, tensor<1024x512xbf16> -> tensor<256x1024xbf16>
            saved_input(tensor<256x512xbf16>) saved_weight(tensor<1024x512xbf16>)
      %gx, %gw = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc">)
          : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
            dgrad(tensor<256x512xbf16>) wgrad(tensor<1024x512xbf16>)
      teq.yield %out, %gx, %gw : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
    }
    return %y, %dx, %dw : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
  }

  func.func @linear_block_m2048_k1024_n4096(%x: tensor<2048x1024xbf16>, %w: tensor<4096x1024xbf16>, %dy: tensor<2048x4096xbf16>)
      -> (tensor<2048x4096xbf16>, tensor<2048x1024xbf16>, tensor<4096x1024xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_block_scaling<>)
        -> tensor<2048x4096xbf16>, tensor<2048x1024xbf16>, tensor<4096x1024xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<2048x1024xbf16>, tensor<4096x1024xbf16> -> tensor<2048x4096xbf16>
            saved_input(tensor<2048x1024xbf16>) saved_weight(tensor<4096x1024xbf16>)
      %gx, %gw = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc">)
          : tensor<2048x4096xbf16>, tensor<2048x1024xbf16>, tensor<4096x1024xbf16>
            dgrad(tensor<2048x1024xbf16>) wgrad(tensor<4096x1024xbf16>)
      teq.yield %out, %gx, %gw : tensor<2048x4096xbf16>, tensor<2048x1024xbf16>, tensor<4096x1024xbf16>
    }
    return %y, %dx, %dw : tensor<2048x4096xbf16>, tensor<2048x1024xbf16>, tensor<4096x1024xbf16>
  }

  func.func @linear_block_bias_m256_k512_n1024(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %b: tensor<1024xbf16>, %dy: tensor<256x1024xbf16>)
      -> (tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>) {
    %y, %dx, %dw, %db = teq.autocast recipe(#teq.float8_block_scaling<>)
        -> tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w bias(%b : tensor<1024xbf16>) config(#teq.linear<name = "fc", bias = true>)
          : tensor<256x512xbf16>, tensor<1024x512xbf16> -> tensor<256x1024xbf16>
            saved_input(tensor<256x512xbf16>) saved_weight(tensor<1024x512xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc", bias = true>)
          : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
            dgrad(tensor<256x512xbf16>) wgrad(tensor<1024x512xbf16>) dbias(tensor<1024xbf16>)
      teq.yield %out, %gx, %gw, %gb : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>
    }
    return %y, %dx, %dw, %db : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>
  }
}
