#!/usr/bin/env python3
"""Checks that ptxas keeps every max(0, .) applied to a max.f32 tree.

Usage: ptxas_nan_max.py PTX PTXAS ARCH TMPDIR

The block amaxes of the NVFP4 kernels are max(0, max |x_i|), NaN-ignoring
(te-semantics.md 5.5): a block of NaNs (after the RHT, a block with one NaN
input) has amax 0 and scale 0. The |x_i| maxima are max.f32 trees. ptxas
takes `setp.ge.f32 p, r, 0; selp.f32 d, r, 0, p` after such a tree as
always r (a max of |.| is >= 0, NaN forgotten): the amax stays NaN and the
scale becomes 448. This finds, after every tree of three or more max.f32,
the step taking its result r to max(0, r) (max.f32 with 0, or a selp with
0), replaces it by `mov.f32 d, r`, and requires the cubin to change: ptxas
compiled the step into something. One line a step; exit 1 when ptxas
dropped one or none was found.
"""
import re, subprocess, sys, os

def cubin(ptxas, arch, text, path):
    with open(path + '.ptx', 'w') as f:
        f.write(text)
    subprocess.run([ptxas, '-arch=' + arch, '-O3', path + '.ptx', '-o', path + '.cubin'], check=True)
    with open(path + '.cubin', 'rb') as f:
        return f.read()

def main(ptx, ptxas, arch, tmp):
    lines = open(ptx).read().split('\n')
    base = cubin(ptxas, arch, '\n'.join(lines), os.path.join(tmp, 'base'))
    entry = '?'
    checked = dropped = 0
    MAX = re.compile(r'\s*max\.f32\s+(%r\d+), (%r\d+), (%r\d+);')
    for i, line in enumerate(lines):
        m = re.match(r'\.visible \.entry (\w+)\(', line)
        if m:
            entry = m.group(1)
        if not (MAX.match(line) and MAX.match(lines[i - 1]) and MAX.match(lines[i - 2])) or MAX.match(lines[i + 1]):
            continue
        r = MAX.match(line).group(1)
        for j in range(i + 1, min(i + 4, len(lines))):
            z = '0f00000000'
            m = (re.match(r'\s*max\.f32\s+(%r\d+), ' + r + ', ' + z + ';', lines[j]) or
                 re.match(r'\s*max\.f32\s+(%r\d+), ' + z + ', ' + r + ';', lines[j]) or
                 re.match(r'\s*selp\.f32\s+(%r\d+), ' + r + ', ' + z + ', %p\d+;', lines[j]) or
                 re.match(r'\s*selp\.f32\s+(%r\d+), ' + z + ', ' + r + ', %p\d+;', lines[j]))
            if not m:
                continue
            variant = lines[:j] + ['\tmov.f32 \t%s, %s;' % (m.group(1), r)] + lines[j + 1:]
            same = cubin(ptxas, arch, '\n'.join(variant), os.path.join(tmp, 'variant')) == base
            checked += 1
            dropped += same
            print('%s: line %d %s: %s' % (entry, j + 1, lines[j].strip(),
                  'DROPPED by ptxas (NaN becomes the amax)' if same else 'kept'))
            break
    if not checked:
        print('no max(0, .) after a max.f32 tree found')
        return 1
    return 1 if dropped else 0

if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:]))
