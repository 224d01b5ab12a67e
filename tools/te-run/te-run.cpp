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
// Inputs (deterministic for a given --seed; teq/Check/Inputs.h):
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
// ran, values computed by collectives from every rank's
// (teq/Check/Check.h); --bench times the step on every rank (the ranks
// start each timed loop together) and reports, per entry, each rank's
// median and the step's: per iteration the slowest rank.
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
// This file holds the options, the one-GPU run's report and main; TeRun.h
// lists the other parts.
//
//===----------------------------------------------------------------------===//

#include "TeRun.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
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
      std::optional<check::Fill> fill = check::parseFill(*text);
      if (!fill)
        return Status::error("unknown --fill '" + *text +
                             "'; expected random, zeros, huge, denormal, "
                             "ties or special");
      options.fill = *fill;
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

} // namespace

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

namespace mlir::teq::terun {

void printText(const Options &options, const Artifact &artifact,
               const std::vector<EntryReport> &reports) {
  const DeviceInfo &device = artifact.context()->device();
  std::printf("artifact %s (target %s, %s) on %s (%s, device %d)\n",
              artifact.path().c_str(), artifact.manifest().target.name.c_str(),
              stringifyDeviceCode(artifact.manifest().deviceCode),
              device.name.c_str(), device.smName().c_str(), device.ordinal);
  for (const GemmPlanInfo &gemm : artifact.gemmPlanInfos())
    std::printf("gemm %lld %s: m=%lld n=%lld k=%lld %s %s x %s -> %s: %s, "
                "workspace %llu bytes, %.2f waves (cuBLASLt %s)%s\n",
                static_cast<long long>(gemm.id), gemm.name.c_str(),
                static_cast<long long>(gemm.m), static_cast<long long>(gemm.n),
                static_cast<long long>(gemm.k), gemm.layout.c_str(),
                gemm.aType.c_str(), gemm.bType.c_str(), gemm.dType.c_str(),
                gemm.describeAlgorithm().c_str(),
                static_cast<unsigned long long>(gemm.workspaceBytes),
                static_cast<double>(gemm.wavesCount),
                gemm.cublasLtVersion.c_str(),
                gemm.sharesPlanOf < 0
                    ? ""
                    : (", the plan of gemm " +
                       std::to_string(gemm.sharesPlanOf))
                          .c_str());
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
      for (const std::string &note : report.check.notes)
        std::printf("  check: %s\n", note.c_str());
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
      if (!report.check.notes.empty()) {
        JsonValue notes = JsonValue::array();
        for (const std::string &note : report.check.notes)
          notes.push(note);
        check.set("notes", notes);
      }
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

} // namespace mlir::teq::terun

namespace {

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
