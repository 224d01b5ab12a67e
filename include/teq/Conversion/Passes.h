//===- Passes.h - Lowerings out of the teq dialect --------------*- C++ -*-===//

#ifndef TEQ_CONVERSION_PASSES_H
#define TEQ_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::teq {

#define GEN_PASS_DECL
#include "teq/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "teq/Conversion/Passes.h.inc"

} // namespace mlir::teq

#endif // TEQ_CONVERSION_PASSES_H
