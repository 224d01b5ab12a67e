//===- te-run.cpp - Run a TEQ artifact on the GPU -------------------------===//
//
//   te-run ARTIFACT [--entry NAME] [--device N] [--seed N] [--inputs DIR]
//          [--outputs DIR] [--check] [--bench] [--warmup N] [--iters N]
//          [--json] [--list] [--nranks N]
//
// Loads an artifact (docs/Artifact.md), allocates every buffer of the chosen
// entries (all of them without --entry), fills the inputs with seeded random
// values or reads them from --inputs, runs each entry once (checking its
// errors and waiting for it), then optionally compares the outputs with the
// CPU reference (--check) and times it (--bench). Every failure is printed
// ("te-run: error: ...") and makes the exit status non-zero.
//
// Inputs (deterministic for a given --seed):
//   input tensors (f32/bf16/f16)  N(0, 1), rounded to the dtype
//   inout tensors (recipe state)  |N(0, 1)| (positive scales and amaxes)
//   i64[2] rng_state (seed,       two 64-bit words from the --seed stream
//   offset of stochastic rounding) (all 64 bits vary; --fill is ignored)
//   proto inputs                  N(0, 1) quantized by the CPU reference
//                                 (random valid codes if it cannot)
//   outputs                       pre-filled with 0xA5 bytes, so --check
//                                 sees bytes the entry failed to write
// --inputs DIR reads <arg>.bin (tensors) or <arg>.<buffer>.bin (proto
// buffers) for every input and inout argument instead: raw bytes, exactly the
// buffer's size. --outputs DIR writes every output and inout buffer after the
// first run under the same names.
//
// --bench: --warmup runs, then --iters runs each timed with CUDA events on
// the runtime's stream; reports the median (and min/max) and GB/s, where the
// bytes are those of all buffers read plus all buffers written (inputs once,
// outputs once, inout twice; from the manifest).
//
// --nranks N runs a multi-rank artifact (entries with parallel groups,
// teq/Runtime/Communicator.h) on N GPUs of this host, devices --device ..
// --device+N-1, one thread per rank: one NCCL unique id per group, shared by
// the threads, and one communicator per group and rank. Every group must span
// the N ranks. Rank r's inputs come from --seed mixed with r (rank 0's are
// those of a one-rank run). Each rank runs the entries in the same order;
// --check keeps every rank's inputs and outputs and checks each rank once all
// ran, values computed by collectives from every rank's (Check.h); --bench
// times the step
// on every rank (the ranks start each timed loop together) and reports, per
// entry, each rank's median and the step's: per iteration the slowest rank.
// A rank that fails aborts the communicators, so no rank waits for it: also
// while the others are still creating theirs (non-blocking NCCL
// initialization, polled), so that te-run exits with the failing rank's
// error instead of hanging. (TEQ_TE_RUN_FAIL_RANK=r, for tests, makes rank r
// fail just before it creates its communicators.)
//
// --list prints the manifest's entries and arguments and its GEMMs. It works
// without a GPU or a driver and loads none of the artifact's code: the
// manifest comes from the artifact's trailer, checked (length, checksum) and
// validated like every artifact the runtime opens (docs/Artifact.md, "The
// artifact file"); the GEMMs' algorithms, chosen on the device, are not known
// there. A run prints, and --json reports, the algorithm cuBLASLt
// chose for each GEMM when the artifact was opened.
//
//===----------------------------------------------------------------------===//

#include "Check.h"

#include "teq/Reference/Numerics.h"
#include "teq/Runtime/Artifact.h"
#include "teq/Runtime/Communicator.h"
#include "teq/Runtime/Context.h"
#include "teq/Runtime/DeviceBuffer.h"
#include "teq/Runtime/Gemm.h"
#include "teq/Runtime/Json.h"
#include "teq/Runtime/Manifest.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <condition_variable>
#include <limits>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

using namespace mlir::teq;
using namespace mlir::teq::runtime;
using namespace mlir::teq::terun;

namespace {

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

const char *kUsage =
    "usage: te-run ARTIFACT [options]\n"
    "\n"
    "Runs the entries of a TEQ artifact (a shared library from te-compile).\n"
    "\n"
    "  --entry NAME   run only this entry (default: every entry)\n"
    "  --device N     CUDA device ordinal (default 0)\n"
    "  --seed N       seed of the random inputs (default 0)\n"
    "  --fill KIND    input values: random (default, N(0,1)), zeros, huge (one\n"
    "                 bf16-max value among N(0,1)), denormal (only subnormal\n"
    "                 values), ties (exact FP8 rounding ties with amax 448),\n"
    "                 special (zeros, -0, subnormals, +-max, one inf, one NaN,\n"
    "                 ties)\n"
    "  --inputs DIR   read inputs from DIR/<arg>.bin, DIR/<arg>.<buffer>.bin\n"
    "  --outputs DIR  write outputs to DIR/<arg>.bin, DIR/<arg>.<buffer>.bin\n"
    "  --check        compare the outputs with the CPU reference\n"
    "  --bench        time the entries (CUDA events, median)\n"
    "  --warmup N     untimed runs before timing (default 10)\n"
    "  --iters N      timed runs (default 100)\n"
    "  --json         print the results as JSON\n"
    "  --list         print the entries and their arguments (no GPU needed)\n"
    "  --nranks N     run a multi-rank artifact on N GPUs (devices --device ..\n"
    "                 --device+N-1), one thread and NCCL communicator per rank\n"
    "  --help         print this help\n";

struct Options {
  std::string artifact;
  std::string entry;
  int device = 0;
  uint64_t seed = 0;
  std::string fill = "random";
  std::string inputsDir;
  std::string outputsDir;
  bool check = false;
  bool bench = false;
  int warmup = 10;
  int iters = 100;
  bool json = false;
  bool list = false;
  bool help = false;
  int nranks = 0; ///< 0: one GPU, no communicators.
};

StatusOr<uint64_t> parseUnsigned(const std::string &option,
                                 const std::string &text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return Status::error(option + " expects a non-negative integer, got '" +
                         text + "'");
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  if (errno != 0)
    return Status::error(option + ": '" + text + "' is out of range");
  return static_cast<uint64_t>(value);
}

StatusOr<Options> parseOptions(int argc, char **argv) {
  Options options;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    std::string value;
    bool hasInlineValue = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        hasInlineValue = true;
      }
    }
    auto takeValue = [&]() -> StatusOr<std::string> {
      if (hasInlineValue)
        return value;
      if (i + 1 >= args.size())
        return Status::error(arg + " expects a value");
      return args[++i];
    };
    auto flag = [&](bool &target) -> Status {
      if (hasInlineValue)
        return Status::error(arg + " takes no value");
      target = true;
      return Status::success();
    };
    auto number = [&](uint64_t max, auto &target) -> Status {
      auto text = takeValue();
      if (!text.ok())
        return text.status();
      auto parsed = parseUnsigned(arg, *text);
      if (!parsed.ok())
        return parsed.status();
      if (*parsed > max)
        return Status::error(arg + ": " + *text + " is too large");
      target = static_cast<std::remove_reference_t<decltype(target)>>(*parsed);
      return Status::success();
    };

    if (arg == "--help" || arg == "-h") {
      TEQ_RETURN_IF_ERROR(flag(options.help));
    } else if (arg == "--entry") {
      auto text = takeValue();
      if (!text.ok())
        return text.status();
      options.entry = *text;
    } else if (arg == "--inputs") {
      auto text = takeValue();
      if (!text.ok())
        return text.status();
      options.inputsDir = *text;
    } else if (arg == "--outputs") {
      auto text = takeValue();
      if (!text.ok())
        return text.status();
      options.outputsDir = *text;
    } else if (arg == "--device") {
      TEQ_RETURN_IF_ERROR(number(1024, options.device));
    } else if (arg == "--nranks") {
      TEQ_RETURN_IF_ERROR(number(1024, options.nranks));
      if (options.nranks == 0)
        return Status::error("--nranks must be at least 1");
    } else if (arg == "--fill") {
      auto text = takeValue();
      if (!text.ok())
        return text.status();
      options.fill = *text;
      if (options.fill != "random" && options.fill != "zeros" &&
          options.fill != "huge" && options.fill != "denormal" &&
          options.fill != "ties" && options.fill != "special")
        return Status::error("unknown --fill '" + options.fill +
                             "'; expected random, zeros, huge, denormal, "
                             "ties or special");
    } else if (arg == "--seed") {
      TEQ_RETURN_IF_ERROR(number(UINT64_MAX, options.seed));
    } else if (arg == "--warmup") {
      TEQ_RETURN_IF_ERROR(number(1000000, options.warmup));
    } else if (arg == "--iters") {
      TEQ_RETURN_IF_ERROR(number(1000000, options.iters));
    } else if (arg == "--check") {
      TEQ_RETURN_IF_ERROR(flag(options.check));
    } else if (arg == "--bench") {
      TEQ_RETURN_IF_ERROR(flag(options.bench));
    } else if (arg == "--json") {
      TEQ_RETURN_IF_ERROR(flag(options.json));
    } else if (arg == "--list") {
      TEQ_RETURN_IF_ERROR(flag(options.list));
    } else if (arg.rfind("-", 0) == 0 && arg != "-") {
      return Status::error("unknown option '" + arg + "'");
    } else if (options.artifact.empty()) {
      options.artifact = arg;
    } else {
      return Status::error("unexpected argument '" + arg +
                           "' (one artifact at a time)");
    }
  }
  if (options.help)
    return options;
  if (options.artifact.empty())
    return Status::error("no artifact given");
  if (options.bench && options.iters == 0)
    return Status::error("--iters must be at least 1");
  return options;
}

//===----------------------------------------------------------------------===//
// Formatting
//===----------------------------------------------------------------------===//

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string padRight(std::string text, size_t width) {
  if (text.size() < width)
    text.append(width - text.size(), ' ');
  return text;
}

/// One line describing a manifest GEMM (no algorithm: that is chosen on the
/// device).
std::string describeGemmSpec(const GemmSpec &g) {
  std::string text = std::to_string(g.id) + " " + g.name + ": " +
                     g.describeProblem() + ", scales " +
                     stringifyGemmScaleMode(g.aScaleMode) + "/" +
                     stringifyGemmScaleMode(g.bScaleMode) + ", epilogue " +
                     stringifyGemmEpilogue(g.epilogue);
  if (g.epilogue != GemmEpilogue::Default)
    text += std::string(" (") + stringifyGemmType(g.biasType) + ")";
  if (g.accumulate)
    text += ", accumulate";
  if (g.fastAccum)
    text += ", fast_accum";
  if (g.alphaOnDevice)
    text += ", device alpha";
  if (g.fastTf32)
    text += ", fast tf32";
  if (g.hasAlgo)
    text += ", pinned algo " + std::to_string(g.algo.id) + " tile " +
            std::to_string(g.algo.tile) + " stages " +
            std::to_string(g.algo.stages) + " splitk " +
            std::to_string(g.algo.splitK);
  return text;
}

void printList(const std::string &path, const Manifest &manifest) {
  std::printf("artifact %s: target %s, device code %s, %zu %s", path.c_str(),
              manifest.target.name.c_str(),
              stringifyDeviceCode(manifest.deviceCode), manifest.entries.size(),
              manifest.entries.size() == 1 ? "entry" : "entries");
  if (!manifest.gemms.empty())
    std::printf(", %zu %s", manifest.gemms.size(),
                manifest.gemms.size() == 1 ? "GEMM" : "GEMMs");
  std::printf("\n");
  for (const EntrySpec &entry : manifest.entries) {
    std::printf("\nentry %s (symbol %s): %zu buffers, %lld bytes moved per "
                "call",
                entry.name.c_str(), entry.symbol.c_str(), entry.numBuffers(),
                static_cast<long long>(entry.bytesMoved()));
    if (entry.workspaceBytes > 0)
      std::printf(", %lld-byte workspace",
                  static_cast<long long>(entry.workspaceBytes));
    std::printf("\n");
    // One communicator per group (--nranks).
    for (size_t g = 0; g < entry.groups.size(); ++g) {
      if (entry.groups[g].size == 0) // it only reduces amaxes
        std::printf("  group  %zu %s of any size\n", g,
                    entry.groups[g].name.c_str());
      else
        std::printf("  group  %zu %s of %lld ranks\n", g,
                    entry.groups[g].name.c_str(),
                    static_cast<long long>(entry.groups[g].size));
    }
    std::vector<const ArgSpec *> listed;
    for (const ArgSpec &arg : entry.args)
      listed.push_back(&arg);
    for (const ArgSpec &temporary : entry.temporaries)
      listed.push_back(&temporary);
    // Where a temporary's buffer lives (its "placement").
    auto placed = [](const ArgSpec &arg, size_t b) -> std::string {
      if (b >= arg.placement.size())
        return "";
      const artifact::BufferPlacement &at = arg.placement[b];
      using Where = artifact::BufferPlacement::Where;
      if (at.in == Where::Input)
        return "  in its input's buffer";
      std::string offset = " +" + std::to_string(at.offset);
      if (at.in == Where::Workspace)
        return "  in the workspace" + offset;
      return "  in output '" + at.output + "' buffer " +
             std::to_string(at.buffer) + offset;
    };
    for (const ArgSpec *argPtr : listed) {
      const ArgSpec &arg = *argPtr;
      std::string type;
      if (arg.isProto) {
        type = "proto " + arg.proto.dtype + formatShape(arg.proto.shape) +
               " " + arg.proto.quantizerKind() + " " + arg.proto.usage;
        if (!arg.proto.scaleLayout.empty())
          type += " " + arg.proto.scaleLayout;
      } else {
        type = "tensor " + arg.tensor.dtype + formatShape(arg.tensor.shape);
      }
      std::string computed;
      if (arg.computedBy)
        computed = "  = " + toJson(*arg.computedBy).serialize();
      std::string size =
          arg.inRegisters
              ? std::string("in registers")
              : std::to_string(static_cast<long long>(arg.totalBytes())) +
                    " bytes";
      if (!arg.isProto)
        size += placed(arg, 0);
      std::printf("  %s %s %s  %s%s\n",
                  padRight(stringifyArgKind(arg.kind), 6).c_str(),
                  padRight(arg.name, 12).c_str(), type.c_str(), size.c_str(),
                  computed.c_str());
      if (!arg.isProto)
        continue;
      for (size_t b = 0; b < arg.buffers.size(); ++b) {
        const BufferSpec &buffer = arg.buffers[b];
        std::string layout = buffer.encoding + formatShape(buffer.shape);
        if (buffer.validShape != buffer.shape)
          layout += " valid " + formatShape(buffer.validShape);
        if (buffer.transposed)
          layout += " transposed";
        if (!buffer.scaleLayout.empty())
          layout += " " + buffer.scaleLayout;
        std::printf("           %s %s  %lld bytes%s\n",
                    padRight(buffer.name, 22).c_str(), layout.c_str(),
                    static_cast<long long>(buffer.bytes),
                    placed(arg, b).c_str());
      }
    }
  }
  if (!manifest.gemms.empty()) {
    std::printf("\nGEMMs (algorithms are chosen on the device when the "
                "artifact is opened):\n");
    for (const GemmSpec &gemm : manifest.gemms)
      std::printf("  %s\n", describeGemmSpec(gemm).c_str());
  }
}

//===----------------------------------------------------------------------===//
// Delayed-scaling state
//===----------------------------------------------------------------------===//

/// Values of an entry that are delayed-scaling state, by name: "scale" or
/// "amax_history" — what some computed_by names under that key, and, through
/// the state slices teq-decompose-linear makes (tensor.extract_slice /
/// insert_slice) and update steps, the arguments they come from.
struct StateRoles {
  std::map<std::string, std::string> roles;
  const std::string *lookup(const std::string &name) const {
    auto it = roles.find(name);
    return it == roles.end() ? nullptr : &it->second;
  }
};

StateRoles stateRoles(const EntrySpec &entry) {
  StateRoles state;
  std::vector<const ArgSpec *> values;
  for (const ArgSpec &a : entry.args)
    values.push_back(&a);
  for (const ArgSpec &t : entry.temporaries)
    values.push_back(&t);
  for (const ArgSpec *v : values)
    if (v->computedBy)
      for (const auto &[key, name] : v->computedBy->namedValues())
        if (key == "scale" || key == "amax_history")
          state.roles.emplace(name, key);
  // Back through slices and update steps to the arguments (a fixpoint: the
  // chains are short).
  for (bool changed = true; changed;) {
    changed = false;
    for (const ArgSpec *v : values) {
      if (!v->computedBy)
        continue;
      const std::string *role = state.lookup(v->name);
      const ComputedBy &by = *v->computedBy;
      if (role && (by.op == ComputeOp::ExtractSlice ||
                   by.op == ComputeOp::InsertSlice))
        for (const std::string *from : {&by.input, &by.dest})
          if (!from->empty() && state.roles.emplace(*from, *role).second)
            changed = true;
    }
  }
  return state;
}

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

/// splitmix64: a small, well-mixed, portable generator (std::normal_
/// distribution differs between standard libraries; this does not).
class Random {
public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in (0, 1].
  double uniform() { return (static_cast<double>(next() >> 11) + 1.0) * 0x1p-53; }
  /// N(0, 1), Box-Muller.
  float normal() {
    if (hasSpare_) {
      hasSpare_ = false;
      return spare_;
    }
    double radius = std::sqrt(-2.0 * std::log(uniform()));
    double angle = 2.0 * M_PI * uniform();
    spare_ = static_cast<float>(radius * std::sin(angle));
    hasSpare_ = true;
    return static_cast<float>(radius * std::cos(angle));
  }

private:
  uint64_t state_;
  bool hasSpare_ = false;
  float spare_ = 0.0f;
};

/// The seed of argument `argIndex` of entry `entryName`.
uint64_t argSeed(uint64_t seed, const std::string &entryName, size_t argIndex) {
  uint64_t h = 1469598103934665603ull; // FNV-1a of the entry name
  for (char c : entryName)
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  Random mix(seed ^ h ^ (0x9E3779B97F4A7C15ull * (argIndex + 1)));
  return mix.next();
}

std::vector<uint8_t> encodeTensor(const std::string &dtype,
                                  const std::vector<float> &values) {
  std::vector<uint8_t> bytes;
  if (dtype == "f32") {
    bytes.resize(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  }
  bytes.resize(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) {
    uint16_t bits = dtype == "bf16" ? reference::floatToBF16(values[i])
                                    : reference::floatToF16(values[i]);
    std::memcpy(bytes.data() + 2 * i, &bits, 2);
  }
  return bytes;
}

int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

/// Random bytes that decode to finite, non-NaN values of `encoding` (for
/// proto inputs the reference cannot quantize).
std::vector<uint8_t> randomCodes(const BufferSpec &buffer, Random &random) {
  std::vector<uint8_t> bytes(static_cast<size_t>(buffer.bytes));
  if (buffer.encoding == "f32") {
    for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
      // Positive powers of two near 1: plausible scales.
      float value = std::ldexp(1.0f, static_cast<int>(random.next() % 9) - 4);
      std::memcpy(bytes.data() + i, &value, 4);
    }
    return bytes;
  }
  for (uint8_t &byte : bytes) {
    uint8_t code = static_cast<uint8_t>(random.next());
    if (buffer.encoding == "e4m3" && (code & 0x7F) == 0x7F)
      code &= 0xFE; // not NaN
    else if (buffer.encoding == "e5m2" && (code & 0x7C) == 0x7C)
      code &= 0xFB; // not inf/NaN
    else if (buffer.encoding == "e8m0")
      code = static_cast<uint8_t>(120 + code % 15); // 2^-7 .. 2^7
    byte = code;
  }
  return bytes;
}

/// DIR/<arg>.bin for tensors, DIR/<arg>.<buffer>.bin for proto buffers.
std::string bufferFile(const std::string &dir, const ArgSpec &arg,
                       size_t buffer) {
  return dir + "/" + arg.name +
         (arg.isProto ? "." + arg.buffers[buffer].name : "") + ".bin";
}

Status writeFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return Status::error("cannot create output file '" + path + "'");
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out)
    return Status::error("cannot write output file '" + path + "'");
  return Status::success();
}

StatusOr<std::vector<uint8_t>> readFile(const std::string &path,
                                        int64_t expectedBytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error("cannot open input file '" + path + "'");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (static_cast<int64_t>(bytes.size()) != expectedBytes)
    return Status::error("input file '" + path + "' has " +
                         std::to_string(bytes.size()) + " bytes, expected " +
                         std::to_string(expectedBytes));
  return bytes;
}

/// Input values for `--fill` (edge cases of te-semantics.md §5 and §11). All
/// values are exact in bf16 and f16 ranges where they matter.
void fillValues(const std::string &kind, std::vector<float> &values,
                Random &random) {
  // Exact E4M3 ties at scale 1: midpoints between neighbours (RNE picks
  // the even one), including at the top of the range.
  static const float kTies[] = {1.0625f, -1.0625f, 1.1875f, 0.0068359375f,
                                 3.25f,   -13.0f,   416.0f,  -0.0009765625f};
  size_t n = values.size();
  for (size_t i = 0; i < n; ++i) {
    float v = random.normal();
    if (kind == "zeros")
      v = 0.0f;
    else if (kind == "denormal")
      v = std::ldexp(v, -130); // bf16/f32 subnormal range
    else if (kind == "ties")
      v = (i % 4 == 0) ? kTies[(i / 4) % 8] : v;
    else if (kind == "special") {
      switch (i % 16) {
      case 1: v = 0.0f; break;
      case 2: v = -0.0f; break;
      case 3: v = std::ldexp(1.0f, -133); break; // smallest bf16 subnormal
      case 4: v = -std::ldexp(3.0f, -130); break;
      case 5: v = 3.3895313892515355e38f; break; // bf16 max
      case 6: v = -3.3895313892515355e38f; break;
      case 7: v = kTies[(i / 16) % 8]; break;
      case 8: v = -std::ldexp(1.0f, -12); break; // rounds to -0
      default: break;
      }
    }
    values[i] = v;
  }
  if (kind == "huge" && n > 0)
    values[n / 2] = 3.3895313892515355e38f;
  if (kind == "ties" && n > 0)
    values[n - 1] = 448.0f; // amax 448: scale exactly 1
  if (kind == "special" && n > 0) {
    values[n / 3] = std::numeric_limits<float>::infinity();
    values[(2 * n) / 3] = std::numeric_limits<float>::quiet_NaN();
  }
}

/// Host bytes for every buffer of `entry`: the inputs (generated or read) and,
/// for outputs, the 0xA5 fill.
StatusOr<HostBuffers> makeInputs(const Options &options,
                                 const Manifest &manifest,
                                 const EntrySpec &entry) {
  HostBuffers host(entry.numBuffers());
  for (size_t a = 0; a < entry.args.size(); ++a) {
    const ArgSpec &arg = entry.args[a];
    const std::string what = "entry '" + entry.name + "': argument '" +
                             arg.name + "'";
    if (!arg.isRead()) {
      for (size_t b = 0; b < arg.buffers.size(); ++b)
        host[flatIndex(entry, a, b)].assign(
            static_cast<size_t>(arg.buffers[b].bytes), 0xA5);
      continue;
    }
    if (!options.inputsDir.empty()) {
      for (size_t b = 0; b < arg.buffers.size(); ++b) {
        std::string file = bufferFile(options.inputsDir, arg, b);
        auto bytes = readFile(file, arg.buffers[b].bytes);
        if (!bytes.ok())
          return bytes.status().withPrefix(what);
        host[flatIndex(entry, a, b)] = std::move(*bytes);
      }
      continue;
    }
    Random random(argSeed(options.seed, entry.name, a));
    if (!arg.isProto && arg.tensor.dtype == "i64") {
      // The rng_state of stochastic rounding: a seed and an offset, not
      // values; deterministic for a given --seed.
      std::vector<uint8_t> &bytes = host[flatIndex(entry, a, 0)];
      bytes.resize(static_cast<size_t>(arg.buffers[0].bytes));
      for (size_t i = 0; i + 8 <= bytes.size(); i += 8) {
        uint64_t word = random.next();
        std::memcpy(bytes.data() + i, &word, 8);
      }
      continue;
    }
    const std::vector<int64_t> &shape =
        arg.isProto ? arg.proto.shape : arg.tensor.shape;
    std::vector<float> values(static_cast<size_t>(elementCount(shape)));
    // Delayed-scaling state (an argument some output names as its "scale"
    // or "amax_history") holds positive values like a real recipe's.
    bool isState = arg.kind == ArgKind::InOut;
    bool isHistory = false;
    if (const std::string *role = stateRoles(entry).lookup(arg.name)) {
      isState = true;
      isHistory = *role == "amax_history";
    }
    if (isState) {
      for (float &value : values)
        value = std::fabs(random.normal()) * 4.0f + 0.25f;
      // Edge cases of the update step: an all-zero history (no roll, the
      // scale stays) and a history holding inf and NaN.
      if (isHistory && options.fill == "zeros")
        std::fill(values.begin(), values.end(), 0.0f);
      if (isHistory && options.fill == "special" && values.size() >= 3) {
        values[1] = std::numeric_limits<float>::infinity();
        values[values.size() - 1] = std::numeric_limits<float>::quiet_NaN();
      }
    } else {
      fillValues(options.fill, values, random);
    }
    if (!arg.isProto) {
      host[flatIndex(entry, a, 0)] = encodeTensor(arg.tensor.dtype, values);
      continue;
    }
    auto quantized = quantizeWithReference(manifest, arg, values);
    for (size_t b = 0; b < arg.buffers.size(); ++b)
      host[flatIndex(entry, a, b)] =
          quantized.ok() ? std::move((*quantized)[b])
                         : randomCodes(arg.buffers[b], random);
  }
  return host;
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

struct BenchResult {
  double medianUs = 0, minUs = 0, maxUs = 0;
  int64_t bytes = 0;
  double gbps = 0;
  /// Each timed run, in order (--nranks: the step is the slowest rank's).
  std::vector<double> timesUs;
};

/// Where the ranks of --nranks meet: arrive() waits for every rank (or
/// returns false once one failed), fail() wakes them and aborts every
/// communicator, so that no rank waits forever in a collective for a peer
/// that is gone.
class RankSync {
public:
  explicit RankSync(int nranks) : nranks_(nranks) {}

  bool arrive() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (failed_)
      return false;
    uint64_t generation = generation_;
    if (++arrived_ == nranks_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return true;
    }
    cv_.wait(lock, [&] { return failed_ || generation_ != generation; });
    return !failed_;
  }

  /// `rank` failed with `error` (recorded first, before the aborts, which
  /// may block behind a blocking communicator's collective: runRanks then
  /// reports this error without waiting for the rank).
  void fail(int rank, const std::string &error) {
    std::vector<Communicator *> comms;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (failed_)
        return;
      failed_ = true;
      firstError_ = {rank, error};
      comms = comms_;
      cv_.notify_all();
    }
    for (Communicator *comm : comms)
      comm->abort();
  }

  /// The rank that failed first and its error (rank -1: none).
  std::pair<int, std::string> firstError() {
    std::lock_guard<std::mutex> lock(mutex_);
    return firstError_;
  }

  /// Whether a rank failed (polled by the ranks still creating their
  /// communicators, which NCCL would otherwise keep waiting for the failed
  /// rank forever).
  bool failed() {
    std::lock_guard<std::mutex> lock(mutex_);
    return failed_;
  }

  /// `comm` lives until every rank is done.
  void add(Communicator *comm) {
    std::lock_guard<std::mutex> lock(mutex_);
    comms_.push_back(comm);
  }

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int nranks_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  bool failed_ = false;
  std::pair<int, std::string> firstError_{-1, ""};
  std::vector<Communicator *> comms_;
};

/// One rank's part of a --nranks run (none for a one-GPU run).
struct RankSetup {
  int rank = 0;
  RankSync *sync = nullptr;
  /// The entry's communicators, in the order of its groups.
  std::vector<const Communicator *> communicators;
};

Status otherRankFailed() {
  return Status::error("stopped: another rank failed");
}

struct EntryReport {
  std::string name;
  bool ok = false;
  std::string error;
  bool checked = false;
  CheckReport check;
  bool benched = false;
  BenchResult bench;
  /// --nranks --check: this rank's inputs and outputs, kept until every
  /// rank ran (values computed by collectives need every rank's).
  HostBuffers before, after;
  bool awaitsCheck = false;

  bool passed() const { return ok && (!checked || check.passed); }
};

StatusOr<BenchResult> benchmark(const Options &options,
                                const std::shared_ptr<Context> &context,
                                const Entry &entry,
                                const std::vector<DevicePtr> &pointers,
                                const RankSetup *rank) {
  RunOptions fast{/*validate=*/false, /*synchronize=*/false};
  if (rank) {
    fast.communicators = rank->communicators;
    if (!rank->sync->arrive())
      return otherRankFailed();
  }
  for (int i = 0; i < options.warmup; ++i)
    TEQ_RETURN_IF_ERROR(entry.run(pointers, fast));
  TEQ_RETURN_IF_ERROR(context->synchronize());

  std::vector<Event> starts, stops;
  for (int i = 0; i < options.iters; ++i) {
    auto start = Event::create(context);
    if (!start.ok())
      return start.status();
    auto stop = Event::create(context);
    if (!stop.ok())
      return stop.status();
    starts.push_back(std::move(*start));
    stops.push_back(std::move(*stop));
  }
  // The ranks start timing together (each one's collectives wait for the
  // others anyway).
  if (rank && !rank->sync->arrive())
    return otherRankFailed();
  for (int i = 0; i < options.iters; ++i) {
    TEQ_RETURN_IF_ERROR(starts[i].record());
    TEQ_RETURN_IF_ERROR(entry.run(pointers, fast));
    TEQ_RETURN_IF_ERROR(stops[i].record());
  }
  Status sync = context->synchronize();
  if (!sync.ok())
    return Status::error("entry '" + entry.name() +
                         "': execution failed: " + sync.message());
  std::vector<double> times;
  for (int i = 0; i < options.iters; ++i) {
    auto ms = Event::elapsedMs(starts[i], stops[i]);
    if (!ms.ok())
      return ms.status();
    times.push_back(static_cast<double>(*ms) * 1000.0);
  }
  BenchResult result;
  result.timesUs = times;
  std::sort(times.begin(), times.end());
  size_t n = times.size();
  result.medianUs =
      n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
  result.minUs = times.front();
  result.maxUs = times.back();
  result.bytes = entry.spec().bytesMoved();
  result.gbps = result.medianUs > 0
                    ? static_cast<double>(result.bytes) / (result.medianUs * 1e3)
                    : 0.0;
  return result;
}

Status runEntry(const Options &options, const std::shared_ptr<Context> &context,
                const Artifact &artifact, const Entry &entry,
                EntryReport &report, const RankSetup *rank = nullptr) {
  const EntrySpec &spec = entry.spec();
  auto inputs = makeInputs(options, artifact.manifest(), spec);
  if (!inputs.ok())
    return inputs.status();

  std::vector<DeviceBuffer> buffers;
  std::vector<DevicePtr> pointers;
  for (size_t i = 0; i < spec.numBuffers(); ++i) {
    auto buffer = DeviceBuffer::allocate(context, (*inputs)[i].size());
    if (!buffer.ok())
      return buffer.status().withPrefix("entry '" + spec.name + "'");
    TEQ_RETURN_IF_ERROR(buffer->upload((*inputs)[i]));
    pointers.push_back(buffer->ptr());
    buffers.push_back(std::move(*buffer));
  }

  RunOptions runOptions{/*validate=*/true, /*synchronize=*/true};
  if (rank) {
    // Every rank has its inputs before any collective starts.
    if (!rank->sync->arrive())
      return otherRankFailed();
    runOptions.communicators = rank->communicators;
  }
  TEQ_RETURN_IF_ERROR(entry.run(pointers, runOptions));
  report.ok = true;

  if (options.check || !options.outputsDir.empty()) {
    HostBuffers outputs(spec.numBuffers());
    for (size_t i = 0; i < spec.numBuffers(); ++i) {
      auto bytes = buffers[i].download();
      if (!bytes.ok())
        return bytes.status();
      outputs[i] = std::move(*bytes);
    }
    if (!options.outputsDir.empty()) {
      for (size_t a = 0; a < spec.args.size(); ++a) {
        const ArgSpec &arg = spec.args[a];
        if (!arg.isWritten())
          continue;
        for (size_t b = 0; b < arg.buffers.size(); ++b)
          TEQ_RETURN_IF_ERROR(
              writeFile(bufferFile(options.outputsDir, arg, b),
                        outputs[flatIndex(spec, a, b)]));
      }
    }
    if (options.check && rank) {
      // Checked once every rank ran (checkRanks).
      report.before = std::move(*inputs);
      report.after = std::move(outputs);
      report.awaitsCheck = true;
    } else if (options.check) {
      report.check = checkOutputs(artifact.manifest(), spec, *inputs, outputs);
      report.checked = true;
    }
  }
  if (options.bench) {
    auto bench = benchmark(options, context, entry, pointers, rank);
    if (!bench.ok())
      return bench.status();
    report.bench = *bench;
    report.benched = true;
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

void printText(const Options &options, const Artifact &artifact,
               const std::vector<EntryReport> &reports) {
  const DeviceInfo &device = artifact.context()->device();
  std::printf("artifact %s (target %s, %s) on %s (%s, device %d)\n",
              artifact.path().c_str(), artifact.manifest().target.name.c_str(),
              stringifyDeviceCode(artifact.manifest().deviceCode),
              device.name.c_str(), device.smName().c_str(), device.ordinal);
  for (const GemmPlanInfo &gemm : artifact.gemmPlanInfos())
    std::printf("gemm %lld %s: m=%lld n=%lld k=%lld %s %s x %s -> %s: %s, "
                "workspace %llu bytes, %.2f waves (cuBLASLt %s)\n",
                static_cast<long long>(gemm.id), gemm.name.c_str(),
                static_cast<long long>(gemm.m), static_cast<long long>(gemm.n),
                static_cast<long long>(gemm.k), gemm.layout.c_str(),
                gemm.aType.c_str(), gemm.bType.c_str(), gemm.dType.c_str(),
                gemm.describeAlgorithm().c_str(),
                static_cast<unsigned long long>(gemm.workspaceBytes),
                static_cast<double>(gemm.wavesCount),
                gemm.cublasLtVersion.c_str());
  for (const EntryReport &report : reports) {
    if (!report.ok) {
      std::printf("entry %s: FAILED\n", report.name.c_str());
      continue;
    }
    std::printf("entry %s: ran\n", report.name.c_str());
    if (report.checked) {
      for (const BufferCheck &check : report.check.buffers)
        std::printf("  check %s.%s: %s\n", check.arg.c_str(),
                    check.buffer.c_str(), check.message.c_str());
      for (const std::string &error : report.check.errors)
        std::printf("  check: %s\n", error.c_str());
      std::printf("  check: %s\n", report.check.passed ? "PASSED" : "FAILED");
    }
  }
  bool anyBench = false;
  for (const EntryReport &report : reports)
    anyBench |= report.benched;
  if (!anyBench)
    return;
  std::printf("\nbench (seed %llu, %d warm-up, %d timed runs, CUDA events)\n",
              static_cast<unsigned long long>(options.seed), options.warmup,
              options.iters);
  std::printf("%-32s %12s %12s %12s %14s %10s\n", "entry", "median us",
              "min us", "max us", "bytes", "GB/s");
  for (const EntryReport &report : reports) {
    if (!report.benched)
      continue;
    const BenchResult &b = report.bench;
    std::printf("%-32s %12.2f %12.2f %12.2f %14lld %10.1f\n",
                report.name.c_str(), b.medianUs, b.minUs, b.maxUs,
                static_cast<long long>(b.bytes), b.gbps);
  }
}

JsonValue reportsJson(const Options &options, const Artifact &artifact,
                      const std::vector<EntryReport> &reports, bool ok) {
  const DeviceInfo &device = artifact.context()->device();
  JsonValue root = JsonValue::object();
  root.set("ok", ok);
  root.set("artifact", artifact.path());
  root.set("target", artifact.manifest().target.name);
  root.set("device_code", stringifyDeviceCode(artifact.manifest().deviceCode));
  JsonValue deviceJson = JsonValue::object();
  deviceJson.set("ordinal", device.ordinal);
  deviceJson.set("name", device.name);
  deviceJson.set("sm", device.smName());
  deviceJson.set("multiprocessors", device.multiprocessors);
  deviceJson.set("l2_bytes", device.l2CacheBytes);
  root.set("device", deviceJson);
  if (options.seed <= static_cast<uint64_t>(INT64_MAX))
    root.set("seed", options.seed);
  else
    root.set("seed", std::to_string(options.seed));
  JsonValue entries = JsonValue::array();
  for (const EntryReport &report : reports) {
    JsonValue e = JsonValue::object();
    e.set("name", report.name);
    e.set("ok", report.passed());
    if (!report.error.empty())
      e.set("error", report.error);
    if (report.checked) {
      JsonValue check = JsonValue::object();
      check.set("passed", report.check.passed);
      JsonValue buffers = JsonValue::array();
      for (const BufferCheck &c : report.check.buffers) {
        JsonValue b = JsonValue::object();
        b.set("arg", c.arg);
        b.set("buffer", c.buffer);
        b.set("ok", c.ok);
        b.set("elements", c.elements);
        b.set("mismatches", c.mismatches);
        b.set("padding_mismatches", c.paddingMismatches);
        b.set("message", c.message);
        buffers.push(b);
      }
      check.set("buffers", buffers);
      JsonValue errors = JsonValue::array();
      for (const std::string &error : report.check.errors)
        errors.push(error);
      check.set("errors", errors);
      e.set("check", check);
    }
    if (report.benched) {
      JsonValue bench = JsonValue::object();
      bench.set("warmup", options.warmup);
      bench.set("iters", options.iters);
      bench.set("median_us", report.bench.medianUs);
      bench.set("min_us", report.bench.minUs);
      bench.set("max_us", report.bench.maxUs);
      bench.set("bytes", report.bench.bytes);
      bench.set("gbps", report.bench.gbps);
      e.set("bench", bench);
    }
    entries.push(e);
  }
  root.set("entries", entries);
  // The algorithm of each GEMM ("algo" can be pasted into the manifest to
  // pin it).
  JsonValue gemms = JsonValue::array();
  for (const GemmPlanInfo &gemm : artifact.gemmPlanInfos())
    gemms.push(gemm.toJson());
  root.set("gemms", gemms);
  return root;
}

//===----------------------------------------------------------------------===//
// Several ranks (--nranks)
//===----------------------------------------------------------------------===//

/// One rank of a --nranks run; owned by runRanks so that communicators live
/// until every rank is done (RankSync::fail aborts them from any thread).
struct RankState {
  int rank = 0;
  std::shared_ptr<Context> context;
  std::unique_ptr<Artifact> artifact;
  /// One per group, in the order of RanksPlan::groups.
  std::vector<std::unique_ptr<Communicator>> communicators;
  std::vector<EntryReport> reports;
  std::string error; ///< Set if the rank failed outside an entry.
};

/// What every rank runs: the entries and the groups they communicate over.
struct RanksPlan {
  std::vector<std::string> entries;
  std::vector<GroupSpec> groups; ///< Every group of those entries, once.
  std::vector<UniqueId> ids;     ///< One NCCL unique id per group.
};

StatusOr<RanksPlan> planRanks(const Options &options) {
  auto manifest = Artifact::inspect(options.artifact);
  if (!manifest.ok())
    return manifest.status();
  RanksPlan plan;
  for (const EntrySpec &spec : manifest->entries) {
    if (!options.entry.empty() && spec.name != options.entry)
      continue;
    plan.entries.push_back(spec.name);
    for (const GroupSpec &group : spec.groups) {
      if (group.size != 0 && group.size != options.nranks) // 0: any size
        return Status::error(
            "entry '" + spec.name + "' communicates over group '" +
            group.name + "' of " + std::to_string(group.size) +
            " ranks, but --nranks is " + std::to_string(options.nranks) +
            " (te-run makes every group span all ranks)");
      bool known = false;
      for (const GroupSpec &other : plan.groups)
        known |= other.name == group.name;
      if (!known)
        plan.groups.push_back(group);
    }
  }
  if (plan.entries.empty())
    return Status::error(options.entry.empty()
                             ? "artifact '" + options.artifact +
                                   "' has no entries"
                             : "artifact '" + options.artifact +
                                   "': no entry '" + options.entry + "'");
  for (const GroupSpec &group : plan.groups) {
    auto id = Communicator::createUniqueId();
    if (!id.ok())
      return id.status().withPrefix("group '" + group.name + "'");
    plan.ids.push_back(*id);
  }
  return plan;
}

/// Rank r's seed: --seed for rank 0, distinct streams for the others.
uint64_t rankSeed(uint64_t seed, int rank) {
  return seed + static_cast<uint64_t>(rank) * 0x9E3779B97F4A7C15ull;
}

void runRank(const Options &options, const RanksPlan &plan, RankSync &sync,
             RankState &state) {
  const int rank = state.rank;
  auto failWith = [&](const std::string &message) {
    state.error = message;
    sync.fail(rank, message);
  };
  // Devices and artifacts first: a rank that cannot start stops the others
  // before anyone waits in NCCL.
  auto context = Context::create(options.device + rank);
  if (context.ok()) {
    state.context = *context;
    auto artifact = Artifact::open(options.artifact, state.context);
    if (artifact.ok())
      state.artifact = std::move(*artifact);
    else
      state.error = artifact.message();
  } else {
    state.error = context.message();
  }
  if (!state.error.empty())
    return sync.fail(rank, state.error);
  const std::string stopped = otherRankFailed().message();
  if (!sync.arrive()) {
    state.error = stopped;
    return;
  }
  // Tests only: this rank fails here, after the others started creating
  // their communicators, as a rank that crashes would (they must not wait
  // for it forever).
  if (const char *failRank = std::getenv("TEQ_TE_RUN_FAIL_RANK");
      failRank && *failRank && std::atoi(failRank) == rank) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    return failWith("failed on purpose before creating its communicators "
                    "(TEQ_TE_RUN_FAIL_RANK=" +
                    std::string(failRank) + ")");
  }
  // Blocking communicators: non-blocking ones could give the wait up when
  // another rank failed, but cost host time on every collective, which
  // --bench measures. A rank still waiting in NCCL's initialization for a
  // rank that failed is left behind by runRanks, which exits.
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    auto comm = Communicator::create(state.context, plan.ids[g],
                                     options.nranks, rank,
                                     plan.groups[g].name);
    if (!comm.ok()) {
      if (sync.failed()) { // the first error is the failed rank's
        state.error = stopped;
        return;
      }
      return failWith(comm.message());
    }
    state.communicators.push_back(std::move(*comm));
    sync.add(state.communicators.back().get());
  }
  if (!sync.arrive()) {
    state.error = stopped;
    return;
  }

  Options rankOptions = options;
  rankOptions.seed = rankSeed(options.seed, rank);
  for (const std::string &name : plan.entries) {
    const Entry *entry = state.artifact->findEntry(name);
    RankSetup setup;
    setup.rank = rank;
    setup.sync = &sync;
    for (const GroupSpec &group : entry->groups())
      for (size_t g = 0; g < plan.groups.size(); ++g)
        if (plan.groups[g].name == group.name)
          setup.communicators.push_back(state.communicators[g].get());
    EntryReport report;
    report.name = name;
    Status status = runEntry(rankOptions, state.context, *state.artifact,
                             *entry, report, &setup);
    if (!status.ok()) {
      report.ok = false;
      report.error = status.message();
    }
    state.reports.push_back(std::move(report));
    if (!status.ok()) {
      // The entries after it would run collectives the others wait for in
      // another order: stop every rank.
      sync.fail(rank, "entry '" + name + "': " + status.message());
      return;
    }
  }
}

/// The step time of each benchmarked entry: per timed iteration the slowest
/// rank's, then the median (and min/max) of those.
std::vector<std::pair<std::string, BenchResult>>
stepTimes(const std::vector<RankState> &ranks) {
  std::vector<std::pair<std::string, BenchResult>> steps;
  if (ranks.empty())
    return steps;
  for (size_t e = 0; e < ranks[0].reports.size(); ++e) {
    std::vector<double> step;
    bool all = true;
    for (const RankState &rank : ranks)
      all &= e < rank.reports.size() && rank.reports[e].benched;
    if (!all)
      continue;
    step = ranks[0].reports[e].bench.timesUs;
    for (const RankState &rank : ranks)
      for (size_t i = 0; i < step.size(); ++i)
        step[i] = std::max(step[i], rank.reports[e].bench.timesUs[i]);
    std::sort(step.begin(), step.end());
    BenchResult result;
    size_t n = step.size();
    if (n == 0)
      continue;
    result.medianUs =
        n % 2 ? step[n / 2] : 0.5 * (step[n / 2 - 1] + step[n / 2]);
    result.minUs = step.front();
    result.maxUs = step.back();
    steps.emplace_back(ranks[0].reports[e].name, result);
  }
  return steps;
}

/// --check of a multi-rank run: each rank's outputs against the reference
/// recomputed from every rank's inputs (Check.h), once all ranks ran.
void checkRanks(std::vector<RankState> &ranks) {
  if (ranks.empty() || !ranks[0].artifact)
    return;
  for (size_t e = 0; e < ranks[0].reports.size(); ++e) {
    std::vector<RankBuffers> buffers;
    for (const RankState &rank : ranks) {
      if (e >= rank.reports.size() || !rank.reports[e].awaitsCheck)
        break;
      buffers.push_back({&rank.reports[e].before, &rank.reports[e].after});
    }
    if (buffers.size() != ranks.size())
      continue; // an entry some rank did not finish is reported failed
    const EntrySpec &spec =
        ranks[0].artifact->findEntry(ranks[0].reports[e].name)->spec();
    for (RankState &rank : ranks) {
      EntryReport &report = rank.reports[e];
      report.check =
          checkOutputs(rank.artifact->manifest(), spec, report.before,
                       report.after, buffers, rank.rank);
      report.checked = true;
    }
    for (RankState &rank : ranks) {
      rank.reports[e].before.clear();
      rank.reports[e].after.clear();
    }
  }
}

int runRanks(const Options &options) {
  auto plan = planRanks(options);
  if (!plan.ok()) {
    std::fprintf(stderr, "te-run: error: %s\n", plan.message().c_str());
    if (options.json)
      std::printf("{\n  \"ok\": false,\n  \"error\": %s\n}\n",
                  quoteJsonString(plan.message()).c_str());
    return 1;
  }
  RankSync sync(options.nranks);
  std::vector<RankState> ranks(static_cast<size_t>(options.nranks));
  std::vector<std::atomic<bool>> finished(static_cast<size_t>(options.nranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < options.nranks; ++r) {
    ranks[r].rank = r;
    threads.emplace_back([&, r] {
      runRank(options, *plan, sync, ranks[r]);
      finished[r] = true;
    });
  }
  // Once a rank failed, the others stop within moments, except a rank
  // waiting in NCCL's (blocking) initialization for the failed one, which
  // nothing can interrupt: after a grace period te-run reports and exits.
  using Clock = std::chrono::steady_clock;
  std::optional<Clock::time_point> failedAt;
  for (;;) {
    if (std::all_of(finished.begin(), finished.end(),
                    [](const std::atomic<bool> &f) { return f.load(); }))
      break;
    if (sync.failed() && !failedAt)
      failedAt = Clock::now();
    if (failedAt && Clock::now() - *failedAt > std::chrono::seconds(10)) {
      // The failed rank's error first (its thread may be among those left
      // behind, blocked in an abort), then the ranks still waiting.
      auto [failedRank, error] = sync.firstError();
      std::string message =
          "rank " + std::to_string(failedRank) + ": " + error;
      std::fprintf(stderr, "te-run: error: %s\n", message.c_str());
      for (int r = 0; r < options.nranks; ++r) {
        if (finished[r] || r == failedRank)
          continue;
        std::string stuck = "rank " + std::to_string(r) +
                            ": stopped: another rank failed (it was still "
                            "waiting for the others, e.g. in NCCL's "
                            "initialization or a collective)";
        std::fprintf(stderr, "te-run: error: %s\n", stuck.c_str());
        message += "; " + stuck;
      }
      if (options.json)
        std::printf("{\n  \"ok\": false,\n  \"error\": %s\n}\n",
                    quoteJsonString(message).c_str());
      else
        std::printf("FAILED\n");
      std::fflush(nullptr);
      std::_Exit(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (std::thread &thread : threads)
    thread.join();
  checkRanks(ranks);

  bool ok = true;
  for (const RankState &rank : ranks) {
    ok &= rank.error.empty() && rank.reports.size() == plan->entries.size();
    for (const EntryReport &report : rank.reports)
      ok &= report.passed();
    if (!rank.error.empty())
      std::fprintf(stderr, "te-run: error: rank %d: %s\n", rank.rank,
                   rank.error.c_str());
    for (const EntryReport &report : rank.reports)
      if (!report.error.empty())
        std::fprintf(stderr, "te-run: error: rank %d: %s\n", rank.rank,
                     report.error.c_str());
  }
  auto steps = stepTimes(ranks);

  if (options.json) {
    JsonValue root = JsonValue::object();
    root.set("ok", ok);
    root.set("artifact", options.artifact);
    root.set("nranks", options.nranks);
    JsonValue groups = JsonValue::array();
    for (const GroupSpec &group : plan->groups) {
      JsonValue g = JsonValue::object();
      g.set("name", group.name);
      g.set("size", group.size);
      groups.push(g);
    }
    root.set("groups", groups);
    JsonValue rankList = JsonValue::array();
    for (const RankState &rank : ranks) {
      bool rankOk = rank.error.empty();
      for (const EntryReport &report : rank.reports)
        rankOk &= report.passed();
      JsonValue r = rank.artifact
                        ? reportsJson(options, *rank.artifact, rank.reports,
                                      rankOk)
                        : JsonValue::object();
      r.set("rank", rank.rank);
      if (!rank.error.empty()) {
        r.set("ok", false);
        r.set("error", rank.error);
      }
      rankList.push(r);
    }
    root.set("ranks", rankList);
    JsonValue stepList = JsonValue::array();
    for (const auto &[name, step] : steps) {
      JsonValue e = JsonValue::object();
      e.set("name", name);
      e.set("median_us", step.medianUs);
      e.set("min_us", step.minUs);
      e.set("max_us", step.maxUs);
      stepList.push(e);
    }
    root.set("step", stepList);
    std::printf("%s\n", root.serialize(2).c_str());
    return ok ? 0 : 1;
  }
  for (const RankState &rank : ranks) {
    std::printf("== rank %d of %d\n", rank.rank, options.nranks);
    if (rank.artifact)
      printText(options, *rank.artifact, rank.reports);
    if (!rank.error.empty())
      std::printf("rank %d: FAILED: %s\n", rank.rank, rank.error.c_str());
  }
  if (!steps.empty()) {
    std::printf("\nstep over %d ranks (per timed run the slowest rank)\n",
                options.nranks);
    std::printf("%-32s %12s %12s %12s\n", "entry", "median us", "min us",
                "max us");
    for (const auto &[name, step] : steps)
      std::printf("%-32s %12.2f %12.2f %12.2f\n", name.c_str(), step.medianUs,
                  step.minUs, step.maxUs);
  }
  std::printf("%s\n", ok ? "all ranks PASSED" : "FAILED");
  return ok ? 0 : 1;
}

int fail(const Options &options, const std::string &message) {
  std::fprintf(stderr, "te-run: error: %s\n", message.c_str());
  if (options.json) {
    JsonValue root = JsonValue::object();
    root.set("ok", false);
    root.set("error", message);
    std::printf("%s\n", root.serialize(2).c_str());
  }
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  auto parsed = parseOptions(argc, argv);
  if (!parsed.ok()) {
    std::fprintf(stderr, "te-run: error: %s\n\n%s", parsed.message().c_str(),
                 kUsage);
    return 2;
  }
  const Options &options = *parsed;
  if (options.help) {
    std::printf("%s", kUsage);
    return 0;
  }

  if (options.list) {
    auto manifest = Artifact::inspect(options.artifact);
    if (!manifest.ok())
      return fail(options, manifest.message());
    if (options.json)
      std::printf("%s\n", manifest->json.serialize(2).c_str());
    else
      printList(options.artifact, *manifest);
    return 0;
  }

  if (options.nranks > 0)
    return runRanks(options);

  auto context = Context::create(options.device);
  if (!context.ok())
    return fail(options, context.message());
  auto artifact = Artifact::open(options.artifact, *context);
  if (!artifact.ok())
    return fail(options, artifact.message());

  std::vector<const Entry *> selected;
  if (!options.entry.empty()) {
    auto entry = (*artifact)->entry(options.entry);
    if (!entry.ok())
      return fail(options, entry.message());
    selected.push_back(*entry);
  } else {
    for (const Entry &entry : (*artifact)->entries())
      selected.push_back(&entry);
    if (selected.empty())
      return fail(options, "artifact '" + options.artifact + "' has no entries");
  }

  std::vector<EntryReport> reports;
  bool ok = true;
  for (const Entry *entry : selected) {
    EntryReport report;
    report.name = entry->name();
    Status status = runEntry(options, *context, **artifact, *entry, report);
    if (!status.ok()) {
      report.ok = false;
      report.error = status.message();
      std::fprintf(stderr, "te-run: error: %s\n", status.message().c_str());
    }
    ok &= report.passed();
    reports.push_back(std::move(report));
  }

  if (options.json)
    std::printf("%s\n", reportsJson(options, **artifact, reports, ok)
                            .serialize(2)
                            .c_str());
  else
    printText(options, **artifact, reports);
  return ok ? 0 : 1;
}
