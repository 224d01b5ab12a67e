//===- TEQTypes.h - Quantized tensor prototypes -----------------*- C++ -*-===//

#ifndef TEQ_DIALECT_TEQ_IR_TEQTYPES_H
#define TEQ_DIALECT_TEQ_IR_TEQTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"
#include "teq/Dialect/TEQ/IR/TEQAttrs.h"

#include <vector>

#include "teq/Dialect/TEQ/IR/TEQTypeInterfaces.h.inc"

#define GET_TYPEDEF_CLASSES
#include "teq/Dialect/TEQ/IR/TEQOpsTypes.h.inc"

#endif // TEQ_DIALECT_TEQ_IR_TEQTYPES_H
