/*===- FakeNccl.c - A stand-in libnccl.so.2 for NCCL's loader ------------===*
 *
 * CommunicatorTest points $TEQ_NCCL_LIBRARY at these to check the runtime's
 * NCCL loader (lib/Runtime/Nccl.cpp) without NCCL: FAKE_NCCL_VERSION is
 * what ncclGetVersion reports; the library has ncclGetVersion,
 * ncclGetUniqueId and ncclCommInitRank only (no ncclCommInitRankConfig, as
 * NCCL before 2.14). Nothing here is ever called past the version.
 *
 *===----------------------------------------------------------------------===*/

#define EXPORT __attribute__((visibility("default")))

EXPORT int ncclGetVersion(int *version) {
  *version = FAKE_NCCL_VERSION;
  return 0;
}
EXPORT int ncclGetUniqueId(void *id) {
  (void)id;
  return 5; /* ncclInvalidUsage */
}
EXPORT int ncclCommInitRank(void *comm, int nranks, char id[128], int rank) {
  (void)comm, (void)nranks, (void)id, (void)rank;
  return 5;
}
