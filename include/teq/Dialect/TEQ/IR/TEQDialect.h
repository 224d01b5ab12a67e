//===- TEQDialect.h - The teq dialect ---------------------------*- C++ -*-===//

#ifndef TEQ_DIALECT_TEQ_IR_TEQDIALECT_H
#define TEQ_DIALECT_TEQ_IR_TEQDIALECT_H

#include "mlir/IR/Dialect.h"

#include "teq/Dialect/TEQ/IR/TEQOpsDialect.h.inc"

#endif // TEQ_DIALECT_TEQ_IR_TEQDIALECT_H
