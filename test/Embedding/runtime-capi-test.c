/*===- runtime-capi-test.c - The runtime C API, from an installed TEQ ----===*\
|*                                                                            *|
|* Built by the consumer project against TEQ::Runtime alone (no MLIR);        *|
|* runtime-capi.test checks what it prints. Lists an artifact without a GPU   *|
|* (inspect), then makes bad calls; with a GPU it also loads the artifact and *|
|* checks a run with the wrong number of buffers.                             *|
|*                                                                            *|
|*   teq-runtime-capi-test artifact.so                                        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "teq-c/Runtime.h"

#include <inttypes.h>
#include <stdio.h>

static int check(const char *what, TeqRtStatus status) {
  if (status == TEQ_RT_SUCCESS)
    printf("%s: ok\n", what);
  else
    printf("%s: error: %s\n", what, teqRtGetLastError());
  return status == TEQ_RT_SUCCESS;
}

static void listArtifact(TeqRtArtifact artifact) {
  const char *target = NULL, *code = NULL;
  size_t numEntries = 0, numGemms = 0;
  teqRtArtifactGetTarget(artifact, &target);
  teqRtArtifactGetDeviceCode(artifact, &code);
  teqRtArtifactGetNumEntries(artifact, &numEntries);
  teqRtArtifactGetNumGemms(artifact, &numGemms);
  printf("target %s, device code %s, %zu entries, %zu GEMMs\n", target, code,
         numEntries, numGemms);
  for (size_t e = 0; e < numEntries; ++e) {
    TeqRtEntry entry;
    const char *name = NULL;
    size_t numArgs = 0, numBuffers = 0;
    int64_t workspace = 0;
    teqRtArtifactGetEntry(artifact, e, &entry);
    teqRtEntryGetName(entry, &name);
    teqRtEntryGetNumArgs(entry, &numArgs);
    teqRtEntryGetNumBuffers(entry, &numBuffers);
    teqRtEntryGetWorkspaceBytes(entry, &workspace);
    printf("entry %s: %zu args, %zu buffers, workspace %" PRId64 " bytes\n",
           name, numArgs, numBuffers, workspace);
    for (size_t a = 0; a < numArgs; ++a) {
      TeqRtArgInfo arg;
      teqRtEntryGetArgInfo(entry, a, &arg);
      printf("  %s %s %s[", arg.kind == TEQ_RT_ARG_INPUT    ? "input"
                            : arg.kind == TEQ_RT_ARG_OUTPUT ? "output"
                                                            : "inout",
             arg.name, arg.dtype);
      for (size_t d = 0; d < arg.rank; ++d)
        printf("%s%" PRId64, d ? "," : "", arg.shape[d]);
      printf("] %" PRId64 " bytes, buffers %zu..%zu\n", arg.bytes,
             arg.firstBuffer, arg.firstBuffer + arg.numBuffers - 1);
    }
  }
  for (size_t g = 0; g < numGemms; ++g) {
    TeqRtGemmInfo gemm;
    teqRtArtifactGetGemmInfo(artifact, g, &gemm);
    printf("gemm %" PRId64 " %s: m=%" PRId64 " n=%" PRId64 " k=%" PRId64
           " A=%s B=%s D=%s scales %s/%s\n",
           gemm.id, gemm.name, gemm.m, gemm.n, gemm.k, gemm.aType, gemm.bType,
           gemm.dType, gemm.aScaleMode, gemm.bScaleMode);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: teq-runtime-capi-test artifact.so\n");
    return 2;
  }
  TeqRtArtifact artifact;
  if (!check("inspect", teqRtArtifactInspect(argv[1], &artifact)))
    return 1;
  listArtifact(artifact);

  TeqRtEntry entry, missing;
  check("lookup fc1", teqRtArtifactLookupEntry(artifact, "fc1", &entry));
  check("lookup fc2", teqRtArtifactLookupEntry(artifact, "fc2", &missing));
  TeqRtArgInfo arg;
  check("argument 99", teqRtEntryGetArgInfo(entry, 99, &arg));
  uint64_t buffers[3] = {0, 0, 0};
  check("run inspected", teqRtEntryRun(entry, buffers, 3, NULL, NULL));
  TeqRtArtifact none = {NULL};
  size_t count = 0;
  check("null artifact", teqRtArtifactGetNumEntries(none, &count));
  check("not an artifact", teqRtArtifactInspect("/nonexistent/x.so", &none));
  teqRtArtifactDestroy(artifact);

  // With a GPU: load it for real; a call with a missing buffer is refused
  // before anything is launched.
  TeqRtContext context;
  if (teqRtContextCreate(0, &context) != TEQ_RT_SUCCESS) {
    printf("no GPU: %s\n", teqRtGetLastError());
  } else {
    TeqRtArtifact loaded;
    if (check("load", teqRtArtifactLoad(context, argv[1], &loaded))) {
      check("lookup", teqRtArtifactLookupEntry(loaded, "fc1", &entry));
      check("run with 2 buffers", teqRtEntryRun(entry, buffers, 2, NULL, NULL));
      teqRtArtifactDestroy(loaded);
    }
    teqRtContextDestroy(context);
  }
  printf("done\n");
  return 0;
}
