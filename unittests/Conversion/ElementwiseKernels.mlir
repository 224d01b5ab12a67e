// The elementwise clusters whose fused kernels ElementwiseEmulationTest runs
// on the CPU (see CMakeLists.txt), one block a call, the threads of a block
// one after another (--teq-test-kernels-to-cpu):
//   @chain (e0):  tanh's backward dh = da - (da * a) * a, bf16, 32768
//                 elements (16 blocks; vectors only);
//   @consts (e1): bf16 with splat constants, a divf, an intermediate also
//                 returned (two outputs); 37x29 = 1073 elements (1072 as
//                 vectors, one at a time past them);
//   @mixed (e2):  f32 and f16 tensors, extf and truncf, 33x7 elements;
//   @dequant_e4m3 (d3), @dequant_e5m2 (d4): teq.dequantize of every FP8
//                 code (Kernels/Dequantize.h).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @chain(%da: tensor<64x512xbf16>, %a: tensor<64x512xbf16>) -> tensor<64x512xbf16> {
    %p = arith.mulf %da, %a : tensor<64x512xbf16>
    %q = arith.mulf %p, %a : tensor<64x512xbf16>
    %dh = arith.subf %da, %q : tensor<64x512xbf16>
    return %dh : tensor<64x512xbf16>
  }
  func.func @consts(%h: tensor<37x29xbf16>, %g: tensor<37x29xbf16>) -> (tensor<37x29xbf16>, tensor<37x29xbf16>) {
    %k = arith.constant dense<0.044715> : tensor<37x29xbf16>
    %one = arith.constant dense<1.0> : tensor<37x29xbf16>
    %h2 = arith.mulf %h, %h : tensor<37x29xbf16>
    %c = arith.mulf %k, %h2 : tensor<37x29xbf16>
    %s = arith.addf %h, %c : tensor<37x29xbf16>
    %d = arith.divf %s, %g : tensor<37x29xbf16>
    %e = arith.subf %one, %d : tensor<37x29xbf16>
    return %s, %e : tensor<37x29xbf16>, tensor<37x29xbf16>
  }
  func.func @mixed(%x: tensor<33x7xf32>, %y: tensor<33x7xf16>) -> (tensor<33x7xf16>, tensor<33x7xf32>) {
    %two = arith.constant dense<2.5> : tensor<33x7xf32>
    %yf = arith.extf %y : tensor<33x7xf16> to tensor<33x7xf32>
    %m = arith.mulf %x, %yf : tensor<33x7xf32>
    %s = arith.addf %m, %two : tensor<33x7xf32>
    %n = arith.truncf %s : tensor<33x7xf32> to tensor<33x7xf16>
    %nf = arith.extf %n : tensor<33x7xf16> to tensor<33x7xf32>
    %d = arith.divf %nf, %x : tensor<33x7xf32>
    return %n, %d : tensor<33x7xf16>, tensor<33x7xf32>
  }
  // teq.dequantize of per-tensor FP8 (Kernels/Dequantize.h): every code of
  // E4M3 to bf16 (d3) and of E5M2 to f32 (d4).
  func.func @dequant_e4m3(%q: !teq.proto<16x16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>) -> tensor<16x16xbf16> {
    %x = teq.dequantize %q : !teq.proto<16x16xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> -> tensor<16x16xbf16>
    return %x : tensor<16x16xbf16>
  }
  func.func @dequant_e5m2(%q: !teq.proto<16x16xf32, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise>) -> tensor<16x16xf32> {
    %x = teq.dequantize %q : !teq.proto<16x16xf32, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise> -> tensor<16x16xf32>
    return %x : tensor<16x16xf32>
  }
}
