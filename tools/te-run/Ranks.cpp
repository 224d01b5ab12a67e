//===- Ranks.cpp - te-run --nranks: one thread and communicator per rank --===//
//
// A multi-rank run on the GPUs of one host (te-run.cpp's header says what
// it does): the plan (entries, groups, one NCCL unique id per group), each
// rank's thread (device, artifact, communicators, entries), the barrier
// that also stops every rank when one fails (RankSync), the check of every
// rank against the reference recomputed from all of them, the step times,
// and the report.
//
//===----------------------------------------------------------------------===//

#include "TeRun.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>

namespace mlir::teq::terun {

using namespace mlir::teq::runtime;
using check::RankBuffers;

//===----------------------------------------------------------------------===//
// RankSync
//===----------------------------------------------------------------------===//

bool RankSync::arrive() {
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

void RankSync::fail(int rank, const std::string &error) {
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

std::pair<int, std::string> RankSync::firstError() {
  std::lock_guard<std::mutex> lock(mutex_);
  return firstError_;
}

bool RankSync::failed() {
  std::lock_guard<std::mutex> lock(mutex_);
  return failed_;
}

void RankSync::add(Communicator *comm) {
  std::lock_guard<std::mutex> lock(mutex_);
  comms_.push_back(comm);
}

//===----------------------------------------------------------------------===//
// The ranks
//===----------------------------------------------------------------------===//

namespace {

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
          check::checkOutputs(rank.artifact->manifest(), spec, report.before,
                       report.after, buffers, rank.rank);
      report.checked = true;
    }
    for (RankState &rank : ranks) {
      rank.reports[e].before.clear();
      rank.reports[e].after.clear();
    }
  }
}

} // namespace

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

} // namespace mlir::teq::terun
