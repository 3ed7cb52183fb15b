#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where the wall time of every process of a command goes, by function (or source line).

usage: tools/pcprof/pcprof.py [--us N] [--top K] [--lines] [--keep DIR] -- COMMAND [ARGS...]

COMMAND runs with tools/pcprof/pcprof.c preloaded (built into build/tools/pcprof.so when it is
missing or older than its source): every N microseconds of wall time (default 500) each process
records the address it was interrupted at, weighed by the ticks it stands for (a process that
waited for a CPU is charged where it was descheduled), and writes its samples at exit.  Then,
per process that wrote any (a process that ends by _exit or a signal writes none), the functions
(--lines: source lines) that took the most ticks, as shares of the process's ticks -- a spin or a
stall on a cache line counts where it happens, which callgrind's instruction counts cannot show
and perf's counters (not available on this machine kind) would.  Addresses of the command's own
executables and shared objects are named by addr2line; others by their object's file name.

Example (the 8 B message rate; the sender is the node with the most samples in lc_isend's path):

    tools/pcprof/pcprof.py -- build/baseline/bin/commrun --bind core -n 2 \\
        build/baseline/bin/msgrate -s 8:8 -i 200000 -w 100

The command's own output passes through; the report follows on stdout.  Exit status: the
command's.
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
SRC = os.path.join(HERE, 'pcprof.c')
LIB = os.path.join(ROOT, 'build', 'tools', 'pcprof.so')


def build():
    """build/tools/pcprof.so, compiled when missing or older than pcprof.c."""
    if os.path.exists(LIB) and os.path.getmtime(LIB) >= os.path.getmtime(SRC):
        return LIB
    os.makedirs(os.path.dirname(LIB), exist_ok=True)
    subprocess.run(['gcc', '-std=c11', '-Wall', '-Wextra', '-Werror', '-O2', '-shared', '-fPIC',
                    '-o', LIB, SRC], check=True)
    return LIB


def read_samples(path):
    """(maps [(lo, hi, file offset, path)], [(pc, weight)]) of one process's sample file: a
    sample's weight counts the ticks that passed while the process waited to run."""
    maps, pcs = [], []
    with open(path) as f:
        for line in f:
            if line.startswith('# '):
                p = line[2:].split()
                if len(p) >= 6:
                    lo, hi = (int(x, 16) for x in p[0].split('-'))
                    maps.append((lo, hi, int(p[2], 16), p[5]))
            elif line.strip():
                pc, w = line.split()
                pcs.append((int(pc, 16), int(w)))
    return maps, pcs


def attribute(maps, pcs, lines):
    """Counter {name: ticks}: each pc named in its object (addr2line), or by the object's name."""
    where = collections.Counter()
    by_obj = collections.defaultdict(collections.Counter)
    for pc, w in pcs:
        for lo, hi, off, path in maps:
            if lo <= pc < hi:
                by_obj[path][pc - lo + off] += w
                break
        else:
            where['?'] += w
    for path, offs in by_obj.items():
        name = os.path.basename(path)
        if not path.startswith('/') or not os.path.exists(path):
            where[name] += sum(offs.values())
            continue
        addrs = sorted(offs)
        out = subprocess.run(['addr2line', '-f', '-C', '-e', path] + ['%x' % a for a in addrs],
                             capture_output=True, text=True).stdout.split('\n')
        for i, a in enumerate(addrs):
            fn = out[2 * i] if 2 * i < len(out) else '??'
            loc = out[2 * i + 1] if 2 * i + 1 < len(out) else '??'
            if fn == '??':
                key = name
            elif lines:
                key = '%s %s' % (fn, os.path.basename(loc.split(' ')[0]))
            else:
                key = fn
            where[key] += offs[a]
    return where


def report(pid, exe, where, top):
    """The lines of one process's report."""
    n = sum(where.values())
    out = ['pcprof: pid %s (%s): %d ticks' % (pid, exe, n)]
    for k, v in where.most_common(top):
        out.append('  %5.1f%% %s' % (100.0 * v / n, k))
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--us', type=int, default=500, help='microseconds between samples (default 500)')
    ap.add_argument('--top', type=int, default=15, help='rows per process (default 15)')
    ap.add_argument('--lines', action='store_true', help='by source line, not by function')
    ap.add_argument('--keep', help='write the sample files here (kept) instead of a temporary folder')
    ap.add_argument('command', nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    cmd = a.command[1:] if a.command[:1] == ['--'] else a.command
    if not cmd:
        ap.error('no command')
    if not 1 <= a.us < 1000000:
        ap.error('--us %d: not in 1..999999' % a.us)
    lib = build()
    with tempfile.TemporaryDirectory(prefix='pcprof.') as tmp:
        d = a.keep or tmp
        os.makedirs(d, exist_ok=True)
        env = dict(os.environ, PCPROF_US=str(a.us), PCPROF_DIR=os.path.abspath(d),
                   LD_PRELOAD=(lib + ' ' + os.environ.get('LD_PRELOAD', '')).strip())
        rc = subprocess.run(cmd, env=env).returncode
        sys.stdout.flush()
        rows = []
        for f in sorted(os.listdir(d)):
            if not f.startswith('s.'):
                continue
            maps, pcs = read_samples(os.path.join(d, f))
            if not pcs:
                continue
            exe = next((m[3] for m in maps if m[2] == 0 and m[3].startswith('/')), '?')
            rows.append((sum(w for _, w in pcs), f[2:], os.path.basename(exe),
                         attribute(maps, pcs, a.lines)))
        for n, pid, exe, where in sorted(rows, key=lambda r: -r[0]):
            print('\n'.join(report(pid, exe, where, a.top)))
        if not rows:
            print('pcprof: no process wrote samples (each must load the sampler and exit normally)')
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
