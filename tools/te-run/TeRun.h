//===- TeRun.h - te-run's parts and what they share -------------*- C++ -*-===//
//
// te-run is split by job: te-run.cpp (options, the one-GPU run's report as
// text or JSON, main), Run.cpp (one entry: inputs, run, outputs, check,
// benchmark), Ranks.cpp (--nranks: one thread and communicator per rank),
// List.cpp (--list). The checker and input generation are the TEQCheck
// library (teq/Check).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_TOOLS_TE_RUN_TERUN_H
#define TEQ_TOOLS_TE_RUN_TERUN_H

#include "teq/Check/Check.h"
#include "teq/Check/Inputs.h"
#include "teq/Runtime/Artifact.h"
#include "teq/Runtime/Communicator.h"
#include "teq/Runtime/Context.h"
#include "teq/Runtime/Json.h"
#include "teq/Runtime/Manifest.h"

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace mlir::teq::terun {

using check::BufferCheck;
using check::CheckReport;
using check::HostBuffers;
using runtime::Artifact;
using runtime::Communicator;
using runtime::Context;
using runtime::Entry;
using runtime::JsonValue;
using runtime::Manifest;
using runtime::Status;
using runtime::StatusOr;

/// te-run's command line (te-run.cpp, kUsage).
struct Options {
  std::string artifact;
  std::string entry;
  int device = 0;
  uint64_t seed = 0;
  check::Fill fill = check::Fill::Random;
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

struct BenchResult {
  double medianUs = 0, minUs = 0, maxUs = 0;
  int64_t bytes = 0;
  double gbps = 0;
  /// Each timed run, in order (--nranks: the step is the slowest rank's).
  std::vector<double> timesUs;
};

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

/// Where the ranks of --nranks meet: arrive() waits for every rank (or
/// returns false once one failed), fail() wakes them and aborts every
/// communicator, so that no rank waits forever in a collective for a peer
/// that is gone.
class RankSync {
public:
  explicit RankSync(int nranks) : nranks_(nranks) {}

  bool arrive();
  /// `rank` failed with `error` (recorded first, before the aborts, which
  /// may block behind a blocking communicator's collective: runRanks then
  /// reports this error without waiting for the rank).
  void fail(int rank, const std::string &error);
  /// The rank that failed first and its error (rank -1: none).
  std::pair<int, std::string> firstError();
  /// Whether a rank failed (polled by the ranks still creating their
  /// communicators, which NCCL would otherwise keep waiting for the failed
  /// rank forever).
  bool failed();
  /// `comm` lives until every rank is done.
  void add(Communicator *comm);

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

/// "stopped: another rank failed".
Status otherRankFailed();

/// Runs `entry` once on its inputs (generated or read from --inputs),
/// writes --outputs, checks (one GPU; --nranks keeps the buffers for
/// checkRanks) and benchmarks as `options` say (Run.cpp).
Status runEntry(const Options &options, const std::shared_ptr<Context> &context,
                const Artifact &artifact, const Entry &entry,
                EntryReport &report, const RankSetup *rank = nullptr);

/// The report of a run as text / as JSON (te-run.cpp).
void printText(const Options &options, const Artifact &artifact,
               const std::vector<EntryReport> &reports);
JsonValue reportsJson(const Options &options, const Artifact &artifact,
                      const std::vector<EntryReport> &reports, bool ok);

/// --list: the manifest's entries, arguments and GEMMs (List.cpp).
void printList(const std::string &path, const Manifest &manifest);

/// --nranks: runs, checks and reports every rank; the exit status
/// (Ranks.cpp).
int runRanks(const Options &options);

} // namespace mlir::teq::terun

#endif // TEQ_TOOLS_TE_RUN_TERUN_H
