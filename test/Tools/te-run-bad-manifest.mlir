// te-run --list refuses an artifact whose trailer is intact but whose
// manifest does not describe a program it can run: the runtime validates
// the whole manifest when it opens (or inspects) an artifact, and names the
// entry, argument and field. The bad manifests are this program's manifest
// with one field changed, written around the compiled library with
// `te-seal --unchecked` (a valid trailer and checksum, nothing else checked).
// REQUIRES: teq-runtime
// RUN: te-compile %s -o %t.so
// RUN: te-run --list %t.so | FileCheck %s --check-prefix=GOOD
// GOOD: entry fwd (symbol teq_entry_fwd): 3 buffers
// RUN: te-seal %t.so --print-manifest > %t.json

// Without --unchecked, te-seal checks what it writes as the runtime will.
// RUN: sed 's/"symbol":"teq_entry_fwd"/"symbol":"teq_entry_gone"/' %t.json > %t.symbol.json
// RUN: rm -f %t.symbol.so
// RUN: not te-seal %t.so --manifest %t.symbol.json -o %t.symbol.so 2>&1 | FileCheck %s --check-prefix=SEAL
// SEAL: te-seal: error: artifact '{{.*}}.symbol.so': entry 'fwd': the library does not export its symbol 'teq_entry_gone' (nothing written; --unchecked writes it anyway)
// RUN: not test -e %t.symbol.so

// An entry symbol the library does not define: found in its dynamic symbol
// table, without loading it.
// RUN: te-seal %t.so --manifest %t.symbol.json --unchecked -o %t.symbol.so
// RUN: not te-run --list %t.symbol.so 2>&1 | FileCheck %s --check-prefix=SYMBOL
// SYMBOL: te-run: error: artifact '{{.*}}.symbol.so': entry 'fwd': the library does not export its symbol 'teq_entry_gone'

// Rank-0 shapes where the program has none: the buffers of a quantized
// temporary are those of its type on the target, and a GEMM's output is
// its n x m product.
// RUN: sed 's/"shape":\[64,128\],"text"/"shape":[],"text"/' %t.json > %t.rank0.json
// RUN: te-seal %t.so --manifest %t.rank0.json --unchecked -o %t.rank0.so
// RUN: not te-run --list %t.rank0.so 2>&1 | FileCheck %s --check-prefix=RANK0
// RANK0: artifact '{{.*}}.rank0.so': manifest: entries[0].temporaries[0].buffers[0]: is 'data' e4m3[64, 128] (8192 bytes), but the layout of bf16[] quantized by float8_current_scaling (rowwise) on sm_90 has 'data' e4m3[] (1 byte) there
// RUN: sed 's/"shape":\[64,256\]/"shape":[]/' %t.json > %t.scalar.json
// RUN: te-seal %t.so --manifest %t.scalar.json --unchecked -o %t.scalar.so
// RUN: not te-run --list %t.scalar.so 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: artifact '{{.*}}.scalar.so': manifest: entries[0].args[2].computed_by: 'result0' (bf16[]) is not the [64, 256] D of GEMM 'fwd:fprop0' (id 0) (layout TN, A 't1' (bf16[256, 128] quantized by float8_current_scaling), B 't0' (bf16[64, 128] quantized by float8_current_scaling))

// computed_by naming a GEMM, a temporary or an input that does not exist.
// RUN: sed 's/"gemm":0/"gemm":7/' %t.json > %t.gemm.json
// RUN: te-seal %t.so --manifest %t.gemm.json --unchecked -o %t.gemm.so
// RUN: not te-run --list %t.gemm.so 2>&1 | FileCheck %s --check-prefix=GEMM
// GEMM: artifact '{{.*}}.gemm.so': manifest: entries[0].args[2].computed_by.gemm: GEMM 7 does not exist (the artifact has 1 GEMM)
// RUN: sed 's/"a":"t1"/"a":"t9"/' %t.json > %t.temporary.json
// RUN: te-seal %t.so --manifest %t.temporary.json --unchecked -o %t.temporary.so
// RUN: not te-run --list %t.temporary.so 2>&1 | FileCheck %s --check-prefix=TEMPORARY
// TEMPORARY: artifact '{{.*}}.temporary.so': manifest: entries[0].args[2].computed_by.a: names 't9', which is neither an argument nor a temporary of entry 'fwd'
// RUN: sed 's/"input":"arg0"/"input":"x"/' %t.json > %t.input.json
// RUN: te-seal %t.so --manifest %t.input.json --unchecked -o %t.input.so
// RUN: not te-run --list %t.input.so 2>&1 | FileCheck %s --check-prefix=INPUT
// INPUT: artifact '{{.*}}.input.so': manifest: entries[0].temporaries[0].computed_by.input: names 'x', which is neither an argument nor a temporary of entry 'fwd'

// Sizes: a 2^63-byte workspace, one larger than any GPU, one too small for
// the temporaries, a tensor whose bytes overflow.
// RUN: sed 's/"workspace_bytes":[0-9]*/"workspace_bytes":9223372036854775808/' %t.json > %t.ws63.json
// RUN: te-seal %t.so --manifest %t.ws63.json --unchecked -o %t.ws63.so
// RUN: not te-run --list %t.ws63.so 2>&1 | FileCheck %s --check-prefix=WS63
// WS63: artifact '{{.*}}.ws63.so': manifest: entries[0].workspace_bytes: integer out of range: 9223372036854775808
// RUN: sed 's/"workspace_bytes":[0-9]*/"workspace_bytes":1125899906842624/' %t.json > %t.ws50.json
// RUN: te-seal %t.so --manifest %t.ws50.json --unchecked -o %t.ws50.so
// RUN: not te-run --list %t.ws50.so 2>&1 | FileCheck %s --check-prefix=WS50
// WS50: artifact '{{.*}}.ws50.so': manifest: entries[0].workspace_bytes: 1125899906842624 bytes is more than a workspace can have (2^48)
// RUN: sed 's/"workspace_bytes":[0-9]*/"workspace_bytes":1000/' %t.json > %t.ws.json
// RUN: te-seal %t.so --manifest %t.ws.json --unchecked -o %t.ws.so
// RUN: not te-run --list %t.ws.so 2>&1 | FileCheck %s --check-prefix=WS
// WS: artifact '{{.*}}.ws.so': manifest: entries[0].temporaries[0].placement[0]: temporary 't0' buffer 0 (8192 bytes at {{[0-9]+}}) does not fit the entry's workspace_bytes (1000 bytes)
// RUN: sed 's/"tensor":{"dtype":"bf16","shape":\[64,128\]}/"tensor":{"dtype":"bf16","shape":[4294967296,4294967296]}/' %t.json > %t.huge.json
// RUN: te-seal %t.so --manifest %t.huge.json --unchecked -o %t.huge.so
// RUN: not te-run --list %t.huge.so 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: artifact '{{.*}}.huge.so': manifest: entries[0].args[0].tensor.shape: [4294967296, 4294967296] is too large: more than 2^48 bytes

// An unknown quantizer kind.
// RUN: sed 's/"kind":"float8_current_scaling"/"kind":"float8_sometimes"/' %t.json > %t.kind.json
// RUN: te-seal %t.so --manifest %t.kind.json --unchecked -o %t.kind.so
// RUN: not te-run --list %t.kind.so 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: artifact '{{.*}}.kind.so': manifest: entries[0].temporaries[0].proto.quantizer.kind: unknown quantizer kind "float8_sometimes" (expected float8_current_scaling, float8_delayed, float8_block, mxfp8 or nvfp4)

// --json reports the error too.
// RUN: not te-run --list --json %t.kind.so 2>/dev/null | FileCheck %s --check-prefix=JSON
// JSON: "ok": false,
// JSON-NEXT: "error": "artifact '{{.*}}.kind.so': manifest: entries[0].temporaries[0].proto.quantizer.kind: unknown quantizer kind

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @fwd(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}
