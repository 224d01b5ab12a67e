#!/usr/bin/env python3
"""Turns the NVFP4 kernels of convert-teq-to-gpu output into CPU code.

Usage: kernels_to_cpu.py GPU.mlir CPU.mlir

Each `gpu.func @<prefix>_nvfp4[_row|_col](args) [workgroup(...)] kernel`
(the data kernels) and the amax kernels (`_amax`, `_nvfp4_amax`,
`_rht_amax`, `_rht_amax_final`) becomes `func.func @<prefix>_nvfp4[_row|_col](args, %emu_bx: index,
%emu_by: index)` with `llvm.emit_c_interface`, running ONE BLOCK of the
launch: a C++ test calls it for every block of the grid and compares the
buffers with the reference. The kernels are plain arith/math/vector/memref/
scf except for what is replaced here:
  * the workgroup attributions become `memref.alloca`s of the function (the
    block's shared memory), their address space dropped;
  * the 256 threads run one after another, phase by phase: the body is cut
    at its top-level `gpu.barrier`s into segments S0..Sn, and phase p is a
    loop over the threads running S0..Sp (the earlier segments again, so
    that every value a segment uses is defined; the kernels' segments
    before a barrier only write workgroup memory, with values that do not
    change when written again, so this is what a barrier means);
  * a top-level `gpu.shuffle xor` is a barrier too: each thread stores its
    value in a buffer of the block, and after the cut reads lane
    tid ^ offset's (the offsets are below 32: within the warp);
  * the gpu.module's memref.globals (amax partials) become the CPU
    module's, their address space dropped;
  * gpu.thread_id x / gpu.block_id x|y become the thread loop's variable
    and the two new arguments; gpu.return becomes return;
  * nvvm.convert.f32x2.to.f8x2 (the hardware E4M3 RNE + satfinite cvt of
    the block scale, already checked bit for bit on the GPU) becomes a call
    to `emu_e4m3(f32, f32) -> i16`, which the test implements with the
    reference's floatToE4M3 (first operand in the upper byte, as cvt does).
Everything else, the Philox4x32-10 evaluation and the stochastic E2M1
rounding included, is the kernel's own IR. Any other gpu./nvvm. operation
(shuffles, barriers inside control flow) is refused.
"""
import re
import sys

FUNC = re.compile(r'(\s*)gpu\.func @(\w+_(?:nvfp4(?:_row|_col|_amax)?|amax|'
                  r'rht_amax|rht_amax_final))\((.*?)\)'
                  r'(?: workgroup\((.*?)\))? kernel attributes')
GLOBAL = re.compile(r'\s*memref\.global "private" @(\w+) : (memref<[^>]*>>|memref<[^>]*>)')
SHUFFLE = re.compile(r'(\s*)(%\S+), (%\S+) = gpu\.shuffle\s+xor (%\S+), (%\S+), (%\S+) : f32\s*$')
GLOBAL_AS = ', #gpu.address_space<global>'
CVT = re.compile(r'(\s*)(%\S+) = nvvm\.convert\.f32x2\.to\.f8x2 (%\S+), (%\S+) \{.*\} : i16\s*\(f8E4M3FN\)')
WG = ', #gpu.address_space<workgroup>'
IDS = {'thread_id x': '%emu_tid', 'block_id x': '%emu_bx', 'block_id y': '%emu_by'}


def main(src, dst):
    lines = open(src).read().split('\n')
    out = ['module {', '  func.func private @emu_e4m3(f32, f32) -> i16']
    i = 0
    found = 0
    for line in lines:
        g = GLOBAL.match(line)
        if g:
            out.append(f'  memref.global "private" @{g.group(1)} : '
                       f'{g.group(2).replace(GLOBAL_AS, "")} = uninitialized')
    while i < len(lines):
        m = FUNC.match(lines[i])
        i += 1
        if not m:
            continue
        found += 1
        indent = len(m.group(1)) + 2  # the body's top level
        out.append(f'  func.func @{m.group(2)}({m.group(3)}, %emu_bx: index, '
                   '%emu_by: index) attributes {llvm.emit_c_interface} {')
        out.append('    %emu_c0 = arith.constant 0 : index')
        out.append('    %emu_c1 = arith.constant 1 : index')
        out.append('    %emu_c256 = arith.constant 256 : index')
        if m.group(4):
            for attr in re.finditer(r'(%\w+) : (memref<[^>]*>>|memref<[^>]*>)',
                                    m.group(4)):
                out.append(f'    {attr.group(1)} = memref.alloca() : '
                           f'{attr.group(2).replace(WG, "")}')
        segments = [[]]
        ids = {}
        shuffles = 0
        while lines[i].strip() != 'gpu.return' or \
                len(lines[i]) - len(lines[i].lstrip()) != indent:
            line = lines[i]
            i += 1
            if line.strip() == 'gpu.barrier':
                if len(line) - len(line.lstrip()) != indent:
                    sys.exit('kernels_to_cpu.py: barrier inside control flow')
                segments.append([])
                continue
            idm = re.match(r'\s*(%\S+) = gpu\.(thread_id|block_id)\s+([xy])\s*$', line)
            if idm:
                ids[idm.group(1)] = IDS[idm.group(2) + ' ' + idm.group(3)]
                continue
            for name, arg in ids.items():
                line = re.sub(re.escape(name) + r'(?![\w$.-])', arg, line)
            line = line.replace(WG, '').replace(GLOBAL_AS, '')
            shf = SHUFFLE.match(line)
            if shf:
                # A shuffle is a barrier: every lane stores its value, then
                # reads its partner's (lane ^ offset, within the warp).
                if len(shf.group(1)) != indent:
                    sys.exit('kernels_to_cpu.py: shuffle inside control flow')
                k = shuffles
                shuffles += 1
                ind = shf.group(1)
                out.append(f'    %emu_shfl{k} = memref.alloca() : memref<256xf32>')
                segments[-1].append(f'{ind}memref.store {shf.group(4)}, '
                                    f'%emu_shfl{k}[%emu_tid] : memref<256xf32>')
                segments.append([
                    f'{ind}%emu_off{k} = arith.index_cast {shf.group(5)} : i32 to index',
                    f'{ind}%emu_src{k} = arith.xori %emu_tid, %emu_off{k} : index',
                    f'{ind}{shf.group(2)} = memref.load %emu_shfl{k}[%emu_src{k}] : memref<256xf32>',
                    f'{ind}{shf.group(3)} = arith.constant true'])
                continue
            cvt = CVT.match(line)
            if cvt:
                line = (f'{cvt.group(1)}{cvt.group(2)} = func.call @emu_e4m3('
                        f'{cvt.group(3)}, {cvt.group(4)}) : (f32, f32) -> i16')
            if 'nvvm.' in line or 'gpu.' in line:
                sys.exit(f'kernels_to_cpu.py: cannot run on the CPU: {line.strip()}')
            segments[-1].append(line)
        i += 1  # gpu.return
        for phase in range(len(segments)):
            out.append('    scf.for %emu_tid = %emu_c0 to %emu_c256 step %emu_c1 {')
            for seg in segments[:phase + 1]:
                out.extend(seg)
            out.append('    }')
        out.append('    return')
        out.append('  }')
    out.append('}')
    if not found:
        sys.exit('kernels_to_cpu.py: no NVFP4 kernels in ' + src)
    open(dst, 'w').write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
