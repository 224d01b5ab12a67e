//===- GemmDescriptor.cpp - teq.gemm as one cuBLASLt matmul --------------===//

#include "GemmDescriptor.h"

#include "teq/Layout/BufferLayout.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::gemm;

namespace {

using artifact::GemmEpilogue;
using artifact::GemmScaleMode;
using artifact::GemmType;

GemmType highPrecisionType(Type t) {
  if (t.isBF16())
    return GemmType::BF16;
  if (t.isF16())
    return GemmType::F16;
  return GemmType::F32;
}

GemmType quantizedType(QuantizerAttrInterface q) {
  if (isa<NVFP4QuantizerAttr>(q))
    return GemmType::E2M1;
  return isa<Float8E5M2Type>(q.getDataType()) ? GemmType::E5M2
                                              : GemmType::E4M3;
}

/// Row-major [rows, cols] of an operand flattened as TE does.
std::pair<int64_t, int64_t> flat(Type type) {
  ArrayRef<int64_t> shape = isa<TensorProtoType>(type)
                                ? cast<TensorProtoType>(type).getShape()
                                : cast<RankedTensorType>(type).getShape();
  layout::Flat2D f =
      layout::flatten2D(std::vector<int64_t>(shape.begin(), shape.end()));
  return {f.m, f.k};
}

} // namespace

FailureOr<GemmDescriptor> mlir::teq::gemm::describeGemm(GemmOp op,
                                                         TargetAttr target) {
  GemmDescriptor desc;
  artifact::GemmSpec &d = desc.spec;
  Type aType = op.getA().getType(), bType = op.getB().getType();
  auto [a0, a1] = flat(aType);
  auto [b0, b1] = flat(bType);
  bool transa = op.isTransA(), transb = op.isTransB();
  // te-semantics.md §6.2: D (column-major m x n) = op(A) op(B).
  d.m = transa ? a0 : a1;
  d.k = transa ? a1 : a0;
  d.n = transb ? b1 : b0;
  d.ldd = d.m;
  Type out = op.getResult().getType().getElementType();
  d.dType = highPrecisionType(out);
  if (Value bias = op.getBias()) {
    d.epilogue = GemmEpilogue::Bias;
    d.biasType = highPrecisionType(
        cast<RankedTensorType>(bias.getType()).getElementType());
  }
  if (Value dbias = op.getDbias()) {
    // BGRADB sums over B: "grad output is always input B".
    d.epilogue = GemmEpilogue::BGradB;
    d.biasType = highPrecisionType(
        cast<RankedTensorType>(dbias.getType()).getElementType());
  }
  // (The verifier makes C's type D's, as cuBLASLt reads it.)
  d.accumulate = static_cast<bool>(op.getAccumulate());

  auto aProto = dyn_cast<TensorProtoType>(aType);
  auto bProto = dyn_cast<TensorProtoType>(bType);
  if (!aProto) {
    // High precision: row-major [X0, X1] is column-major X1 x X0, so the
    // leading dimension is X1 whichever way the operand is used.
    d.transa = transa;
    d.transb = transb;
    d.lda = a1;
    d.ldb = b1;
    d.aType = highPrecisionType(cast<RankedTensorType>(aType).getElementType());
    d.bType = highPrecisionType(cast<RankedTensorType>(bType).getElementType());
    d.fastTf32 = d.aType == GemmType::F32 && d.bType == GemmType::F32 &&
                 d.dType == GemmType::F32;
    return desc;
  }

  QuantizerAttrInterface qa = aProto.getQuantizer(), qb = bProto.getQuantizer();
  d.aType = quantizedType(qa);
  d.bType = quantizedType(qb);
  bool fp4 = isa<NVFP4QuantizerAttr>(qa);
  d.fastAccum = !op.getUseSplitAccumulator() && !fp4;
  // Blackwell's block-scaled GEMMs (layout::TargetCaps).
  bool blackwell = target.getCaps().hasBlockScaledGemms();

  // Which stored copy each operand is read from; `transposedCopies` = the
  // columnwise copy is physically transposed, so reading it runs TN.
  auto tnOperands = [&](StringRef rowData, StringRef colData,
                        StringRef rowScale, StringRef colScale) {
    d.transa = true;
    d.transb = false;
    d.lda = d.k;
    d.ldb = d.k;
    desc.a = {(transa ? rowData : colData).str(),
              (transa ? rowScale : colScale).str(), ""};
    desc.b = {(!transb ? rowData : colData).str(),
              (!transb ? rowScale : colScale).str(), ""};
  };

  if (isa<Float8CurrentScalingQuantizerAttr, Float8QuantizerAttr>(qa)) {
    d.aScaleMode = d.bScaleMode = GemmScaleMode::ScalarF32;
    if (!target.isNonTNFP8GemmSupported()) {
      // Hopper, Ada and SM 12.x run FP8 TN only: the transposed copies serve
      // N operands.
      tnOperands("data", "transpose", "scale_inv", "scale_inv");
    } else {
      // One data buffer serves both usages; cuBLASLt takes any layout.
      d.transa = transa;
      d.transb = transb;
      d.lda = a1;
      d.ldb = b1;
      desc.a = {"data", "scale_inv", ""};
      desc.b = {"data", "scale_inv", ""};
    }
  } else if (auto ba = dyn_cast<Float8BlockQuantizerAttr>(qa)) {
    if (blackwell)
      return op.emitOpError("FP8 block-scaled GEMMs on ")
             << target.getChip()
             << " run as MXFP8 after a scale conversion that has no lowering "
                "yet; FP8 block-scaled GEMMs are lowered for sm_89/sm_90";
    auto bb = cast<Float8BlockQuantizerAttr>(qb);
    tnOperands("rowwise_data", "columnwise_data", "rowwise_scale_inv",
               "columnwise_scale_inv");
    auto blockMode = [](Float8BlockQuantizerAttr q) {
      return q.getBlockScalingDim() == 2 ? GemmScaleMode::Blk128x128F32
                                         : GemmScaleMode::Vec128F32;
    };
    d.aScaleMode = blockMode(ba);
    d.bScaleMode = blockMode(bb);
    if (d.m % 8 != 0)
      return op.emitOpError("FP8 block-scaled GEMMs need m % 8 == 0 "
                            "(cuBLASLt), got m = ")
             << d.m;
    if (bb.getBlockScalingDim() == 1 && d.n % 8 != 0)
      return op.emitOpError("FP8 block-scaled GEMMs with a 1D-scaled B need "
                            "n % 8 == 0 (cuBLASLt), got n = ")
             << d.n;
  } else if (isa<MXFP8QuantizerAttr>(qa)) {
    if (!blackwell)
      return op.emitOpError("MXFP8 GEMMs need sm_100 or newer, the module "
                            "targets ")
             << target.getChip();
    if (aProto.getScaleLayout() != ScaleLayout::gemm_swizzled ||
        bProto.getScaleLayout() != ScaleLayout::gemm_swizzled)
      return op.emitOpError("MXFP8 scales are not in format expected by GEMM "
                            "(both operands need scale_layout = "
                            "gemm_swizzled)");
    // MXFP8 keeps the logical layout; columnwise copies are not transposed.
    d.transa = transa;
    d.transb = transb;
    d.lda = transa ? d.k : d.m;
    d.ldb = transb ? d.n : d.k;
    desc.a = transa
                 ? OperandBuffers{"rowwise_data", "rowwise_scale_inv", ""}
                 : OperandBuffers{"columnwise_data", "columnwise_scale_inv", ""};
    desc.b = !transb
                 ? OperandBuffers{"rowwise_data", "rowwise_scale_inv", ""}
                 : OperandBuffers{"columnwise_data", "columnwise_scale_inv", ""};
    d.aScaleMode = d.bScaleMode = GemmScaleMode::Vec32UE8M0;
  } else {
    if (!blackwell)
      return op.emitOpError("NVFP4 GEMMs need sm_100 or newer, the module "
                            "targets ")
             << target.getChip();
    if (aProto.getScaleLayout() != ScaleLayout::gemm_swizzled ||
        bProto.getScaleLayout() != ScaleLayout::gemm_swizzled)
      return op.emitOpError("NVFP4 scales are not in format expected by GEMM "
                            "(both operands need scale_layout = "
                            "gemm_swizzled)");
    tnOperands("rowwise_data", "columnwise_data", "rowwise_scale_inv",
               "columnwise_scale_inv");
    // The global scales fold into a device alpha (te-semantics.md §6.2).
    desc.a.amax = transa ? "amax_rowwise" : "amax_columnwise";
    desc.b.amax = !transb ? "amax_rowwise" : "amax_columnwise";
    d.aScaleMode = d.bScaleMode = GemmScaleMode::Vec16UE4M3;
    d.alphaOnDevice = true;
  }

  bool fp8 = !fp4;
  if (fp8 && (d.lda % 16 != 0 || d.ldb % 16 != 0))
    return op.emitOpError("cuBLASLt FP8 GEMMs need leading dimensions that "
                          "are multiples of 16; this GEMM has lda = ")
           << d.lda << " and ldb = " << d.ldb << " (m = " << d.m
           << ", n = " << d.n << ", k = " << d.k << "); pad the tensors";
  if (fp4 && (d.k % 32 != 0))
    return op.emitOpError("NVFP4 GEMMs need k % 32 == 0, got k = ") << d.k;
  if (auto physical = op.getPhysicalLayout()) {
    bool pa = *physical == GemmLayout::TN || *physical == GemmLayout::TT;
    bool pb = *physical == GemmLayout::NT || *physical == GemmLayout::TT;
    if (pa != d.transa || pb != d.transb)
      return op.emitOpError("physical_layout ")
             << stringifyGemmLayout(*physical)
             << " disagrees with the layout cuBLASLt runs on "
             << target.getChip() << " ("
             << (d.transa ? "T" : "N") << (d.transb ? "T" : "N")
             << "); was the module compiled for another target?";
  }
  return desc;
}
