// te-run checks an artifact file before it loads any of its code
// (docs/Artifact.md, "The artifact file"): damaged copies of a compiled
// artifact and files that are not artifacts are refused with the file and
// the problem named; none of them reaches the dynamic loader, so nothing
// crashes (a truncated library used to raise SIGBUS in it, a flipped
// relocation SIGSEGV).
// REQUIRES: teq-runtime
// RUN: te-compile %s -o %t.so
// RUN: te-run --list %t.so | FileCheck %s --check-prefix=LIST
// LIST: artifact {{.*}}.so: target sm_90, device code ptx, 1 entry
// LIST: entry quantize (symbol teq_entry_quantize): 4 buffers

// Truncated: the trailer is gone; the TEQ note near the start of the file
// still says how long it was.
// RUN: %python %S/Inputs/te-run-damage.py %t.so %t.head.so truncate 4000
// RUN: not te-run --list %t.head.so 2>&1 | FileCheck %s --check-prefix=HEAD
// HEAD: te-run: error: artifact '{{.*}}.head.so': truncated: its TEQ note records {{[0-9]+}} bytes, the file has 4000
// RUN: %python %S/Inputs/te-run-damage.py %t.so %t.short.so chop 1
// RUN: not te-run --list %t.short.so 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: artifact '{{.*}}.short.so': truncated: its TEQ note records {{[0-9]+}} bytes, the file has {{[0-9]+}}
// Bytes cut from the middle: the trailer is intact but counts more.
// RUN: %python %S/Inputs/te-run-damage.py %t.so %t.cut.so cut 8192 100
// RUN: not te-run --list %t.cut.so 2>&1 | FileCheck %s --check-prefix=CUT
// CUT: artifact '{{.*}}.cut.so': truncated: the trailer says {{[0-9]+}} bytes, the file has {{[0-9]+}}
// RUN: %python %S/Inputs/te-run-damage.py %t.so %t.long.so append 16
// RUN: not te-run --list %t.long.so 2>&1 | FileCheck %s --check-prefix=LONG
// LONG: artifact '{{.*}}.long.so': extended: its TEQ note records {{[0-9]+}} bytes, the file has {{[0-9]+}} (bytes were appended after the trailer)

// One flipped byte anywhere: in a relocation, in the code, in the
// manifest, in the checksum itself.
// RUN: %python %S/Inputs/te-run-damage.py %t.so %t.rela.so flip-section .rela.dyn
// RUN: not te-run --list %t.rela.so 2>&1 | FileCheck %s --check-prefix=FLIP
// RUN: %python %S/Inputs/te-run-damage.py %t.so %t.text.so flip-section .text
// RUN: not te-run --list %t.text.so 2>&1 | FileCheck %s --check-prefix=FLIP
// RUN: %python %S/Inputs/te-run-damage.py %t.so %t.manifest.so flip -100
// RUN: not te-run --list %t.manifest.so 2>&1 | FileCheck %s --check-prefix=FLIP
// RUN: %python %S/Inputs/te-run-damage.py %t.so %t.checksum.so flip -1
// RUN: not te-run --list %t.checksum.so 2>&1 | FileCheck %s --check-prefix=FLIP
// FLIP: te-run: error: artifact '{{.*}}.so': checksum mismatch: the file changed after te-compile wrote it (its trailer records XXH64 0x{{[0-9a-f]+}}, its contents hash to 0x{{[0-9a-f]+}})
// The trailer's magic and its format version.
// RUN: %python %S/Inputs/te-run-damage.py %t.so %t.magic.so flip -48
// RUN: not te-run --list %t.magic.so 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: artifact '{{.*}}.magic.so': damaged trailer: its TEQ note records {{[0-9]+}} bytes, but the file does not end with a TEQ trailer
// RUN: %python %S/Inputs/te-run-damage.py %t.so %t.version.so flip -40
// RUN: not te-run --list %t.version.so 2>&1 | FileCheck %s --check-prefix=VERSION
// VERSION: artifact '{{.*}}.version.so': unsupported trailer format version 254 (this runtime reads version 1; written by another te-compile?)

// Files that are not artifacts: a shared library of someone else's, a text
// file, a directory, no file.
// RUN: printf 'int answer(void) { return 42; }\n' > %t.foreign.c
// RUN: cc -shared -fPIC %t.foreign.c -o %t.foreign.so
// RUN: not te-run --list %t.foreign.so 2>&1 | FileCheck %s --check-prefix=FOREIGN
// FOREIGN: te-run: error: artifact '{{.*}}.foreign.so': not a TEQ artifact (no trailer)
// RUN: printf 'not a library\n' > %t.txt
// RUN: not te-run --list %t.txt 2>&1 | FileCheck %s --check-prefix=TEXT
// TEXT: artifact '{{.*}}.txt': not a TEQ artifact (no trailer)
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: not te-run --list %t.dir 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: artifact '{{.*}}.dir': cannot load: not a regular file
// RUN: not te-run --list %t.missing.so 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: artifact '{{.*}}.missing.so': cannot load: cannot open the file: No such file or directory

// A library linked by hand from te-compile's object has the TEQ note but no
// trailer; te-seal writes it (checking the result as the runtime will).
// RUN: te-compile %s --emit=obj -o %t.o
// RUN: cc -shared %t.o -o %t.hand.so
// RUN: not te-run --list %t.hand.so 2>&1 | FileCheck %s --check-prefix=UNSEALED
// UNSEALED: artifact '{{.*}}.hand.so': not sealed: the library has a TEQ note but no trailer (te-compile appends it after linking; a library linked by hand needs te-seal)
// RUN: te-seal %t.so --print-manifest > %t.json
// RUN: te-seal %t.hand.so --manifest %t.json -o %t.sealed.so
// RUN: te-run --list %t.sealed.so | FileCheck %s --check-prefix=LIST
// te-seal refuses to seal or read what the runtime would refuse.
// RUN: not te-seal %t.foreign.so --manifest %t.json 2>&1 | FileCheck %s --check-prefix=SEAL-FOREIGN
// SEAL-FOREIGN: te-seal: error: '{{.*}}.foreign.so': not a TEQ artifact (no trailer)
// RUN: not te-seal %t.short.so --print-manifest 2>&1 | FileCheck %s --check-prefix=SEAL-SHORT
// SEAL-SHORT: te-seal: error: artifact '{{.*}}.short.so': truncated: its TEQ note records

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @quantize(%x: tensor<128x256xbf16>) -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
}
