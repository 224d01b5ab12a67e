//===- Support.cpp - Status and parsing of the TEQ C API ------------------===//

#include "teq-c/Support.h"
#include "Status.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::teq::capi;

//===----------------------------------------------------------------------===//
// Status and DiagnosticCapture
//===----------------------------------------------------------------------===//

TeqStatus mlir::teq::capi::makeError(std::string message) {
  if (message.empty())
    message = "unknown error";
  return TeqStatus{new StatusImpl{std::move(message)}};
}

DiagnosticCapture::DiagnosticCapture(MLIRContext *context,
                                     llvm::SourceMgr *sourceMgr)
    : os_(text_) {
  sourceMgrHandler_.emplace(sourceMgr ? *sourceMgr : ownSourceMgr_, context,
                            os_);
  handler_.emplace(context, [this](Diagnostic &diag) {
    auto print = [&](Diagnostic &one) {
      Location loc = one.getLocation();
      if (loc->findInstanceOf<FileLineColLoc>()) {
        sourceMgrHandler_->emitDiagnostic(one.getLocation(), one.str(),
                                          one.getSeverity());
        return;
      }
      // Locations without a file (a builder's NameLoc "fc1", say) print as
      // their name; unknown ones not at all.
      if (!isa<UnknownLoc>(loc)) {
        std::string text;
        llvm::raw_string_ostream locOs(text);
        locOs << loc;
        StringRef name = StringRef(text);
        if (name.consume_front("loc(") && name.consume_back(")"))
          name = name.trim('"');
        os_ << name << ": ";
      }
      switch (one.getSeverity()) {
      case DiagnosticSeverity::Error:
        os_ << "error: ";
        break;
      case DiagnosticSeverity::Warning:
        os_ << "warning: ";
        break;
      case DiagnosticSeverity::Note:
        os_ << "note: ";
        break;
      case DiagnosticSeverity::Remark:
        os_ << "remark: ";
        break;
      }
      os_ << one.str() << "\n";
    };
    print(diag);
    for (Diagnostic &note : diag.getNotes())
      print(note);
    return success();
  });
}

DiagnosticCapture::~DiagnosticCapture() = default;

TeqStatus DiagnosticCapture::status(LogicalResult result, StringRef fallback) {
  if (succeeded(result))
    return makeSuccess();
  os_.flush();
  StringRef text = StringRef(text_).rtrim('\n');
  return makeError(text.empty() ? fallback.str() : text.str());
}

bool teqStatusIsSuccess(TeqStatus status) { return status.ptr == nullptr; }

MlirStringRef teqStatusGetMessage(TeqStatus status) {
  if (!status.ptr)
    return mlirStringRefCreate("", 0);
  const std::string &message = static_cast<StatusImpl *>(status.ptr)->message;
  return mlirStringRefCreate(message.data(), message.size());
}

void teqStatusDestroy(TeqStatus status) {
  delete static_cast<StatusImpl *>(status.ptr);
}

//===----------------------------------------------------------------------===//
// Parsing and verification
//===----------------------------------------------------------------------===//

TeqStatus teqParseModule(MlirContext context, MlirStringRef source,
                         MlirStringRef bufferName, MlirModule *result) {
  if (mlirContextIsNull(context))
    return makeError("teqParseModule: null context");
  if (!result)
    return makeError("teqParseModule: null result pointer");
  *result = MlirModule{nullptr};
  StringRef name = unwrap(bufferName);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(unwrap(source),
                                           name.empty() ? "<input>" : name),
      llvm::SMLoc());
  DiagnosticCapture capture(unwrap(context), &sourceMgr);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, unwrap(context));
  if (!module)
    return capture.error("cannot parse the module");
  *result = wrap(module.release());
  return makeSuccess();
}

TeqStatus teqParseAttribute(MlirContext context, MlirStringRef text,
                            MlirAttribute *result) {
  if (mlirContextIsNull(context))
    return makeError("teqParseAttribute: null context");
  if (!result)
    return makeError("teqParseAttribute: null result pointer");
  *result = MlirAttribute{nullptr};
  DiagnosticCapture capture(unwrap(context));
  size_t numRead = 0;
  Attribute attr =
      parseAttribute(unwrap(text), unwrap(context), Type(), &numRead);
  if (!attr)
    return capture.error("cannot parse attribute '" + unwrap(text).str() +
                         "'");
  if (numRead != unwrap(text).size())
    return makeError("trailing characters after the attribute in '" +
                     unwrap(text).str() + "'");
  *result = wrap(attr);
  return makeSuccess();
}

TeqStatus teqParseType(MlirContext context, MlirStringRef text,
                       MlirType *result) {
  if (mlirContextIsNull(context))
    return makeError("teqParseType: null context");
  if (!result)
    return makeError("teqParseType: null result pointer");
  *result = MlirType{nullptr};
  DiagnosticCapture capture(unwrap(context));
  size_t numRead = 0;
  Type type = parseType(unwrap(text), unwrap(context), &numRead);
  if (!type)
    return capture.error("cannot parse type '" + unwrap(text).str() + "'");
  if (numRead != unwrap(text).size())
    return makeError("trailing characters after the type in '" +
                     unwrap(text).str() + "'");
  *result = wrap(type);
  return makeSuccess();
}

TeqStatus teqVerifyOperation(MlirOperation op) {
  if (mlirOperationIsNull(op))
    return makeError("teqVerifyOperation: null operation");
  DiagnosticCapture capture(unwrap(op)->getContext());
  return capture.status(verify(unwrap(op)), "verification failed");
}
