// te-run with parallel groups, without a GPU: --list shows each entry's
// groups; --nranks checks them against the manifest before any device is
// touched (every group must span the N ranks); an entry with a group needs
// --nranks (its communicator) and says so.
// RUN: te-compile %s -o %t.so
// RUN: te-run --list %t.so | FileCheck %s --check-prefix=LIST
// RUN: not te-run %t.so --nranks 4 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: not te-run %t.so --nranks 0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not te-run %t.so --nranks 2 --entry nothing 2>&1 | FileCheck %s --check-prefix=ENTRY
// Without a usable NCCL, --nranks fails at once with the loader's error
// (never waits): a missing library, and one too old for the runtime's
// non-blocking communicators (a stand-in that reports 2.12). A hang would
// be killed by timeout before te-run prints anything.
// RUN: env TEQ_NCCL_LIBRARY=%t.dir/nonexistent/libnccl.so.2 not timeout 60 te-run %t.so --nranks 2 2>&1 | FileCheck %s --check-prefix=NONCCL
// RUN: mkdir -p %t.dir && cc -shared -fPIC -DFAKE_NCCL_VERSION=21207 %S/../../unittests/Runtime/FakeNccl.c -o %t.dir/libnccl.so.2
// RUN: env TEQ_NCCL_LIBRARY=%t.dir not timeout 60 te-run %t.so --nranks 2 2>&1 | FileCheck %s --check-prefix=OLDNCCL

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @allreduce(%x: tensor<64x256xbf16>, %tp: !teq.process_group) -> tensor<64x256xbf16> {
    %y = teq.all_reduce %x, %tp {tp_size = 2 : i64} : tensor<64x256xbf16> -> tensor<64x256xbf16>
    return %y : tensor<64x256xbf16>
  }
  func.func @local(%x: tensor<64x256xbf16>) -> tensor<64x256xbf16> {
    %y = arith.addf %x, %x : tensor<64x256xbf16>
    return %y : tensor<64x256xbf16>
  }
}

// LIST: entry allreduce (symbol teq_entry_allreduce): 2 buffers
// LIST-NEXT: group  0 arg1 of 2 ranks
// LIST-NEXT: input  arg0
// LIST: entry local
// LIST-NOT: group
// LIST: input  arg0

// SIZE: te-run: error: entry 'allreduce' communicates over group 'arg1' of 2 ranks, but --nranks is 4 (te-run makes every group span all ranks)
// ZERO: te-run: error: --nranks must be at least 1
// ENTRY: te-run: error: artifact '{{.*}}': no entry 'nothing'
// NONCCL: te-run: error: group 'arg1': NCCL not available: cannot open {{.*}}nonexistent/libnccl.so.2 (named by TEQ_NCCL_LIBRARY)
// OLDNCCL: te-run: error: group 'arg1': NCCL not available: {{.*}}libnccl.so.2 is NCCL 2.12.7; the runtime needs NCCL 2.14.0 or later (non-blocking communicators, ncclCommInitRankConfig)
