//===- DecomposeActivations.cpp - Activations as arith/math ops -----------===//
//
// Each teq.activation / teq.activation_backward becomes arith/math ops on
// f32 tensors with TE's formulas as written (te-layer-semantics.md §2.1),
// between one exact upcast of the operands and one rounding of the result
// (§2.3). The elementwise GPU lowering fuses them into one kernel.
//
//===----------------------------------------------------------------------===//

#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Dialect/TEQ/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <cmath>
#include <map>

namespace mlir::teq {
#define GEN_PASS_DEF_DECOMPOSEACTIVATIONS
#include "teq/Dialect/TEQ/Transforms/Passes.h.inc"
} // namespace mlir::teq

using namespace mlir;
using namespace mlir::teq;

namespace {

// TE's constants (common/util/math.h), as its f32 literals.
constexpr float kGeluC0 = 0.79788456f;        // sqrt(2/pi)
constexpr float kGeluC1 = 0.03567741f;        // c0 * 0.044715, forward only
constexpr float kGeluCubic = 0.044715f;       // backward's tanh argument
constexpr float kGeluDerivC = 0.1070322243f;  // 3 * 0.044715 * c0
constexpr float kQGeluAlpha = 1.702f;
// PyTorch's exact GELU (aten/src/ATen/native/cuda/ActivationGeluKernel.cu):
// kAlpha = M_SQRT1_2, kBeta = M_2_SQRTPI * M_SQRT1_2 * 0.5, in f32.
constexpr float kErfAlpha = static_cast<float>(M_SQRT1_2);
constexpr float kErfBeta = static_cast<float>(M_2_SQRTPI * M_SQRT1_2 * 0.5);
// 2^127: x * 2^127 * 2^127 >= 1 for every positive f32 (2^-149 -> 2^105).
constexpr float kStepScale = 0x1p127f;

/// The activation a gated kind applies to its first half.
ActivationKind gatedBase(ActivationKind kind) {
  switch (kind) {
  case ActivationKind::geglu:
    return ActivationKind::gelu;
  case ActivationKind::qgeglu:
    return ActivationKind::qgelu;
  case ActivationKind::reglu:
    return ActivationKind::relu;
  case ActivationKind::sreglu:
    return ActivationKind::srelu;
  case ActivationKind::swiglu:
    return ActivationKind::silu;
  case ActivationKind::glu:
    return ActivationKind::sigmoid;
  default:
    return kind;
  }
}

/// Builds TE's scalar formulas on f32 tensors of one shape.
class Formulas {
public:
  Formulas(ImplicitLocOpBuilder &b, RankedTensorType f32Type)
      : b(b), type(f32Type) {}

  Value constant(float value) {
    auto [it, inserted] = constants.try_emplace(value, Value());
    if (inserted)
      it->second = arith::ConstantOp::create(
          b, DenseElementsAttr::get(type, b.getF32FloatAttr(value)));
    return it->second;
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, x, y); }
  Value mul(float c, Value x) { return mul(constant(c), x); }
  Value maxnum(Value x, float c) {
    return arith::MaxNumFOp::create(b, x, constant(c));
  }

  /// TE's sigmoidf: 1 / (1 + expf(-x)), once per value.
  Value sigmoid(Value x) {
    Value &s = sigmoids[x];
    if (!s) {
      Value e = math::ExpOp::create(b, arith::NegFOp::create(b, x));
      s = div(constant(1), add(constant(1), e));
    }
    return s;
  }
  /// TE's dsigmoid: s * (1 - s).
  Value dsigmoid(Value x) {
    Value s = sigmoid(x);
    return mul(s, sub(constant(1), s));
  }
  /// relu(x) = fmaxf(x, 0): a NaN gives 0.
  Value relu(Value x) { return maxnum(x, 0); }

  /// f(x) of a non-gated kind.
  Value forward(ActivationKind kind, Value x) {
    switch (kind) {
    case ActivationKind::gelu: {
      // x * (0.5 + 0.5 * tanh(x * (c0 + c1 * x * x)))
      Value inner = add(constant(kGeluC0), mul(mul(kGeluC1, x), x));
      Value t = math::TanhOp::create(b, mul(x, inner));
      return mul(x, add(constant(0.5f), mul(0.5f, t)));
    }
    case ActivationKind::gelu_erf: {
      // x * 0.5 * (1 + erf(x * kAlpha))
      Value e = math::ErfOp::create(b, mul(x, constant(kErfAlpha)));
      return mul(mul(x, constant(0.5f)), add(constant(1), e));
    }
    case ActivationKind::qgelu:
      return mul(x, sigmoid(mul(kQGeluAlpha, x)));
    case ActivationKind::silu:
      return mul(x, sigmoid(x));
    case ActivationKind::relu:
      return relu(x);
    case ActivationKind::srelu: {
      // x > 0 ? x * x : 0, as relu(x)^2 (the same for every x, NaN too).
      Value r = relu(x);
      return mul(r, r);
    }
    case ActivationKind::tanh:
      return math::TanhOp::create(b, x);
    case ActivationKind::sigmoid:
      return sigmoid(x);
    default:
      llvm_unreachable("a gated kind has no scalar forward");
    }
  }

  /// f'(x) of a non-gated kind.
  Value derivative(ActivationKind kind, Value x) {
    switch (kind) {
    case ActivationKind::gelu: {
      // t = tanh(c0 * x * (1 + 0.044715 * x * x));
      // 0.5 * x * ((1 - t * t) * (c0 + 0.1070322243 * x * x)) + 0.5 * (1 + t)
      Value arg = mul(mul(kGeluC0, x),
                      add(constant(1), mul(mul(kGeluCubic, x), x)));
      Value t = math::TanhOp::create(b, arg);
      Value slope = mul(sub(constant(1), mul(t, t)),
                        add(constant(kGeluC0), mul(mul(kGeluDerivC, x), x)));
      return add(mul(mul(0.5f, x), slope), mul(0.5f, add(constant(1), t)));
    }
    case ActivationKind::gelu_erf: {
      // cdf + x * pdf, cdf = 0.5 * (1 + erf(x * kAlpha)),
      // pdf = exp(-0.5 * x * x) * kBeta
      Value cdf = mul(0.5f, add(constant(1), math::ErfOp::create(
                                                 b, mul(x, constant(kErfAlpha)))));
      Value pdf = mul(math::ExpOp::create(b, mul(mul(-0.5f, x), x)),
                      constant(kErfBeta));
      return add(cdf, mul(x, pdf));
    }
    case ActivationKind::qgelu: {
      // alpha * x * dsigmoid(alpha * x) + sigmoid(alpha * x)
      Value ax = mul(kQGeluAlpha, x);
      return add(mul(ax, dsigmoid(ax)), sigmoid(ax));
    }
    case ActivationKind::silu:
      return add(mul(x, dsigmoid(x)), sigmoid(x));
    case ActivationKind::relu: {
      // x > 0 ? 1 : 0, as min(max(x * 2^127 * 2^127, 0), 1): the
      // elementwise kernels and te-run's check carry no i1 tensors.
      Value scaled = mul(mul(x, constant(kStepScale)), constant(kStepScale));
      return arith::MinNumFOp::create(b, maxnum(scaled, 0), constant(1));
    }
    case ActivationKind::srelu:
      // fmaxf(2x, 0)
      return maxnum(mul(2.0f, x), 0);
    case ActivationKind::tanh: {
      Value t = math::TanhOp::create(b, x);
      return sub(constant(1), mul(t, t));
    }
    case ActivationKind::sigmoid:
      return dsigmoid(x);
    default:
      llvm_unreachable("a gated kind has no scalar derivative");
    }
  }

private:
  ImplicitLocOpBuilder &b;
  RankedTensorType type;
  std::map<float, Value> constants;
  DenseMap<Value, Value> sigmoids;
};

/// `v` as f32 (exact).
Value upcast(ImplicitLocOpBuilder &b, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType().isF32())
    return v;
  return arith::ExtFOp::create(b, type.clone(b.getF32Type()), v);
}

/// `v` (f32) rounded once to `element`.
Value roundTo(ImplicitLocOpBuilder &b, Value v, Type element) {
  if (element.isF32())
    return v;
  auto type = cast<RankedTensorType>(v.getType());
  return arith::TruncFOp::create(b, type.clone(element), v);
}

/// The half of `x` ([..., 2n]) at last-dim offset 0 or n: [..., n].
Value half(ImplicitLocOpBuilder &b, Value x, bool second) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  int64_t n = type.getShape().back() / 2;
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes, strides(rank, b.getIndexAttr(1));
  for (int64_t d : type.getShape().drop_back())
    sizes.push_back(b.getIndexAttr(d));
  sizes.push_back(b.getIndexAttr(n));
  if (second)
    offsets.back() = b.getIndexAttr(n);
  return tensor::ExtractSliceOp::create(b, x, offsets, sizes, strides);
}

RankedTensorType f32Like(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  return type.clone(Float32Type::get(v.getContext()));
}

Value decomposeForward(ImplicitLocOpBuilder &b, ActivationOp op) {
  ActivationKind kind = op.getKind();
  Type element = op.getResult().getType().getElementType();
  if (!ActivationOp::isGated(kind)) {
    Value x = upcast(b, op.getInput());
    Formulas f(b, f32Like(x));
    return roundTo(b, f.forward(kind, x), element);
  }
  // f(a) * b, a the first half (TE's half order, §2.2).
  Value a = upcast(b, half(b, op.getInput(), /*second=*/false));
  Value linear = upcast(b, half(b, op.getInput(), /*second=*/true));
  Formulas f(b, f32Like(a));
  return roundTo(b, f.mul(f.forward(gatedBase(kind), a), linear), element);
}

Value decomposeBackward(ImplicitLocOpBuilder &b, ActivationBackwardOp op) {
  ActivationKind kind = op.getKind();
  Type element = op.getResult().getType().getElementType();
  Value g = upcast(b, op.getGrad());
  Formulas f(b, f32Like(g));
  if (!ActivationOp::isGated(kind)) {
    Value x = upcast(b, op.getInput());
    return roundTo(b, f.mul(f.derivative(kind, x), g), element);
  }
  // TE's dgated_act_kernel: da = (f'(a) * g) * b, db = g * f(a); dx = [da|db].
  Value a = upcast(b, half(b, op.getInput(), /*second=*/false));
  Value linear = upcast(b, half(b, op.getInput(), /*second=*/true));
  ActivationKind base = gatedBase(kind);
  Value da = f.mul(f.mul(f.derivative(base, a), g), linear);
  Value db = f.mul(g, f.forward(base, a));
  int64_t lastDim = op.getResult().getType().getRank() - 1;
  return tensor::ConcatOp::create(
      b, lastDim, ValueRange{roundTo(b, da, element), roundTo(b, db, element)});
}

struct DecomposeActivationsPass
    : public mlir::teq::impl::DecomposeActivationsBase<
          DecomposeActivationsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<ActivationOp, ActivationBackwardOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      ImplicitLocOpBuilder b(op->getLoc(), op);
      Value result;
      if (auto forward = dyn_cast<ActivationOp>(op))
        result = decomposeForward(b, forward);
      else
        result = decomposeBackward(b, cast<ActivationBackwardOp>(op));
      op->getResult(0).replaceAllUsesWith(result);
      op->erase();
    }
  }
};

} // namespace
