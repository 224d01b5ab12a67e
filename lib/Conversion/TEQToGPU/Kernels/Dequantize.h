//===- Dequantize.h - Quantized values back in high precision ---*- C++ -*-===//
//
// teq.dequantize of per-tensor FP8 (TE's Float8Tensor.dequantize,
// nvte_dequantize): out[i] = OType(float(code[i]) * scale_inv), the product
// in f32 and rounded once (RNE) to the output dtype. Used where a Linear's
// backward runs on the forward's dequantized copies (backward_override =
// dequantized).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_DEQUANTIZE_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_DEQUANTIZE_H

#include "KernelBuilder.h"

namespace mlir::teq::kernels {

struct DequantizeSpec {
  int64_t elements = 0;
  bool e5m2 = false;               ///< the codes' FP8 format (else E4M3)
  InputType output = InputType::BF16;
};

/// `data` memref<elements x i8> (FP8 codes), `scaleInv` memref<1 x f32>,
/// `output` memref<elements x output>.
struct DequantizeBuffers {
  Value data, scaleInv, output;
};

/// Emits `<prefix>_dequantize` (grid-stride, one element a thread a step).
KernelGroup emitDequantize(const EmitContext &ctx, const DequantizeSpec &spec,
                           const DequantizeBuffers &buffers);

/// The f32 value of FP8 code `code` (i8), exactly: sign, exponent and
/// mantissa moved into f32's fields; subnormals as mantissa * 2^-9 (E4M3) or
/// 2^-16 (E5M2); E4M3's S.1111.111 and E5M2's exponent 31 are NaN / inf.
Value decodeFP8(ImplicitLocOpBuilder &b, Value code, bool e5m2);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_DEQUANTIZE_H
