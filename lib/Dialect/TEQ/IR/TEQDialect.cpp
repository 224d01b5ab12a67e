//===- TEQDialect.cpp - The teq dialect -----------------------------------===//

#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Dialect/TEQ/IR/TEQAttrs.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Dialect/TEQ/IR/TEQTypes.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::teq;

#include "teq/Dialect/TEQ/IR/TEQOpsDialect.cpp.inc"

void TEQDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "teq/Dialect/TEQ/IR/TEQOps.cpp.inc"
      >();
}

LogicalResult TEQDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() == getTargetAttrName()) {
    if (!isa<TargetAttr>(attr.getValue()))
      return op->emitError() << "'" << getTargetAttrName()
                             << "' must be a #teq.target<...>, got "
                             << attr.getValue();
    if (!isa<ModuleOp>(op))
      return op->emitError() << "'" << getTargetAttrName()
                             << "' belongs on a builtin.module";
    return success();
  }
  return op->emitError() << "unknown teq attribute '"
                         << attr.getName().getValue()
                         << "' on an operation; teq knows '"
                         << getTargetAttrName() << "'";
}
