//===- ComputedBy.h - How a value of an entry is computed -------*- C++ -*-===//
//
// A manifest value's "computed_by" (docs/Artifact.md): the op that computes
// an output or temporary of an entry from the entry's other values, with
// the keys each op takes (the one description of them is at ComputedBy
// below). te-run --check evaluates it on the CPU; parseManifest checks every
// computed_by against its entry and the artifact's GEMMs (what it names
// exists and has the types and shapes its op needs, and no value is
// computed from itself).
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_ARTIFACT_COMPUTEDBY_H
#define TEQ_ARTIFACT_COMPUTEDBY_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mlir::teq::artifact {

/// The op a "computed_by" names.
enum class ComputeOp {
  Quantize,             ///< "quantize"
  RecordAmax,           ///< "record_amax"
  DelayedScalingUpdate, ///< "delayed_scaling_update"
  Gemm,                 ///< "gemm"
  BiasGrad,             ///< "bias_grad"
  Copy,                 ///< "copy"
  UpdateUsage,          ///< "update_usage"
  SwizzleScales,        ///< "swizzle_scales"
  ExtractSlice,         ///< "tensor.extract_slice"
  InsertSlice,          ///< "tensor.insert_slice"
  Elementwise,          ///< Any "arith.*" / "math.*" op, by name.
  Constant,             ///< "constant": every element is `value`.
  AllGather,            ///< "all_gather" over `group` (dim 0).
  ReduceScatter,        ///< "reduce_scatter" (sum) over `group` (dim 0).
  AllReduce,            ///< "all_reduce" (sum) over `group`.
  Dequantize,           ///< "dequantize": a quantized input's rowwise
                        ///< values in the result's dtype.
  Concat,               ///< "tensor.concat": inputs joined along the
                        ///< last dimension.
  LayerNorm,            ///< "layer_norm": y, mean or rstd (output).
  LayerNormBackward,    ///< "layer_norm_backward": dx, dgamma or dbeta.
  RMSNorm,              ///< "rms_norm": y or rstd.
  RMSNormBackward,      ///< "rms_norm_backward": dx or dgamma.
};

/// The elementwise ops a computed_by defines ("arith.addf", "math.tanh",
/// ...) and the number of inputs each takes; 0 for any other op. This set is
/// part of the artifact contract: te-run --check recomputes exactly these on
/// the CPU, and the reader checks their inputs' count. A computed_by may
/// still name another arith.* / math.* op (arity 0): the contract then does
/// not say how to recompute it, and te-run reports it not checkable. Adding
/// an op here means defining it in te-run's evaluator too.
int elementwiseArity(const std::string &op);

/// How te-run --check recomputes a value on the CPU ("computed_by"). Values
/// are named as in the entry: an argument or temporary, or "view(name)" (a
/// usage view reads the buffers of what it views). Keys by op:
///   quantize, record_amax   input; scale and amax_history (float8_delayed),
///                           rng_state (stochastic NVFP4)
///   delayed_scaling_update  output (scale | amax_history), scale,
///                           amax_history, fp8_max, margin,
///                           amax_compute_algo (max | most_recent)
///   gemm                    gemm (its id), output (d | dbias), layout (TN,
///                           NN, NT, TT), a, b, bias, accumulate,
///                           use_split_accumulator
///   bias_grad, copy, update_usage, swizzle_scales, dequantize
///                           input (swizzle_scales: every buffer of the
///                           result is the input's, scales reordered for
///                           the GEMM; update_usage: the buffers both have
///                           are the input's, the others derived)
///   tensor.extract_slice    input, offsets, sizes, strides
///   tensor.insert_slice     input, dest, offsets, sizes, strides
///   arith.* / math.*        inputs
///   tensor.concat           inputs (tensors of one shape but the last
///                           dimension, joined along it in order)
///   constant                value (a splat: every element, exactly, in the
///                           value's dtype)
///   all_gather, reduce_scatter, all_reduce
///                           input, group (the index of a parallel group of
///                           the entry): every rank's input gathered along
///                           dim 0 in rank order (a per-tensor FP8 input:
///                           its data; the other buffers are the rank's
///                           own), or summed (reduce_scatter: rank r keeps
///                           block r of dim 0)
///   layer_norm, rms_norm    output (y | mean | rstd; rms_norm: y | rstd),
///                           x, gamma, beta (layer_norm, optional), eps,
///                           zero_centered_gamma (te-layer-semantics.md §1)
///   layer_norm_backward, rms_norm_backward
///                           output (dx | dgamma | dbeta; rms: dx | dgamma),
///                           dy, x, mean (layer_norm only), rstd, gamma,
///                           zero_centered_gamma; add (dx only, optional:
///                           added to dx in f32 before its rounding, TE's
///                           rmsnorm_bwd_add)
///   quantize also takes amax_group: the amax is the max over that group's
///   ranks of each rank's amax (with_amax_reduction); so does
///   delayed_scaling_update: row 0 of the history is the max over the
///   group's ranks of each rank's row 0 where that max is non-zero
/// An empty name is an absent key.
struct ComputedBy {
  ComputeOp op = ComputeOp::Copy;
  std::string elementwiseOp; ///< Elementwise: "arith.addf", "math.tanh", ...
  std::string input;
  std::vector<std::string> inputs; ///< Elementwise, concat.
  std::string dest;                ///< insert_slice.
  std::string scale, amaxHistory;
  std::string rngState;
  /// delayed_scaling_update: the updated scale, else the amax history.
  bool outputsScale = true;
  double fp8Max = 0.0;
  int64_t margin = 0;
  bool mostRecentAmax = false; ///< amax_compute_algo: most_recent, else max.
  /// gemm: the manifest's GEMM id; D, else the dbias.
  int64_t gemm = 0;
  bool outputsD = true;
  bool transa = false, transb = false; ///< TE's layout, e.g. TN.
  std::string a, b, bias, accumulate;
  bool useSplitAccumulator = false;
  std::vector<int64_t> offsets, sizes, strides; ///< Slices.
  double value = 0.0; ///< constant (finite).
  /// Collectives: the group they run over; quantize and
  /// delayed_scaling_update: the group the amax is reduced over
  /// ("amax_group"). -1: none.
  int64_t group = -1;
  /// Norms: the op's result this value is ("y", "mean", "rstd", "dx",
  /// "dgamma", "dbeta"), its operands, eps (forwards) and
  /// zero_centered_gamma.
  std::string normOutput;
  std::string x, gamma, beta, dy, mean, rstd;
  std::string add; ///< A norm backward's dx: the tensor added to it.
  double eps = 0.0;
  bool zeroCenteredGamma = false;

  /// "quantize", "gemm", "tensor.extract_slice", "arith.addf", ...
  std::string opName() const;
  /// "TN", "NN", ... (gemm).
  std::string layoutName() const;
  /// Every value it names, with the key that names it ("input",
  /// "inputs[1]", ...), in the order of the keys above.
  std::vector<std::pair<std::string, std::string>> namedValues() const;
};

} // namespace mlir::teq::artifact

#endif // TEQ_ARTIFACT_COMPUTEDBY_H
