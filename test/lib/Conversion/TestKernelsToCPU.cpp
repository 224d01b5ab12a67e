//===- TestKernelsToCPU.cpp - GPU kernels as CPU functions for tests ------===//
//
// The teq-test-kernels-to-cpu pass (TestPasses.td): the kernels of the
// module's gpu.modules as CPU functions that run one block (its threads one
// after another, phase by phase between barriers) or one thread of a
// launch, so that unit tests run the kernels' own IR on the host and
// compare it with the reference.
//
//===----------------------------------------------------------------------===//

#include "teq/Artifact/Manifest.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/ToolOutputFile.h"

#include <optional>

namespace mlir::teq::test {
#define GEN_PASS_DECL_TESTKERNELSTOCPU
#define GEN_PASS_DEF_TESTKERNELSTOCPU
#define GEN_PASS_REGISTRATION
#include "TestPasses.h.inc"

/// Registers TEQ's test passes (te-opt only).
void registerTestPasses() { registerTEQTestPasses(); }
} // namespace mlir::teq::test

using namespace mlir;

namespace {

/// The host functions the emulated kernels call (implemented by the test).
constexpr StringLiteral kE4M3 = "emu_e4m3";           // (f32, f32) -> i16
constexpr StringLiteral kE5M2 = "emu_e5m2";           // (f32, f32) -> i16
constexpr StringLiteral kPrmt = "emu_prmt";           // (lo, hi, sel) -> i32
constexpr StringLiteral kBarrier = "emu_barrier";     // ()
constexpr StringLiteral kShuffleXor = "emu_shfl_xor"; // (f32, i32, i32) -> f32

/// The grid of a kernel's launches in the module, per dimension: the
/// constant size if every launch has the same constant, else nullopt.
struct LaunchGrid {
  std::optional<int64_t> size[3];
  bool launched = false;
};

/// What the case table needs of a converted kernel.
struct KernelSummary {
  unsigned numArguments = 0;
  SmallVector<int64_t> workgroupBytes;
};

/// `type` without a `#gpu.address_space`: on the host, workgroup and global
/// memory are plain memory.
Type withoutGpuAddressSpace(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref ||
      !isa_and_nonnull<gpu::AddressSpaceAttr>(memref.getMemorySpace()))
    return type;
  return MemRefType(MemRefType::Builder(memref).setMemorySpace(Attribute()));
}

/// Drops the GPU address spaces of every value under `root` (memref ops
/// infer nothing from them, so retyping in place keeps the IR valid).
void dropGpuAddressSpaces(Operation *root) {
  root->walk([](Operation *op) {
    for (Value result : op->getResults())
      result.setType(withoutGpuAddressSpace(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(withoutGpuAddressSpace(arg.getType()));
  });
}

/// Whether `op` holds an atomic read-modify-write.
bool holdsAtomics(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return isa<memref::AtomicRMWOp, memref::GenericAtomicRMWOp>(nested)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Declares the host functions on first use, at the top of the module.
class HostFunctions {
public:
  explicit HostFunctions(ModuleOp module) : module(module) {}

  func::FuncOp get(StringRef name, FunctionType type) {
    func::FuncOp &fn = declared[name];
    if (!fn) {
      auto builder = OpBuilder::atBlockBegin(module.getBody());
      fn = func::FuncOp::create(builder, module.getLoc(), name, type);
      fn.setPrivate();
    }
    return fn;
  }

private:
  ModuleOp module;
  llvm::StringMap<func::FuncOp> declared;
};

/// Turns one gpu.func kernel into a func.func (TestPasses.td).
class KernelConverter {
public:
  KernelConverter(gpu::GPUFuncOp kernel, const LaunchGrid &grid,
                  HostFunctions &host, bool perThread)
      : kernel(kernel), grid(grid), host(host), perThread(perThread) {}

  /// Builds the function with `builder` (the kernel's body moves into it);
  /// on failure, an error has been emitted.
  FailureOr<func::FuncOp> convert(OpBuilder &builder);

private:
  /// Replaces the GPU- and NVVM-specific ops of the thread body (`fn`'s
  /// only block, its arguments the kernel's, its workgroup buffers, in
  /// per-thread mode the dynamic shared memory, then bx, by, tid).
  LogicalResult rewriteThreadBody(func::FuncOp fn);
  LogicalResult rewriteOp(Operation *op, OpBuilder &b);
  Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  /// Per block: the threads of the thread body in a loop per phase.
  LogicalResult expandPhases(func::FuncOp fn);

  gpu::GPUFuncOp kernel;
  const LaunchGrid &grid;
  HostFunctions &host;
  bool perThread;
  int64_t blockSize = 0;
  unsigned numArguments = 0, numWorkgroup = 0;
  SmallVector<int64_t> workgroupAlignments;
  // Arguments of the thread body.
  Value dynamicShared, blockIdX, blockIdY, threadId;
};

FailureOr<func::FuncOp> KernelConverter::convert(OpBuilder &builder) {
  Location loc = kernel.getLoc();
  std::optional<ArrayRef<int32_t>> known = kernel.getKnownBlockSize();
  if (!known || known->size() != 3 || (*known)[0] <= 0 || (*known)[1] != 1 ||
      (*known)[2] != 1)
    return kernel.emitError("cannot emulate a kernel without "
                            "known_block_size = [N, 1, 1]");
  blockSize = (*known)[0];
  if (kernel.getNumPrivateAttributions())
    return kernel.emitError("cannot emulate private attributions");
  if (!kernel.getBody().hasOneBlock())
    return kernel.emitError("cannot emulate a kernel of several blocks");

  numArguments = kernel.getNumArguments();
  numWorkgroup = kernel.getNumWorkgroupAttributions();
  for (unsigned i = 0; i < numWorkgroup; ++i) {
    // As the kernels' workgroup buffers: 16 bytes at least (their 16-byte
    // vector accesses).
    auto align = dyn_cast_or_null<IntegerAttr>(
        kernel.getWorkgroupAttributionAttr(i, "llvm.align"));
    workgroupAlignments.push_back(align ? std::max<int64_t>(align.getInt(), 16)
                                        : 16);
  }

  // The thread body: the kernel's body, with the per-thread mode's
  // signature.
  SmallVector<Type> inputs;
  for (BlockArgument arg : kernel.getBody().getArguments())
    inputs.push_back(withoutGpuAddressSpace(arg.getType()));
  MLIRContext *ctx = kernel.getContext();
  Type index = IndexType::get(ctx);
  auto fn = func::FuncOp::create(builder, loc, kernel.getName(),
                                 FunctionType::get(ctx, inputs, {}));
  fn->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
  fn.getBody().takeBody(kernel.getBody());
  Block &body = fn.getBody().front();
  // Named for --mlir-use-nameloc-as-prefix.
  auto named = [&](StringRef name) {
    return NameLoc::get(StringAttr::get(ctx, name), loc);
  };
  if (perThread) {
    dynamicShared = body.addArgument(
        MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 8)),
        named("emu_dyn"));
    inputs.push_back(dynamicShared.getType());
  }
  blockIdX = body.addArgument(index, named("emu_bx"));
  blockIdY = body.addArgument(index, named("emu_by"));
  threadId = body.addArgument(index, named("emu_tid"));
  inputs.append({index, index, index});
  fn.setFunctionType(FunctionType::get(ctx, inputs, {}));

  if (failed(rewriteThreadBody(fn)))
    return failure();
  if (!perThread && failed(expandPhases(fn)))
    return failure();
  dropGpuAddressSpaces(fn);
  return fn;
}

LogicalResult KernelConverter::rewriteThreadBody(func::FuncOp fn) {
  SmallVector<Operation *> ops;
  fn.getBody().walk([&](Operation *op) { ops.push_back(op); });
  OpBuilder b(fn.getContext());
  for (Operation *op : ops) {
    b.setInsertionPoint(op);
    if (failed(rewriteOp(op, b)))
      return failure();
  }
  return success();
}

LogicalResult KernelConverter::rewriteOp(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  MLIRContext *ctx = op->getContext();
  Type f32 = Float32Type::get(ctx), i16 = IntegerType::get(ctx, 16),
       i32 = IntegerType::get(ctx, 32);
  auto replace = [&](Value value) {
    op->getResult(0).replaceAllUsesWith(value);
    op->erase();
    return success();
  };
  auto cannotEmulate = [&](const Twine &why) {
    return op->emitOpError("cannot be emulated on the CPU: ") << why;
  };
  return TypeSwitch<Operation *, LogicalResult>(op)
      // Ids and sizes of the launch.
      .Case([&](gpu::ThreadIdOp id) {
        return replace(id.getDimension() == gpu::Dimension::x
                           ? threadId
                           : indexConstant(b, loc, 0));
      })
      .Case([&](gpu::BlockIdOp id) -> LogicalResult {
        if (id.getDimension() == gpu::Dimension::z)
          return cannotEmulate("grids are emulated in x and y");
        return replace(id.getDimension() == gpu::Dimension::x ? blockIdX
                                                              : blockIdY);
      })
      .Case([&](gpu::BlockDimOp dim) {
        return replace(indexConstant(
            b, loc, dim.getDimension() == gpu::Dimension::x ? blockSize : 1));
      })
      .Case([&](gpu::GridDimOp dim) -> LogicalResult {
        std::optional<int64_t> size =
            grid.size[static_cast<unsigned>(dim.getDimension())];
        if (!size)
          return cannotEmulate(grid.launched
                                   ? "the kernel's launches in the module "
                                     "differ in this grid size or it is not "
                                     "constant"
                                   : "the module does not launch the kernel");
        return replace(indexConstant(b, loc, *size));
      })
      .Case([&](gpu::DynamicSharedMemoryOp) -> LogicalResult {
        if (!perThread)
          return cannotEmulate("dynamic shared memory is emulated per thread "
                               "(per-thread)");
        return replace(dynamicShared);
      })
      .Case([&](gpu::ReturnOp ret) -> LogicalResult {
        if (ret->getNumOperands())
          return cannotEmulate("a kernel returns nothing");
        func::ReturnOp::create(b, loc);
        ret->erase();
        return success();
      })
      // Synchronization: per thread, calls of the host, which switches
      // threads; per block, cuts between phases (expandPhases).
      .Case([&](gpu::BarrierOp barrier) -> LogicalResult {
        if (!perThread)
          return success();
        func::CallOp::create(b, loc,
                             host.get(kBarrier, FunctionType::get(ctx, {}, {})),
                             ValueRange());
        barrier->erase();
        return success();
      })
      .Case([&](gpu::ShuffleOp shuffle) -> LogicalResult {
        if (shuffle.getMode() != gpu::ShuffleMode::XOR)
          return cannotEmulate("only xor shuffles are emulated");
        if (!perThread)
          return success();
        if (shuffle.getValue().getType() != f32)
          return cannotEmulate("per thread, only f32 shuffles are emulated");
        auto call = func::CallOp::create(
            b, loc,
            host.get(kShuffleXor,
                     FunctionType::get(ctx, {f32, i32, i32}, {f32})),
            ValueRange{shuffle.getValue(), shuffle.getOffset(),
                       shuffle.getWidth()});
        shuffle.getShuffleResult().replaceAllUsesWith(call.getResult(0));
        shuffle.getValid().replaceAllUsesWith(
            arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
        shuffle->erase();
        return success();
      })
      // The hardware conversions: the test implements them from the
      // reference (first operand in the upper byte, as cvt does).
      .Case([&](NVVM::ConvertF32x2ToF8x2Op cvt) -> LogicalResult {
        Type dst = cvt.getDstTy();
        if (cvt.getRnd() != NVVM::FPRoundingMode::RN ||
            cvt.getSat() != NVVM::SaturationMode::SATFINITE || cvt.getRelu() ||
            !isa<Float8E4M3FNType, Float8E5M2Type>(dst))
          return cannotEmulate("emulated as E4M3 or E5M2, rn, satfinite");
        StringRef callee = isa<Float8E4M3FNType>(dst) ? kE4M3 : kE5M2;
        auto call = func::CallOp::create(
            b, loc, host.get(callee, FunctionType::get(ctx, {f32, f32}, {i16})),
            ValueRange{cvt.getA(), cvt.getB()});
        return replace(call.getResult(0));
      })
      .Case([&](NVVM::PermuteOp prmt) -> LogicalResult {
        if (prmt.getMode() != NVVM::PermuteMode::DEFAULT || !prmt.getHi())
          return cannotEmulate("only the default mode with two sources is "
                               "emulated");
        auto call = func::CallOp::create(
            b, loc,
            host.get(kPrmt, FunctionType::get(ctx, {i32, i32, i32}, {i32})),
            ValueRange{prmt.getLo(), prmt.getHi(), prmt.getSelector()});
        return replace(call.getResult(0));
      })
      .Case([&](NVVM::ConvertF32x2ToBF16x2Op cvt) -> LogicalResult {
        // cvt.rn.bf16x2.f32 d, hi, lo: `hi` in element 1.
        if (cvt.getRnd() != NVVM::FPRoundingMode::RN ||
            cvt.getSat() != NVVM::SaturationMode::NONE || cvt.getRelu() ||
            cvt.getRandomBits())
          return cannotEmulate("emulated with rn rounding only");
        Type bf16 = BFloat16Type::get(ctx);
        Value lo = arith::TruncFOp::create(b, loc, bf16, cvt.getSrcLo());
        Value hi = arith::TruncFOp::create(b, loc, bf16, cvt.getSrcHi());
        return replace(vector::FromElementsOp::create(
            b, loc, cvt.getDst().getType(), ValueRange{lo, hi}));
      })
      // Programmatic dependent launch and fences: the emulation runs blocks
      // and kernels one after another.
      .Case<NVVM::GriddepcontrolOp, NVVM::MembarOp>([&](Operation *) {
        op->erase();
        return success();
      })
      .Default([&](Operation *) -> LogicalResult {
        if (isa<gpu::GPUDialect, NVVM::NVVMDialect>(op->getDialect()))
          return cannotEmulate("no emulation of this op");
        return success();
      });
}

LogicalResult KernelConverter::expandPhases(func::FuncOp fn) {
  Block *thread = &fn.getBody().front();
  Location loc = fn.getLoc();
  MLIRContext *ctx = fn.getContext();
  Type index = IndexType::get(ctx);

  // The block function: the kernel's arguments, then bx and by.
  SmallVector<Type> inputs;
  for (BlockArgument arg : thread->getArguments().take_front(numArguments))
    inputs.push_back(withoutGpuAddressSpace(arg.getType()));
  inputs.append({index, index});
  auto *entry = new Block();
  fn.getBody().push_front(entry);
  for (unsigned i = 0; i < numArguments; ++i)
    entry->addArgument(inputs[i], thread->getArgument(i).getLoc());
  entry->addArgument(index, blockIdX.getLoc());
  entry->addArgument(index, blockIdY.getLoc());
  fn.setFunctionType(FunctionType::get(ctx, inputs, {}));

  auto b = OpBuilder::atBlockBegin(entry);
  Value c0 = indexConstant(b, loc, 0), c1 = indexConstant(b, loc, 1),
        threads = indexConstant(b, loc, blockSize);
  IRMapping common;
  for (unsigned i = 0; i < numArguments; ++i)
    common.map(thread->getArgument(i), entry->getArgument(i));
  common.map(blockIdX, entry->getArgument(numArguments));
  common.map(blockIdY, entry->getArgument(numArguments + 1));
  // Workgroup memory: the block's, on the stack.
  for (unsigned i = 0; i < numWorkgroup; ++i) {
    Value buffer = thread->getArgument(numArguments + i);
    auto type = cast<MemRefType>(withoutGpuAddressSpace(buffer.getType()));
    common.map(buffer,
               memref::AllocaOp::create(
                   b, loc, type, b.getI64IntegerAttr(workgroupAlignments[i])));
  }

  // Segments: the top-level ops between cuts (barriers and shuffles).
  SmallVector<SmallVector<Operation *>> segments(1);
  SmallVector<Operation *> topLevel = llvm::map_to_vector(
      thread->without_terminator(), [](Operation &op) { return &op; });
  for (Operation *op : topLevel) {
    for (Region &region : op->getRegions()) {
      WalkResult nested = region.walk([](Operation *inner) {
        if (!isa<gpu::BarrierOp, gpu::ShuffleOp>(inner))
          return WalkResult::advance();
        inner->emitOpError("inside control flow cannot be emulated phase by "
                           "phase (per-thread emulates it)");
        return WalkResult::interrupt();
      });
      if (nested.wasInterrupted())
        return failure();
    }
    if (isa<gpu::BarrierOp>(op)) {
      segments.emplace_back();
      continue;
    }
    auto shuffle = dyn_cast<gpu::ShuffleOp>(op);
    if (!shuffle) {
      segments.back().push_back(op);
      continue;
    }
    // Lane tid ^ offset within the warp: offset < width <= 32, width a
    // power of two dividing the block, so tid ^ offset stays in tid's group
    // of `width` lanes.
    APInt offset, width;
    if (!matchPattern(shuffle.getOffset(), m_ConstantInt(&offset)) ||
        !matchPattern(shuffle.getWidth(), m_ConstantInt(&width)) ||
        !width.isPowerOf2() || width.getZExtValue() > 32 ||
        blockSize % width.getZExtValue() != 0 ||
        offset.getZExtValue() >= width.getZExtValue())
      return shuffle.emitOpError(
          "cannot be emulated phase by phase: needs a constant offset below "
          "a constant width, a power of two up to 32");
    // Each thread stores its value into a buffer of the block; after the
    // cut, it reads its partner's.
    Type valueType = shuffle.getValue().getType();
    Value lanes = memref::AllocaOp::create(
        b, loc, MemRefType::get({blockSize}, valueType));
    OpBuilder sb(shuffle);
    segments.back().push_back(memref::StoreOp::create(
        sb, loc, shuffle.getValue(), lanes, ValueRange{threadId}));
    segments.emplace_back();
    Value offsetIndex =
        arith::IndexCastOp::create(sb, loc, index, shuffle.getOffset());
    Value partner = arith::XOrIOp::create(sb, loc, threadId, offsetIndex);
    Value value = memref::LoadOp::create(sb, loc, lanes, ValueRange{partner});
    Value valid = arith::ConstantOp::create(sb, loc, sb.getBoolAttr(true));
    shuffle.getShuffleResult().replaceAllUsesWith(value);
    shuffle.getValid().replaceAllUsesWith(valid);
    segments.back().append({offsetIndex.getDefiningOp(),
                            partner.getDefiningOp(), value.getDefiningOp(),
                            valid.getDefiningOp()});
  }
  // A later phase re-runs the earlier segments, without their result-less
  // regions holding atomics; an atomic whose result a later segment may
  // read would run twice.
  for (auto &segment : ArrayRef(segments).drop_back())
    for (Operation *op : segment)
      if (op->getNumResults() && holdsAtomics(op))
        return op->emitOpError(
            "holds atomics and defines values: re-running it for a later "
            "phase would repeat them");

  for (size_t phase = 0; phase < segments.size(); ++phase) {
    auto loop = scf::ForOp::create(b, loc, c0, threads, c1);
    loop.getInductionVar().setLoc(threadId.getLoc());
    auto lb = OpBuilder::atBlockTerminator(loop.getBody());
    IRMapping mapping = common;
    mapping.map(threadId, loop.getInductionVar());
    for (size_t s = 0; s <= phase; ++s)
      for (Operation *op : segments[s]) {
        if (s < phase && op->getNumResults() == 0 && op->getNumRegions() &&
            holdsAtomics(op))
          continue;
        lb.clone(*op, mapping);
      }
  }
  func::ReturnOp::create(b, loc);

  thread->dropAllDefinedValueUses();
  thread->dropAllReferences();
  thread->erase();
  return success();
}

/// "1.000000000e+00f": a C++ float literal.
std::string floatLiteral(double value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%.9ef", value);
  return text;
}

const char *formatName(teq::layout::Format format) {
  switch (format) {
  case teq::layout::Format::PerTensorFP8:
    return "PerTensorFP8";
  case teq::layout::Format::BlockFP8_1D:
    return "BlockFP8_1D";
  case teq::layout::Format::BlockFP8_2D:
    return "BlockFP8_2D";
  case teq::layout::Format::MXFP8:
    return "MXFP8";
  case teq::layout::Format::NVFP4:
    return "NVFP4";
  }
  return "?";
}

/// Writes TileKernelEmulationTest's case table (TestPasses.td) from the
/// module's manifest and launches.
LogicalResult writeCaseTable(ModuleOp module, StringRef path,
                             const llvm::StringMap<KernelSummary> &kernels) {
  // Errors about the manifest name it (the module's location would quote
  // the whole manifest).
  Location manifestLoc =
      NameLoc::get(StringAttr::get(module.getContext(), "teq.manifest"));
  auto manifestText = module->getAttrOfType<StringAttr>("teq.manifest");
  if (!manifestText)
    return emitError(manifestLoc, "case table: the module has no manifest");
  auto manifest = teq::artifact::parseManifest(manifestText.getValue().str());
  if (!manifest.ok())
    return emitError(manifestLoc, "case table: ") << manifest.message();

  std::string declarations, rows;
  llvm::raw_string_ostream decl(declarations), row(rows);
  for (const teq::artifact::EntrySpec &entry : manifest->entries) {
    auto host = module.lookupSymbol<func::FuncOp>(entry.name);
    if (!host || host.getNumArguments() == 0)
      return emitError(manifestLoc, "case table: no entry function @")
             << entry.name << " with arguments";
    // The kernel under test reads the entry's input; launches before it
    // (zero fills) prepare its buffers.
    Value input = host.getArgument(0);
    SmallVector<gpu::LaunchFuncOp> launches;
    host.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    auto readsInput = [&](gpu::LaunchFuncOp launch) {
      return llvm::is_contained(launch.getKernelOperands(), input);
    };
    if (llvm::count_if(launches, readsInput) != 1)
      return host.emitError("case table: expected one launch reading the "
                            "entry's input");
    auto *tested = llvm::find_if(launches, readsInput);
    gpu::LaunchFuncOp launch = *tested;
    StringRef kernelName = launch.getKernelName().getValue();
    auto kernel = kernels.find(kernelName);
    if (kernel == kernels.end())
      return launch.emitError("case table: the kernel is not converted");

    const teq::artifact::ArgSpec *output = nullptr;
    for (const teq::artifact::ArgSpec &arg : entry.args)
      if (arg.kind == teq::artifact::ArgKind::Output) {
        output = &arg;
        break;
      }
    if (!output || !output->isProto)
      return host.emitError("case table: the entry has no quantized output");
    const teq::artifact::ProtoSpec &proto = output->proto;
    const teq::artifact::QuantizerDesc &q = proto.quantizer;
    if (q.kind != teq::artifact::QuantizerKind::Float8Block &&
        q.kind != teq::artifact::QuantizerKind::MXFP8)
      return host.emitError("case table: describes block FP8 and MXFP8 "
                            "quantizations, not ")
             << q.kindName();
    const char *dtype = proto.dtype == "bf16"  ? "BF16"
                        : proto.dtype == "f16" ? "F16"
                        : proto.dtype == "f32" ? "F32"
                                               : nullptr;
    if (!dtype)
      return host.emitError("case table: unexpected input type ")
             << proto.dtype;

    // The kernel's operands: x, then data and scales per usage.
    bool rowwise = proto.hasRowwise(), columnwise = proto.hasColumnwise();
    ValueRange operands = launch.getKernelOperands();
    if (operands.size() != 1 + 2 * size_t(rowwise + columnwise))
      return launch.emitError("case table: expected the input, then data and "
                              "scales per usage");
    auto preparedEarlier = [&](Value buffer) {
      return llvm::any_of(llvm::make_range(launches.begin(), tested),
                          [&](gpu::LaunchFuncOp earlier) {
                            return llvm::is_contained(
                                earlier.getKernelOperands(), buffer);
                          });
    };
    bool zeroRowScales = rowwise && preparedEarlier(operands[2]);
    bool zeroColScales =
        columnwise && preparedEarlier(operands[rowwise ? 4 : 2]);

    auto flag = [](bool value) { return value ? "true" : "false"; };
    std::string name = entry.name + ": " + proto.text;
    std::string escaped;
    for (char c : name) {
      if (c == '"' || c == '\\')
        escaped += '\\';
      escaped += c;
    }
    decl << "TEQ_TILE_KERNEL(" << kernelName << ")\n";
    row << "  {\"" << escaped << "\", _mlir_ciface_" << kernelName << ", "
        << kernel->second.numArguments << ", {";
    llvm::interleaveComma(kernel->second.workgroupBytes, row);
    row << "}, {";
    llvm::interleaveComma(proto.shape, row);
    row << "}, DType::" << dtype
        << ", layout::Format::" << formatName(q.format()) << ", "
        << flag(q.fp8Dtype == teq::layout::Encoding::E5M2) << ", "
        << flag(rowwise) << ", " << flag(columnwise) << ", "
        << flag(proto.scaleLayout == "gemm_swizzled") << ", "
        << flag(q.forcePow2Scales) << ", " << floatLiteral(q.amaxEpsilon)
        << ", "
        << flag(q.kind == teq::artifact::QuantizerKind::MXFP8 &&
                q.with2DQuantization)
        << ", " << flag(zeroRowScales) << ", " << flag(zeroColScales) << "},\n";
  }

  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file)
    return emitError(manifestLoc, "case table: ") << error;
  file->os() << "// Generated by te-opt --teq-test-kernels-to-cpu.\n"
             << "#ifdef TEQ_TILE_KERNEL\n"
             << declarations << "#else\n"
             << rows << "#endif\n";
  file->keep();
  return success();
}

struct TestKernelsToCPU
    : public teq::test::impl::TestKernelsToCPUBase<TestKernelsToCPU> {
  using Base::Base;

  void runOnOperation() override;
};

void TestKernelsToCPU::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<Operation *> original = llvm::map_to_vector(
      module.getBody()->getOperations(), [](Operation &op) { return &op; });

  // The kernels to convert: every kernel, or the ones named.
  llvm::StringSet<> named(llvm::from_range, kernels), found;
  SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
  SmallVector<gpu::GPUFuncOp> selected;
  llvm::StringMap<KernelSummary> summaries;
  for (gpu::GPUModuleOp gpuModule : gpuModules)
    for (auto kernel : gpuModule.getOps<gpu::GPUFuncOp>()) {
      if (!kernel.isKernel() ||
          (!named.empty() && !named.contains(kernel.getName())))
        continue;
      found.insert(kernel.getName());
      selected.push_back(kernel);
      KernelSummary &summary = summaries[kernel.getName()];
      summary.numArguments = kernel.getNumArguments();
      for (BlockArgument buffer : kernel.getWorkgroupAttributions()) {
        auto type = cast<MemRefType>(buffer.getType());
        summary.workgroupBytes.push_back(type.getNumElements() *
                                         type.getElementTypeBitWidth() / 8);
      }
    }
  bool missing = false;
  for (const auto &name : named)
    if (!found.contains(name.getKey())) {
      emitError(module.getLoc(), "no kernel named '") << name.getKey() << "'";
      missing = true;
    }
  if (missing)
    return signalPassFailure();
  if (selected.empty()) {
    emitError(module.getLoc(), "no kernels to convert");
    return signalPassFailure();
  }

  if (!caseTable.empty() &&
      failed(writeCaseTable(module, caseTable, summaries)))
    return signalPassFailure();

  // The grid of each kernel's launches, for gpu.grid_dim.
  llvm::StringMap<LaunchGrid> grids;
  module.walk([&](gpu::LaunchFuncOp launch) {
    LaunchGrid &grid = grids[launch.getKernelName().getValue()];
    gpu::KernelDim3 sizes = launch.getGridSizeOperandValues();
    Value values[3] = {sizes.x, sizes.y, sizes.z};
    for (unsigned d = 0; d < 3; ++d) {
      APInt size;
      std::optional<int64_t> constant;
      if (matchPattern(values[d], m_ConstantInt(&size)))
        constant = size.getSExtValue();
      grid.size[d] =
          !grid.launched || grid.size[d] == constant ? constant : std::nullopt;
    }
    grid.launched = true;
  });

  // Per-thread functions take the workgroup buffers as arguments, so their
  // types must match the test's rank-1 descriptors.
  if (perThread)
    for (gpu::GPUFuncOp kernel : selected)
      for (BlockArgument buffer : kernel.getWorkgroupAttributions())
        if (cast<MemRefType>(buffer.getType()).getRank() != 1) {
          kernel.emitError("per thread, workgroup buffers must be rank 1");
          return signalPassFailure();
        }

  auto builder = OpBuilder::atBlockEnd(module.getBody());
  HostFunctions host(module);
  for (gpu::GPUModuleOp gpuModule : gpuModules)
    for (auto global : gpuModule.getOps<memref::GlobalOp>()) {
      auto copy = cast<memref::GlobalOp>(builder.clone(*global));
      copy.setType(cast<MemRefType>(withoutGpuAddressSpace(copy.getType())));
    }
  LaunchGrid notLaunched;
  for (gpu::GPUFuncOp kernel : selected) {
    auto grid = grids.find(kernel.getName());
    KernelConverter converter(kernel,
                              grid == grids.end() ? notLaunched : grid->second,
                              host, perThread);
    if (failed(converter.convert(builder)))
      return signalPassFailure();
  }

  // What remains is CPU code: no host code, gpu.modules or their attributes.
  for (Operation *op : original)
    op->erase();
  module->setDiscardableAttrs(DictionaryAttr::get(module.getContext()));
}

} // namespace
