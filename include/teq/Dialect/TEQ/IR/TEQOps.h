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

#endif // TEQ_DIALECT_TEQ_IR_TEQOPS_H
