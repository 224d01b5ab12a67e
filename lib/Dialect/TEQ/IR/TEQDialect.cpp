//===- TEQDialect.cpp - The teq dialect -----------------------------------===//

#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Artifact/Entry.h"
#include "teq/Dialect/TEQ/IR/TEQAttrs.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Dialect/TEQ/IR/TEQRoles.h"
#include "teq/Dialect/TEQ/IR/TEQTypes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/StringExtras.h"

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
  if (attr.getName() == getEntryAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << getEntryAttrName()
                             << "' is a unit attribute of functions";
    return success();
  }
  if (attr.getName() == getWeightCacheAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << getWeightCacheAttrName()
                             << "' is a unit attribute of functions";
    return success();
  }
  if (attr.getName() == getManifestAttrName()) {
    if (!isa<StringAttr>(attr.getValue()) || !isa<ModuleOp>(op))
      return op->emitError() << "'" << getManifestAttrName()
                             << "' is a string attribute of modules";
    return success();
  }
  if (attr.getName() == getRecomputeAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<QuantizeOp>(op))
      return op->emitError() << "'" << getRecomputeAttrName()
                             << "' is a unit attribute of teq.quantize";
    return success();
  }
  if (attr.getName() == getSavedFromArgsAttrName()) {
    auto pairs = dyn_cast<ArrayAttr>(attr.getValue());
    bool ok = pairs && isa<FunctionOpInterface>(op) &&
              llvm::all_of(pairs, [](Attribute a) {
                auto pair = dyn_cast<DenseI64ArrayAttr>(a);
                return pair && pair.size() == 2;
              });
    if (!ok)
      return op->emitError() << "'" << getSavedFromArgsAttrName()
                             << "' belongs on a function and is a list of "
                                "array<i64: result, argument> pairs";
    return success();
  }
  if (attr.getName() == getSavedMemoryAttrName()) {
    auto report = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!report || !isa<FunctionOpInterface>(op) ||
        !isa_and_nonnull<DictionaryAttr>(report.get("before")) ||
        !isa_and_nonnull<DictionaryAttr>(report.get("after")))
      return op->emitError() << "'" << getSavedMemoryAttrName()
                             << "' belongs on a function and is {before = "
                                "{...}, after = {...}}";
    return success();
  }
  return op->emitError() << "unknown teq attribute '"
                         << attr.getName().getValue()
                         << "' on an operation; teq knows '"
                         << getTargetAttrName() << "', '"
                         << getSavedFromArgsAttrName() << "', '"
                         << getRecomputeAttrName() << "', '"
                         << getSavedMemoryAttrName() << "', '"
                         << getEntryAttrName() << "' and '"
                         << getManifestAttrName() << "'";
}

/// `teq.role` (a manifest role) or `teq.role_of` (the name of the value a
/// role that takes one refers to) on a function argument or result.
static LogicalResult verifyRoleAttribute(Operation *op, NamedAttribute attr,
                                         StringRef what, unsigned index,
                                         DictionaryAttr attrs) {
  auto text = dyn_cast<StringAttr>(attr.getValue());
  if (attr.getName() == getRoleAttrName()) {
    if (!text || !artifact::isArgRole(text.getValue().str()))
      return op->emitError()
             << "'" << getRoleAttrName() << "' of " << what << " " << index
             << " must be one of " << artifact::argRoleList() << ", got "
             << attr.getValue();
    return success();
  }
  auto role = attrs ? attrs.getAs<StringAttr>(getRoleAttrName()) : nullptr;
  if (!text || text.getValue().empty())
    return op->emitError() << "'" << getRoleOfAttrName() << "' of " << what
                           << " " << index << " must be a non-empty string";
  if (!role || !artifact::argRoleTakesOf(role.getValue().str()))
    return op->emitError()
           << "'" << getRoleOfAttrName() << "' of " << what << " " << index
           << " needs a '" << getRoleAttrName()
           << "' that refers to another value (saved, state_update, "
              "grad_output, grad or main_grad)";
  return success();
}

/// `teq.name` on a function argument or result: a non-empty string that is
/// not a temporary's name (t<N>).
static LogicalResult verifyNameAttribute(Operation *op, NamedAttribute attr,
                                         StringRef what, unsigned index) {
  if (attr.getName() != TEQDialect::getNameAttrName())
    return op->emitError() << "unknown teq attribute '"
                           << attr.getName().getValue() << "' on " << what
                           << " " << index << "; teq knows '"
                           << TEQDialect::getNameAttrName() << "', '"
                           << getRoleAttrName() << "' and '"
                           << getRoleOfAttrName() << "'";
  auto name = dyn_cast<StringAttr>(attr.getValue());
  StringRef text = name ? name.getValue() : StringRef();
  if (!name || text.empty() ||
      (text.size() > 1 && text[0] == 't' &&
       llvm::all_of(text.drop_front(), llvm::isDigit)))
    return op->emitError() << "'" << TEQDialect::getNameAttrName() << "' of "
                           << what << " " << index
                           << " must be a non-empty string other than t<N> "
                              "(the manifest's names of temporaries)";
  return success();
}

LogicalResult TEQDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  if (attr.getName() == getRoleAttrName() ||
      attr.getName() == getRoleOfAttrName()) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    return verifyRoleAttribute(op, attr, "argument", argIndex,
                               func ? func.getArgAttrDict(argIndex) : nullptr);
  }
  return verifyNameAttribute(op, attr, "argument", argIndex);
}

LogicalResult TEQDialect::verifyRegionResultAttribute(Operation *op,
                                                      unsigned regionIndex,
                                                      unsigned resultIndex,
                                                      NamedAttribute attr) {
  if (attr.getName() == getRoleAttrName() ||
      attr.getName() == getRoleOfAttrName()) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    return verifyRoleAttribute(
        op, attr, "result", resultIndex,
        func ? func.getResultAttrDict(resultIndex) : nullptr);
  }
  return verifyNameAttribute(op, attr, "result", resultIndex);
}
