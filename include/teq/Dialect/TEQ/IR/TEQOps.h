//===- TEQOps.h - Operations of the teq dialect -----------------*- C++ -*-===//

#ifndef TEQ_DIALECT_TEQ_IR_TEQOPS_H
#define TEQ_DIALECT_TEQ_IR_TEQOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "teq/Dialect/TEQ/IR/TEQAttrs.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Dialect/TEQ/IR/TEQTypes.h"

#define GET_OP_CLASSES
#include "teq/Dialect/TEQ/IR/TEQOps.h.inc"

namespace mlir::teq {
/// The output shape of a Linear with this local input and weight shape
/// ([*, in] and [out, in]) and options: [*, out], the leading (sequence)
/// dimension gathered (column parallel) or scattered (row parallel) under
/// sequence parallelism (te-semantics.md §7). Errors name the mismatch.
FailureOr<SmallVector<int64_t>>
getLinearOutputShape(function_ref<InFlightDiagnostic()> emitError,
                     ArrayRef<int64_t> input, ArrayRef<int64_t> weight,
                     LinearConfigAttr config);

/// Why TE's quantizer `q` refuses a tensor of this shape and element type
/// (te-semantics.md §3: MXFP8 needs >= 2 dimensions with the leading product
/// and the last dimension multiples of 32, NVFP4 of 16; NVFP4 RHT needs
/// bf16), or nullopt if it quantizes it. Checked by teq.quantize and, with
/// the recipe named, by teq-check-recipe-support on Linears.
std::optional<std::string> quantizableShapeError(QuantizerAttrInterface q,
                                                 ArrayRef<int64_t> shape,
                                                 Type element);
} // namespace mlir::teq

#endif // TEQ_DIALECT_TEQ_IR_TEQOPS_H
