//===- host_cost.cpp - Host microseconds per call of the C/C++ runtime ----===//
//
// The host-cost benchmark of the runtime's C path (issue 28): for entries of
// a small-shape artifact (bench/host_cost.mlir, compiled by
// scripts/gpu-prepare to .artifacts/host_cost.so), the host time to enqueue
// one call, through the C++ API (Entry::run) and the C API (teqRtEntryRun),
// with and without pointer validation:
//
//   host_cost .artifacts/host_cost.so [--calls 32] [--reps 50]
//             [--entry NAME]... [--json OUT.json]
//
// A measurement enqueues --calls calls back to back without synchronizing
// and divides the elapsed host time by the count; the shapes are small and
// the count low, so the GPU's queue never fills and the host never waits
// for the device (the "device" column, the time per call until the stream
// is idle, says whether the GPU kept up). The median of --reps measurements
// is reported. The pieces of a call are timed alone the same way: the
// buffer contract (Entry::checkBuffers), pointer validation
// (Entry::validate), a lease of the entry workspace pool and of the
// cuBLASLt workspace pool (acquire + release: the stream queries and the
// event record); what remains of a call without validation is the launches,
// the GEMMs and the runtime's bookkeeping. "kernel" and "gemm" count the
// launches and cuBLASLt matmuls of one call; "per launch" is derived: the
// C++ call without validation, less the contract and the leases, divided by
// the launches and matmuls.
//
// Built in the runtime-only configuration against libteq_runtime.so
// (bench/host_cost/CMakeLists.txt); scripts/gpu-check runs it (BENCH=host).
//
//===----------------------------------------------------------------------===//

#include "teq-c/Runtime.h"
#include "teq/Runtime/Artifact.h"
#include "teq/Runtime/Context.h"
#include "teq/Runtime/DeviceBuffer.h"
#include "teq/Runtime/Gemm.h"
#include "teq/Runtime/Mgpu.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace mlir::teq::runtime;

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "host_cost: %s\n", message.c_str());
  std::exit(1);
}

void check(const Status &status, const std::string &what) {
  if (!status.ok())
    fail(what + ": " + status.message());
}

void checkC(TeqRtStatus status, const std::string &what) {
  if (status != TEQ_RT_SUCCESS)
    fail(what + ": " + teqRtGetLastError());
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

struct Options {
  std::string artifact;
  std::vector<std::string> entries;
  std::string json;
  int calls = 32;
  int reps = 50;
};

/// Host microseconds per call of `call` (median over reps of `calls` calls
/// enqueued back to back), and the microseconds per call until `sync`
/// returns (the device's pace when it exceeds the host's).
struct Timing {
  double hostUs = 0, deviceUs = 0;
};

Timing measure(const Options &options, const std::function<void()> &call,
               const std::function<void()> &sync) {
  // Warm: first-call work (module instances, opt-ins) is not per call.
  for (int i = 0; i < 3; ++i)
    call();
  sync();
  std::vector<double> host, device;
  for (int rep = 0; rep < options.reps; ++rep) {
    auto start = Clock::now();
    for (int i = 0; i < options.calls; ++i)
      call();
    auto enqueued = Clock::now();
    sync();
    auto done = Clock::now();
    auto us = [&](Clock::time_point to) {
      return std::chrono::duration<double, std::micro>(to - start).count() /
             options.calls;
    };
    host.push_back(us(enqueued));
    device.push_back(us(done));
  }
  return {median(host), median(device)};
}

struct Row {
  std::string entry;
  size_t buffers = 0;
  uint64_t launches = 0, gemms = 0; ///< Per call.
  Timing cppRun, cppRunValidate, cRun, cRunValidate;
  /// RunOptions::graph (captured in the warm-up, then replayed).
  Timing cppGraph;
  double checkBuffersUs = 0, validateUs = 0, entryLeaseUs = 0,
         gemmLeaseUs = -1;

  /// Derived (see the file comment); -1 without launches.
  double perLaunchUs() const {
    if (launches + gemms == 0)
      return -1;
    double rest = cppRun.hostUs - checkBuffersUs - entryLeaseUs -
                  (gemms ? std::max(gemmLeaseUs, 0.0) : 0.0);
    return rest / static_cast<double>(launches + gemms);
  }
};

Options parse(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        fail("missing value after " + arg);
      return argv[++i];
    };
    if (arg == "--calls")
      options.calls = std::atoi(value().c_str());
    else if (arg == "--reps")
      options.reps = std::atoi(value().c_str());
    else if (arg == "--entry")
      options.entries.push_back(value());
    else if (arg == "--json")
      options.json = value();
    else if (!arg.empty() && arg[0] == '-')
      fail("unknown option " + arg);
    else
      options.artifact = arg;
  }
  if (options.artifact.empty())
    fail("usage: host_cost ARTIFACT.so [--calls N] [--reps N] [--entry NAME]... "
         "[--json OUT]");
  if (options.calls < 1 || options.reps < 1)
    fail("--calls and --reps must be positive");
  if (options.entries.empty())
    options.entries = {"gemm_current_256_256_256",
                       "quantize_current_256x256",
                       "fwd_current_256_256_256",
                       "fwdbwd_current_256_256_256",
                       "fwd_delayed_256_256_256",
                       "fwdbwd_block_256_256_256",
                       "update_delayed"};
  return options;
}

} // namespace

int main(int argc, char **argv) {
  const Options options = parse(argc, argv);
  auto context = Context::create(0);
  check(context.status(), "context");
  auto artifact = Artifact::open(options.artifact, *context);
  check(artifact.status(), "open");
  // The C API's own handles on the same device and file: what a C caller
  // gets (its Artifact is a second one, with its own workspace pool).
  TeqRtContext cContext;
  checkC(teqRtContextCreate(0, &cContext), "teqRtContextCreate");
  TeqRtArtifact cArtifact;
  checkC(teqRtArtifactLoad(cContext, options.artifact.c_str(), &cArtifact),
         "teqRtArtifactLoad");
  void *stream = (*context)->stream();
  void *cStream = nullptr;
  checkC(teqRtContextGetStream(cContext, &cStream), "teqRtContextGetStream");

  const std::shared_ptr<Context> &ctx = *context;
  std::printf("device: %s (%s), %d calls per measurement, median of %d\n",
              ctx->device().name.c_str(), ctx->device().smName().c_str(),
              options.calls, options.reps);
  std::vector<Row> rows;
  for (const std::string &name : options.entries) {
    auto found = (*artifact)->entry(name);
    check(found.status(), "entry");
    const Entry &entry = **found;
    TeqRtEntry cEntry;
    checkC(teqRtArtifactLookupEntry(cArtifact, name.c_str(), &cEntry),
           "teqRtArtifactLookupEntry");

    // One allocation per buffer, filled with 0x3c bytes: finite, nonzero
    // bf16, f32 and FP8 values (the scales stay finite).
    std::vector<DeviceBuffer> storage;
    std::vector<DevicePtr> buffers;
    const EntrySpec &spec = entry.spec();
    for (const BufferRef &ref : spec.flatBuffers) {
      size_t bytes = static_cast<size_t>(
          spec.args[ref.arg].buffers[ref.buffer].bytes);
      auto buffer = DeviceBuffer::allocate(ctx, std::max<size_t>(bytes, 1));
      check(buffer.status(), name + ": allocate");
      check(buffer->fill(0x3c), name + ": fill");
      buffers.push_back(buffer->ptr());
      storage.push_back(std::move(*buffer));
    }
    RunOptions checked;
    checked.synchronize = true;
    const uint64_t launches = detail::launchedKernelCount();
    const uint64_t gemms = detail::enqueuedGemmCount();
    check(entry.run(buffers, checked), name + ": first run");

    auto sync = [&] { check(ctx->synchronize(), "synchronize"); };
    auto cSync = [&] {
      checkC(teqRtContextSynchronize(cContext), "teqRtContextSynchronize");
    };
    Row row;
    row.entry = name;
    row.buffers = buffers.size();
    row.launches = detail::launchedKernelCount() - launches;
    row.gemms = detail::enqueuedGemmCount() - gemms;
    RunOptions fast;
    fast.validate = false;
    RunOptions validated;
    row.cppRun = measure(
        options, [&] { check(entry.run(buffers, fast), name); }, sync);
    row.cppRunValidate = measure(
        options, [&] { check(entry.run(buffers, validated), name); }, sync);
    RunOptions graphed;
    graphed.validate = false;
    graphed.graph = true;
    row.cppGraph = measure(
        options, [&] { check(entry.run(buffers, graphed), name); }, sync);
    TeqRtRunOptions cFast = teqRtRunOptionsGetDefault();
    cFast.validate = false;
    TeqRtRunOptions cValidated = teqRtRunOptionsGetDefault();
    row.cRun = measure(
        options,
        [&] {
          checkC(teqRtEntryRun(cEntry, buffers.data(), buffers.size(), nullptr,
                               &cFast),
                 name);
        },
        cSync);
    row.cRunValidate = measure(
        options,
        [&] {
          checkC(teqRtEntryRun(cEntry, buffers.data(), buffers.size(), nullptr,
                               &cValidated),
                 name);
        },
        cSync);

    // The pieces alone.
    row.checkBuffersUs =
        measure(options, [&] { check(entry.checkBuffers(buffers), name); },
                [] {})
            .hostUs;
    row.validateUs =
        measure(options, [&] { check(entry.validate(buffers), name); }, [] {})
            .hostUs;
    auto leaseOf = [&](detail::WorkspacePool &pool) {
      return measure(
                 options,
                 [&] {
                   auto lease = pool.acquire(stream);
                   check(lease.status(), "acquire");
                   check(lease->release(), "release");
                 },
                 sync)
          .hostUs;
    };
    row.entryLeaseUs = leaseOf((*artifact)->workspaces());
    if (!(*artifact)->gemmPlans().empty())
      row.gemmLeaseUs = leaseOf((*artifact)->gemmPlans()[0]->workspacePool());
    rows.push_back(row);
    sync();
  }
  (void)cStream;

  std::printf("\nhost us per call (enqueue only; 'device': until idle)\n");
  std::printf("%-28s %4s %6s %4s %9s %9s %9s %9s %9s %9s %9s | %8s %8s %8s "
              "%9s %10s\n",
              "entry", "bufs", "kernel", "gemm", "C++", "C++ +val", "C",
              "C +val", "device", "C++ graph", "graph dev", "contract",
              "validate", "ws lease", "blt lease", "per launch");
  for (const Row &r : rows)
    std::printf("%-28s %4zu %6llu %4llu %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f "
                "%9.2f | %8.2f %8.2f %8.2f %9s %10.2f\n",
                r.entry.c_str(), r.buffers,
                static_cast<unsigned long long>(r.launches),
                static_cast<unsigned long long>(r.gemms), r.cppRun.hostUs,
                r.cppRunValidate.hostUs, r.cRun.hostUs, r.cRunValidate.hostUs,
                r.cppRun.deviceUs, r.cppGraph.hostUs, r.cppGraph.deviceUs,
                r.checkBuffersUs, r.validateUs,
                r.entryLeaseUs,
                r.gemmLeaseUs < 0
                    ? "-"
                    : std::to_string(r.gemmLeaseUs).substr(0, 6).c_str(),
                r.perLaunchUs());

  if (!options.json.empty()) {
    FILE *out = std::fopen(options.json.c_str(), "w");
    if (!out)
      fail("cannot write " + options.json);
    std::fprintf(out,
                 "{\n  \"device\": \"%s\",\n  \"calls\": %d,\n  \"reps\": "
                 "%d,\n  \"unit\": \"us per call (median)\",\n  \"entries\": [",
                 ctx->device().name.c_str(), options.calls, options.reps);
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row &r = rows[i];
      std::fprintf(
          out,
          "%s\n    {\"entry\": \"%s\", \"buffers\": %zu, \"kernels\": "
          "%llu, \"gemms\": %llu, \"cpp\": %.3f, "
          "\"cpp_validate\": %.3f, \"c\": %.3f, \"c_validate\": %.3f, "
          "\"device\": %.3f, \"cpp_graph\": %.3f, \"graph_device\": %.3f, "
          "\"check_buffers\": %.3f, \"validate\": %.3f, "
          "\"entry_workspace_lease\": %.3f, \"cublaslt_workspace_lease\": %s, "
          "\"per_launch_derived\": %.3f}",
          i ? "," : "", r.entry.c_str(), r.buffers,
          static_cast<unsigned long long>(r.launches),
          static_cast<unsigned long long>(r.gemms), r.cppRun.hostUs,
          r.cppRunValidate.hostUs, r.cRun.hostUs, r.cRunValidate.hostUs,
          r.cppRun.deviceUs, r.cppGraph.hostUs, r.cppGraph.deviceUs,
          r.checkBuffersUs, r.validateUs, r.entryLeaseUs,
          r.gemmLeaseUs < 0 ? "null"
                            : std::to_string(r.gemmLeaseUs).c_str(),
          r.perLaunchUs());
    }
    std::fprintf(out, "\n  ]\n}\n");
    std::fclose(out);
  }
  teqRtArtifactDestroy(cArtifact);
  teqRtContextDestroy(cContext);
  return 0;
}
