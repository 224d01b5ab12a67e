// Tensor / sequence parallel entries for test_runtime_parallel.py, run on two
// ranks (one thread and GPU each) with a "tp" communicator of 2:
//   @row_linear      a row-parallel Linear in bf16: the local GEMM's partial
//                    output all-reduced (te-semantics.md §7)
//   @sp_input        a column-parallel SP Linear's input: quantized with
//                    current scaling, its amax all-reduced (max) over the
//                    group, then all-gathered in FP8
//   @quantize_full   the same full tensor quantized on one GPU: what every
//                    rank's gathered buffers must equal bit for bit
//   @reduce_scatter  a row-parallel SP output: summed, scattered along dim 0
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @row_linear(%x: tensor<128x64xbf16>, %w: tensor<256x64xbf16>, %tp: !teq.process_group) -> tensor<128x256xbf16> {
    %y = teq.autocast enabled(false) -> tensor<128x256xbf16> {
      %out, %sa, %sb = teq.linear_forward %x, %w tp_group(%tp) config(#teq.linear<parallel_mode = row, tp_size = 2>) : tensor<128x64xbf16>, tensor<256x64xbf16> -> tensor<128x256xbf16> saved_input(tensor<128x64xbf16>) saved_weight(tensor<256x64xbf16>)
      teq.yield %out : tensor<128x256xbf16>
    }
    return %y : tensor<128x256xbf16>
  }
  func.func @sp_input(%x: tensor<64x256xbf16>, %tp: !teq.process_group) -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise> {
    %q = teq.quantize %x amax_reduction_group(%tp) : tensor<64x256xbf16> -> !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
    %full = teq.all_gather %q, %tp {tp_size = 2 : i64} : !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise> -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
    return %full : !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise>
  }
  func.func @quantize_full(%x: tensor<128x256xbf16>) -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> {
    %q = teq.quantize %x : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    return %q : !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  }
  func.func @reduce_scatter(%y: tensor<128x256xbf16>, %tp: !teq.process_group) -> tensor<64x256xbf16> {
    %part = teq.reduce_scatter %y, %tp {tp_size = 2 : i64} : tensor<128x256xbf16> -> tensor<64x256xbf16>
    return %part : tensor<64x256xbf16>
  }
}
