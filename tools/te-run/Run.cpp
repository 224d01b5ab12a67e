//===- Run.cpp - te-run: one entry's run, check and benchmark -------------===//
//
// runEntry (TeRun.h): the entry's host buffers (TEQCheck's seeded inputs,
// or --inputs files), device buffers, one checked run, --outputs files, the
// check against the CPU reference (check::checkOutputs) and the benchmark.
//
//===----------------------------------------------------------------------===//

#include "TeRun.h"

#include "teq/Runtime/DeviceBuffer.h"

#include <algorithm>
#include <fstream>
#include <iterator>

namespace mlir::teq::terun {

using namespace mlir::teq::runtime;
using check::flatIndex;

Status otherRankFailed() {
  return Status::error("stopped: another rank failed");
}

namespace {

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

/// Host bytes for every buffer of `entry`: the inputs (generated, or read
/// from --inputs) and, for outputs, the unwritten fill.
StatusOr<HostBuffers> makeInputs(const Options &options,
                                 const Manifest &manifest,
                                 const EntrySpec &entry) {
  if (options.inputsDir.empty())
    return check::makeInputs(manifest, entry, {options.seed, options.fill});
  HostBuffers host(entry.numBuffers());
  for (size_t a = 0; a < entry.args.size(); ++a) {
    const ArgSpec &arg = entry.args[a];
    for (size_t b = 0; b < arg.buffers.size(); ++b) {
      std::vector<uint8_t> &bytes = host[flatIndex(entry, a, b)];
      if (!arg.isRead()) {
        bytes.assign(static_cast<size_t>(arg.buffers[b].bytes),
                     check::kUnwrittenByte);
        continue;
      }
      auto read = readFile(bufferFile(options.inputsDir, arg, b),
                           arg.buffers[b].bytes);
      if (!read.ok())
        return read.status().withPrefix("entry '" + entry.name +
                                        "': argument '" + arg.name + "'");
      bytes = std::move(*read);
    }
  }
  return host;
}

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

} // namespace

Status runEntry(const Options &options, const std::shared_ptr<Context> &context,
                const Artifact &artifact, const Entry &entry,
                EntryReport &report, const RankSetup *rank) {
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
      report.check =
          check::checkOutputs(artifact.manifest(), spec, *inputs, outputs);
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

} // namespace mlir::teq::terun
