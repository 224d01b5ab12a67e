//===- Artifact.cpp - From lowered teq IR to a native artifact ------------===//

#include "teq/Target/Artifact.h"
#include "teq/Artifact/Manifest.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Runtime/ArtifactFile.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::teq;

unsigned mlir::teq::kernelIndexBitwidth(ModuleOp module) {
  constexpr int64_t kLimit = int64_t(1) << 30;
  auto fits = [&](Type type) {
    auto memref = dyn_cast<MemRefType>(type);
    return !memref ||
           (memref.hasStaticShape() && memref.getNumElements() <= kLimit);
  };
  bool narrow = true;
  for (auto kernels : module.getOps<gpu::GPUModuleOp>()) {
    kernels.walk([&](Operation *op) {
      // Operands are results or block arguments, checked where defined.
      for (Type type : op->getResultTypes())
        narrow &= fits(type);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            narrow &= fits(arg.getType());
      if (auto global = dyn_cast<memref::GlobalOp>(op))
        narrow &= fits(global.getType());
      if (auto constant = dyn_cast<arith::ConstantOp>(op))
        if (auto value = dyn_cast<IntegerAttr>(constant.getValue()))
          if (value.getType().isIndex())
            narrow &= std::abs(value.getInt()) < kLimit;
      return narrow ? WalkResult::advance() : WalkResult::interrupt();
    });
  }
  return narrow ? 32 : 64;
}

void mlir::teq::buildGPUToLLVMPipeline(OpPassManager &pm,
                                       unsigned kernelIndexBitwidth) {
  // Device side: kernels to NVVM with bare pointers (static shapes).
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = kernelIndexBitwidth;
  nvvm.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  kernels.addPass(createReconcileUnrealizedCastsPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  // Host side: entries to the LLVM dialect, launches to mgpu* calls.
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions func;
  func.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(func));
  GpuToLLVMConversionPassOptions gpu;
  gpu.hostBarePtrCallConv = true;
  gpu.kernelBarePtrCallConv = true;
  pm.addPass(createGpuToLLVMConversionPass(gpu));
  pm.addPass(createReconcileUnrealizedCastsPass());
}

LogicalResult mlir::teq::checkKernelsCallNothing(ModuleOp module) {
  LogicalResult result = success();
  for (auto kernels : module.getOps<gpu::GPUModuleOp>())
    for (auto callee : kernels.getOps<LLVM::LLVMFuncOp>()) {
      if (!callee.isExternal())
        continue;
      // Name the op that needed it: the call carries its location.
      Location at = callee.getLoc();
      if (auto uses = SymbolTable::getSymbolUses(callee, kernels))
        if (!uses->empty())
          at = uses->begin()->getUser()->getLoc();
      emitError(at) << "this op's GPU code would call '" << callee.getName()
                    << "' (CUDA libdevice), which TEQ's kernels never do: "
                       "the op has no toolkit-free, exact GPU lowering yet";
      result = failure();
    }
  return result;
}

void mlir::teq::buildDeviceBinaryPipeline(OpPassManager &pm,
                                          DeviceCode deviceCode) {
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = deviceCode == DeviceCode::Cubin ? "bin" : "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

LogicalResult mlir::teq::emitArtifactABI(ModuleOp module,
                                         DeviceCode deviceCode,
                                         std::string *manifestText) {
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  auto ptr = LLVM::LLVMPointerType::get(ctx);

  // void teq_entry_<name>(void **buffers): unpack and call the entry.
  SmallVector<LLVM::LLVMFuncOp> entries;
  module.walk([&](LLVM::LLVMFuncOp f) {
    if (f->hasAttr(TEQDialect::getEntryAttrName()))
      entries.push_back(f);
  });
  for (LLVM::LLVMFuncOp entry : entries) {
    LLVM::LLVMFunctionType type = entry.getFunctionType();
    for (Type param : type.getParams())
      if (!isa<LLVM::LLVMPointerType>(param))
        return entry.emitError("artifact entries take device pointers only; "
                               "parameter of type ")
               << param << " is not one";
    auto wrapper = LLVM::LLVMFuncOp::create(
        b, loc, ("teq_entry_" + entry.getName()).str(),
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr}));
    Block *body = wrapper.addEntryBlock(b);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(body);
    SmallVector<Value> args;
    for (unsigned i = 0; i < type.getNumParams(); ++i) {
      auto slot = LLVM::GEPOp::create(b, loc, ptr, ptr, body->getArgument(0),
                                      ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
      args.push_back(LLVM::LoadOp::create(b, loc, ptr, slot));
    }
    LLVM::CallOp::create(b, loc, entry, args);
    LLVM::ReturnOp::create(b, loc, ValueRange{});
  }

  // const char *teq_artifact_manifest(void).
  auto manifestAttr =
      module->getAttrOfType<StringAttr>(TEQDialect::getManifestAttrName());
  if (!manifestAttr)
    return module.emitError("no teq.manifest: run convert-teq-to-gpu first");
  // Read back with the runtime's reader: te-compile never embeds a manifest
  // the runtime would refuse.
  artifact::StatusOr<artifact::Manifest> manifest =
      artifact::parseManifest(manifestAttr.getValue());
  if (!manifest.ok())
    return module.emitError("internal error: the runtime would refuse the "
                            "artifact's manifest: ")
           << manifest.message();
  manifest->deviceCode = deviceCode == DeviceCode::Cubin
                             ? artifact::DeviceCodeKind::Cubin
                             : artifact::DeviceCodeKind::PTX;
  std::string text = artifact::writeManifest(*manifest);
  text.push_back('\0');
  auto arrayType = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8),
                                            text.size());
  LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/true,
                         LLVM::Linkage::Internal, "teq_manifest_text",
                         b.getStringAttr(text));
  auto getter = LLVM::LLVMFuncOp::create(
      b, loc, "teq_artifact_manifest", LLVM::LLVMFunctionType::get(ptr, {}));
  Block *body = getter.addEntryBlock(b);
  b.setInsertionPointToStart(body);
  Value address =
      LLVM::AddressOfOp::create(b, loc, ptr, "teq_manifest_text");
  LLVM::ReturnOp::create(b, loc, address);

  // The TEQ note (teq/Runtime/ArtifactFile.h): an SHT_NOTE section, which the
  // linker maps into a PT_NOTE segment at the start of the file, where
  // sealArtifact records the file's length. Hidden but not internal, so that
  // nothing drops it for having no uses.
  namespace af = runtime::artifact_file;
  constexpr std::array<unsigned char, af::kNoteBytes> note = af::unsealedNote();
  b.setInsertionPointToEnd(module.getBody());
  auto noteGlobal = LLVM::GlobalOp::create(
      b, loc, LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), note.size()),
      /*isConstant=*/true, LLVM::Linkage::External, "teq_artifact_note",
      b.getStringAttr(StringRef(reinterpret_cast<const char *>(note.data()),
                                note.size())),
      /*alignment=*/4);
  noteGlobal.setSectionAttr(b.getStringAttr(af::kNoteSection));
  noteGlobal.setVisibility_(LLVM::Visibility::Hidden);

  module->removeAttr(TEQDialect::getManifestAttrName());
  if (manifestText)
    *manifestText = text.substr(0, text.size() - 1); // without the NUL
  return success();
}

FailureOr<std::string> mlir::teq::getDeviceAssembly(ModuleOp module) {
  std::string text;
  WalkResult result = module.walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects()) {
      auto obj = cast<gpu::ObjectAttr>(object);
      if (obj.getFormat() != gpu::CompilationTarget::Assembly) {
        binary.emitError("device code is not assembly; use --device-code=ptx "
                         "with --emit=ptx");
        return WalkResult::interrupt();
      }
      text += obj.getObject().getValue().str();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  return text;
}

std::unique_ptr<llvm::Module>
mlir::teq::translateToLLVMIR(ModuleOp module, llvm::LLVMContext &context) {
  return translateModuleToLLVMIR(module, context, "teq_artifact");
}

LogicalResult mlir::teq::emitObjectFile(llvm::Module &module, StringRef path,
                                        std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string triple = llvm::sys::getDefaultTargetTriple();
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), error);
  if (!target)
    return failure();
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      llvm::Triple(triple), "generic", "", options, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Default));
  module.setTargetTriple(llvm::Triple(triple));
  module.setDataLayout(machine->createDataLayout());
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + path.str() + "': " + ec.message();
    return failure();
  }
  llvm::legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, out, nullptr,
                                   llvm::CodeGenFileType::ObjectFile)) {
    error = "the host target cannot emit object files";
    return failure();
  }
  pm.run(module);
  // A failed write (a full disk, /dev/full) is an error here, not LLVM's
  // fatal "IO failure on output stream" when `out` is destroyed.
  out.flush();
  if (out.has_error()) {
    error = "cannot write '" + path.str() + "': " + out.error().message();
    out.clear_error();
    return failure();
  }
  return success();
}

LogicalResult mlir::teq::linkSharedLibrary(StringRef object, StringRef output,
                                           std::string &error) {
  std::string driver;
  for (StringRef name : {"cc", "gcc", "clang"})
    if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName(name)) {
      driver = *path;
      break;
    }
  if (driver.empty()) {
    error = "no C compiler driver (cc, gcc or clang) in PATH to link the "
            "shared library; use --emit=obj and link it yourself";
    return failure();
  }
  SmallVector<StringRef> args{driver, "-shared", "-o", output, object};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(driver, args, std::nullopt, {}, 0, 0,
                                     &message);
  if (rc != 0) {
    error = "linking '" + output.str() + "' with " + driver + " failed" +
            (message.empty() ? "" : ": " + message);
    return failure();
  }
  return success();
}

LogicalResult mlir::teq::sealArtifact(StringRef path, StringRef manifest,
                                      std::string &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> library =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!library) {
    error = "cannot read '" + path.str() + "': " + library.getError().message();
    return failure();
  }
  std::string bytes = (*library)->getBuffer().str();
  library->reset();
  std::string why = runtime::artifact_file::seal(bytes, manifest);
  if (!why.empty()) {
    error = "cannot write the trailer of '" + path.str() + "': " + why;
    return failure();
  }
  llvm::ErrorOr<llvm::sys::fs::perms> permissions =
      llvm::sys::fs::getPermissions(path);
  // Written to a temporary file and renamed: nobody sees a half-written
  // artifact.
  if (llvm::Error written = llvm::writeToOutput(
          path, [&](raw_ostream &os) -> llvm::Error {
            os << bytes;
            return llvm::Error::success();
          })) {
    error = "cannot write '" + path.str() +
            "': " + llvm::toString(std::move(written));
    return failure();
  }
  if (permissions)
    (void)llvm::sys::fs::setPermissions(path, *permissions);
  return success();
}
