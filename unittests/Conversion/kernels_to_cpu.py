#!/usr/bin/env python3
"""Turns the NVFP4 data kernels of convert-teq-to-gpu output into CPU code.

Usage: kernels_to_cpu.py GPU.mlir CPU.mlir

Each `gpu.func @<prefix>_nvfp4_row|col(args) kernel` becomes
`func.func @<prefix>_nvfp4_row|col(args, %emu_bid: index, %emu_tid: index)`
with `llvm.emit_c_interface`, so a C++ test can run every (block, thread)
of the launch on the CPU and compare the buffers with the reference. The
kernels are plain arith/math/vector/memref/scf except for three things
replaced here:
  * gpu.thread_id / gpu.block_id become the two new arguments;
  * gpu.return becomes return;
  * nvvm.convert.f32x2.to.f8x2 (the hardware E4M3 RNE + satfinite cvt of
    the block scale, already checked bit for bit on the GPU) becomes a call
    to `emu_e4m3(f32, f32) -> i16`, which the test implements with the
    reference's floatToE4M3 (first operand in the upper byte, as cvt does).
Everything else, the Philox4x32-10 evaluation and the stochastic E2M1
rounding included, is the kernel's own IR.
"""
import re
import sys

FUNC = re.compile(r'\s*gpu\.func @(\w+_nvfp4_(?:row|col))\((.*)\) kernel attributes')
CVT = re.compile(r'(\s*)(%\S+) = nvvm\.convert\.f32x2\.to\.f8x2 (%\S+), (%\S+) \{.*\} : i16\s*\(f8E4M3FN\)')


def main(src, dst):
    lines = open(src).read().split('\n')
    out = ['module {', '  func.func private @emu_e4m3(f32, f32) -> i16']
    i = 0
    found = 0
    while i < len(lines):
        m = FUNC.match(lines[i])
        i += 1
        if not m:
            continue
        found += 1
        out.append(f'  func.func @{m.group(1)}({m.group(2)}, %emu_bid: index, '
                   '%emu_tid: index) attributes {llvm.emit_c_interface} {')
        ids = {}
        while lines[i].strip() != 'gpu.return':
            line = lines[i]
            i += 1
            idm = re.match(r'\s*(%\S+) = gpu\.(thread|block)_id\s+x', line)
            if idm:
                ids[idm.group(1)] = '%emu_tid' if idm.group(2) == 'thread' else '%emu_bid'
                continue
            for name, arg in ids.items():
                line = re.sub(re.escape(name) + r'\b', arg, line)
            cvt = CVT.match(line)
            if cvt:
                line = (f'{cvt.group(1)}{cvt.group(2)} = func.call @emu_e4m3('
                        f'{cvt.group(3)}, {cvt.group(4)}) : (f32, f32) -> i16')
            if 'nvvm.' in line or 'gpu.' in line:
                sys.exit(f'kernels_to_cpu.py: cannot run on the CPU: {line.strip()}')
            out.append(line)
        i += 1  # gpu.return
        out.append('    return')
        out.append('  }')
    out.append('}')
    if not found:
        sys.exit('kernels_to_cpu.py: no NVFP4 data kernels in ' + src)
    open(dst, 'w').write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
