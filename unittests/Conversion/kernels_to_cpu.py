#!/usr/bin/env python3
"""Turns the NVFP4 kernels of convert-teq-to-gpu output into CPU code.

Usage: kernels_to_cpu.py GPU.mlir CPU.mlir
       kernels_to_cpu.py --tiles GPU.mlir CPU.mlir CASES.inc  (see tiles())

Each `gpu.func @<prefix>_nvfp4[_row|_col](args) [workgroup(...)] kernel`
(the data kernels) and the amax kernels (`_amax`, `_nvfp4_amax`,
`_rht_amax`, `_rht_amax_final`) becomes `func.func @<prefix>_nvfp4[_row|_col](args, %emu_bx: index,
%emu_by: index)` with `llvm.emit_c_interface`, running ONE BLOCK of the
launch: a C++ test calls it for every block of the grid and compares the
buffers with the reference. The kernels are plain arith/math/vector/memref/
scf except for what is replaced here:
  * the workgroup attributions become `memref.alloca`s of the function (the
    block's shared memory, 16-byte aligned), their address space dropped;
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
  * programmatic dependent launch's nvvm.griddepcontrol (the amax pass's
    launch_dependents, the data kernel's wait) is dropped: the test runs
    the data kernel after the whole pass;
  * the fused amax reductions' fences (nvvm.memory.barrier) are dropped
    (blocks run one after another) and their zero-initialized globals stay
    zero-initialized; their atomics run as CPU atomics, once: a later
    phase re-runs the segments before it without their result-less
    top-level regions that hold atomics (they define no value it reads);
  * gpu.thread_id x / gpu.block_id x|y become the thread loop's variable
    and the two new arguments; gpu.return becomes return;
  * nvvm.convert.f32x2.to.f8x2 (the hardware E4M3 RNE + satfinite cvt of
    the block scale, already checked bit for bit on the GPU) becomes a call
    to `emu_e4m3(f32, f32) -> i16`, which the test implements with the
    reference's floatToE4M3 (first operand in the upper byte, as cvt does);
  * nvvm.prmt in default mode (the fast path's sign bits) becomes a call
    to `emu_prmt(lo, hi, selector) -> i32`, which the test implements
    from PTX's definition of prmt.b32 (sign replication included);
  * nvvm.convert.f32x2.to.bf16x2 (cvt.rn.bf16x2.f32 of the RHT's BF16
    roundings) becomes two arith.truncf, the first operand in element 1
    (the upper half, as cvt does).
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
CVTBF = re.compile(r'(\s*)(%\S+) = nvvm\.convert\.f32x2\.to\.bf16x2 (%\S+), (%\S+) '
                   r'\{rnd = #nvvm\.fp_rnd_mode<rn>\} : vector<2xbf16>\s*$')
PRMT = re.compile(r'(\s*)(%\S+) = nvvm\.prmt\s+<default>\s+(%\S+), (%\S+), (%\S+) : i32\s*$')
WG = ', #gpu.address_space<workgroup>'
IDS = {'thread_id x': '%emu_tid', 'block_id x': '%emu_bx', 'block_id y': '%emu_by'}


def without_atomic_regions(seg, indent):
    """`seg` without its top-level result-less regions (`scf.if ... {`)
    that hold atomics: re-running a segment for a later phase must not
    count or accumulate twice (the fused amax reductions), and such a
    region defines no value a later phase reads."""
    out, i = [], 0
    while i < len(seg):
        line = seg[i]
        top = len(line) - len(line.lstrip()) == indent
        if top and re.match(r'\s*scf\.if %\S+ \{\s*$', line):
            j, depth = i + 1, 1
            while depth:
                depth += seg[j].count('{') - seg[j].count('}')
                j += 1
            if any('atomic_rmw' in l for l in seg[i:j]):
                i = j
                continue
        out.append(line)
        i += 1
    return out


def main(src, dst):
    lines = open(src).read().split('\n')
    out = ['module {', '  func.func private @emu_e4m3(f32, f32) -> i16',
           '  func.func private @emu_prmt(i32, i32, i32) -> i32']
    i = 0
    found = 0
    for line in lines:
        g = GLOBAL.match(line)
        if g:
            out.append(f'  memref.global "private" @{g.group(1)} : '
                       f'{g.group(2).replace(GLOBAL_AS, "")} = '
                       f'{"dense<0>" if "= dense<0>" in line else "uninitialized"}')
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
                # 16-byte aligned like the kernels' workgroup buffers
                # (their 16-byte vector accesses).
                out.append(f'    {attr.group(1)} = memref.alloca() '
                           f'{{alignment = 16 : i64}} : '
                           f'{attr.group(2).replace(WG, "")}')
        segments = [[]]
        ids = {}
        shuffles = 0
        cvts = 0
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
            if 'nvvm.memory.barrier' in line or 'nvvm.griddepcontrol' in line:
                # A fence, or the launch overlap: the blocks and kernels run
                # one after another here.
                continue
            cvt = CVT.match(line)
            if cvt:
                line = (f'{cvt.group(1)}{cvt.group(2)} = func.call @emu_e4m3('
                        f'{cvt.group(3)}, {cvt.group(4)}) : (f32, f32) -> i16')
            prmt = PRMT.match(line)
            if prmt:
                ind, d, sel, lo, hi = prmt.groups()
                line = (f'{ind}{d} = func.call @emu_prmt({lo}, {hi}, {sel}) : '
                        f'(i32, i32, i32) -> i32')
            cvtbf = CVTBF.match(line)
            if cvtbf:
                # cvt.rn.bf16x2.f32 d, a, b: a in the high half (element 1).
                ind, d, hi, lo = cvtbf.groups()
                k = cvts
                cvts += 1
                line = (f'{ind}%emu_bf{k}lo = arith.truncf {lo} : f32 to bf16\n'
                        f'{ind}%emu_bf{k}hi = arith.truncf {hi} : f32 to bf16\n'
                        f'{ind}{d} = vector.from_elements %emu_bf{k}lo, '
                        f'%emu_bf{k}hi : vector<2xbf16>')
            if 'nvvm.' in line or 'gpu.' in line:
                sys.exit(f'kernels_to_cpu.py: cannot run on the CPU: {line.strip()}')
            segments[-1].append(line)
        i += 1  # gpu.return
        for phase in range(len(segments)):
            out.append('    scf.for %emu_tid = %emu_c0 to %emu_c256 step %emu_c1 {')
            for k, seg in enumerate(segments[:phase + 1]):
                out.extend(seg if k == phase else without_atomic_regions(seg, indent))
            out.append('    }')
        out.append('    return')
        out.append('  }')
    out.append('}')
    if not found:
        sys.exit('kernels_to_cpu.py: no NVFP4 kernels in ' + src)
    open(dst, 'w').write('\n'.join(out) + '\n')


# --tiles: the block FP8 / MXFP8 tile kernels (gpu.barrier, gpu.shuffle,
# workgroup memory), run by TileKernelEmulationTest as one fiber per thread.
TILE_FUNC = re.compile(r'\s*gpu\.func @(\w+_(?:block|mxfp8))\((.*?)\)'
                       r'(?: workgroup\((.*?)\))? kernel attributes')
CVT8 = re.compile(r'(\s*)(%\S+) = nvvm\.convert\.f32x2\.to\.f8x2 (%\S+), (%\S+) '
                  r'\{.*\} : i16\s*\((f8E4M3FN|f8E5M2)\)')
SHFL = re.compile(r'(\s*)(%\S+), (%\S+) = gpu\.shuffle\s+xor (%\S+), (%\S+), (%\S+) : f32$')
WG = ', #gpu.address_space<workgroup>'
ELEM_BYTES = {'f32': 4, 'i32': 4, 'i8': 1, 'bf16': 2, 'f16': 2, 'i16': 2, 'i64': 8}


def decode_mlir_string(s):
    return re.sub(r'\\(\\|[0-9A-Fa-f]{2})',
                  lambda m: '\\' if m.group(1) == '\\' else chr(int(m.group(1), 16)), s)


def rename(line, ids):
    for name, arg in ids.items():
        line = re.sub(re.escape(name) + r'(?![\w.$-])', arg, line)
    return line


def tiles(src, dst, inc):
    import json
    text = open(src).read()
    lines = text.split('\n')
    man = re.search(r'teq\.manifest = "((?:[^"\\]|\\.)*)"', text)
    manifest = json.loads(decode_mlir_string(man.group(1)))
    out = ['module {', '  func.func private @emu_e4m3(f32, f32) -> i16',
           '  func.func private @emu_e5m2(f32, f32) -> i16',
           '  func.func private @emu_barrier()',
           '  func.func private @emu_shfl_xor(f32, i32, i32) -> f32']
    kernels = {}
    i = 0
    while i < len(lines):
        m = TILE_FUNC.match(lines[i])
        i += 1
        if not m:
            continue
        name, args, wg = m.group(1), m.group(2), m.group(3) or ''
        wgs = []
        for w in re.findall(r'(%[\w.$-]+) : memref<([^,>]*)', wg):
            wm = re.fullmatch(r'(\d+)x(\w+)', w[1])
            if not wm:
                sys.exit(f'kernels_to_cpu.py: workgroup buffer not rank 1: {w}')
            wgs.append((w[0], int(wm.group(1)), wm.group(2)))
        nargs = len(args.split(': memref')) - 1
        params = args + ''.join(f', {n}: memref<{c}x{t}>' for n, c, t in wgs)
        out.append(f'  func.func @{name}({params}, %emu_dyn: memref<?xi8>, '
                   '%emu_bx: index, %emu_by: index, %emu_tid: index) '
                   'attributes {llvm.emit_c_interface} {')
        kernels[name] = (nargs, [c * ELEM_BYTES[t] for _, c, t in wgs])
        ids = {}
        while lines[i].strip() != 'gpu.return':
            line = lines[i].replace(WG, '')
            i += 1
            idm = re.match(r'\s*(%\S+) = gpu\.(thread_id|block_id)\s+(x|y)$', line)
            if idm:
                ids[idm.group(1)] = {'thread_id': '%emu_tid', 'block_id': '%emu_b'}[
                    idm.group(2)] + ('' if idm.group(2) == 'thread_id' else idm.group(3))
                continue
            dm = re.match(r'\s*(%\S+) = gpu\.dynamic_shared_memory', line)
            if dm:
                ids[dm.group(1)] = '%emu_dyn'
                continue
            line = rename(line, ids)
            cvt = CVT8.match(line)
            if cvt:
                fn = 'emu_e4m3' if cvt.group(5) == 'f8E4M3FN' else 'emu_e5m2'
                line = (f'{cvt.group(1)}{cvt.group(2)} = func.call @{fn}('
                        f'{cvt.group(3)}, {cvt.group(4)}) : (f32, f32) -> i16')
            sh = SHFL.match(line)
            if sh:
                ind = sh.group(1)
                out.append(f'{ind}{sh.group(2)} = func.call @emu_shfl_xor({sh.group(4)}, '
                           f'{sh.group(5)}, {sh.group(6)}) : (f32, i32, i32) -> f32')
                line = f'{ind}{sh.group(3)} = arith.constant true'
            if line.strip() == 'gpu.barrier':
                line = line.replace('gpu.barrier', 'func.call @emu_barrier() : () -> ()')
            if 'nvvm.' in line or 'gpu.' in line:
                sys.exit(f'kernels_to_cpu.py: cannot run on the CPU: {line.strip()}')
            out.append(line)
        i += 1
        out.append('    return')
        out.append('  }')
    out.append('}')
    open(dst, 'w').write('\n'.join(out) + '\n')

    # Which kernels each entry launches.
    launches = {}
    cur = None
    for line in lines:
        fm = re.match(r'\s*func\.func @(\w+)\(', line)
        if fm:
            cur = fm.group(1)
        lm = re.search(r'@teq_kernels::@(\w+)', line)
        if lm and cur:
            launches.setdefault(cur, []).append(lm.group(1))
    dtypes = {'bf16': 'BF16', 'f16': 'F16', 'f32': 'F32'}
    decls, rows = [], []
    for entry in manifest['entries']:
        launched = launches.get(entry['name'], [])
        tile = [k for k in launched if k in kernels]
        if len(tile) != 1:
            continue
        kname = tile[0]
        out_arg = [a for a in entry['args'] if a['kind'] == 'output'][0]
        proto = out_arg['proto']
        q = proto['quantizer']
        if q['kind'] == 'float8_block':
            fmt = 'BlockFP8_2D' if q.get('block_scaling_dim', 2) == 2 else 'BlockFP8_1D'
            twod = False
        else:
            fmt = 'MXFP8'
            twod = bool(q.get('with_2d_quantization', False))
        usage = proto['usage']
        nargs, wg = kernels[kname]
        decls.append(f'TEQ_TILE_KERNEL({kname})')
        shape = ', '.join(str(d) for d in proto['shape'])
        rows.append(
            f'  {{"{entry["name"]}: {proto["text"]}", _mlir_ciface_{kname}, {nargs}, '
            f'{{{", ".join(map(str, wg))}}}, {{{shape}}}, DType::{dtypes[proto["dtype"]]}, '
            f'layout::Format::{fmt}, {"true" if q["fp8_dtype"] == "e5m2" else "false"}, '
            f'{"true" if "rowwise" in usage else "false"}, '
            f'{"true" if "columnwise" in usage else "false"}, '
            f'{"true" if proto.get("scale_layout") == "gemm_swizzled" else "false"}, '
            f'{"true" if q.get("force_pow_2_scales", True) else "false"}, '
            f'{float(q.get("amax_epsilon", 0.0))!r}f, {"true" if twod else "false"}, '
            f'{"true" if any(k.endswith("_zero_rs") for k in launched) else "false"}, '
            f'{"true" if any(k.endswith("_zero_cs") for k in launched) else "false"}}},')
    with open(inc, 'w') as f:
        f.write('// Generated by kernels_to_cpu.py --tiles.\n#ifdef TEQ_TILE_KERNEL\n')
        f.write('\n'.join(decls) + '\n#else\n' + '\n'.join(rows) + '\n#endif\n')


if __name__ == '__main__':
    if sys.argv[1] == '--tiles':
        tiles(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        main(sys.argv[1], sys.argv[2])
