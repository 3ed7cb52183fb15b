#!/usr/bin/env python3
"""Per-instruction Ir of one function, from a callgrind run made with --dump-instr=yes.

callgrind_annotate shows costs by source line and lists the lines inlined from a header under
that header's name, so a function's own listing undercounts it; this prints the function's
executed instructions (objdump's disassembly of the program) with their counts per call, the
instructions of every inlined piece included, calls counted as one instruction (the callee's
cost is its own).  Usage:

  commrun -n 2 sh -c 'if [ "$LC_NODE" = 1 ]; then exec valgrind --tool=callgrind \\
      --dump-instr=yes --compress-pos=no --callgrind-out-file=/tmp/cg.1 "$@"; else exec "$@"; fi' sh PROG ARGS
  tools/cg_instr.py /tmp/cg.1 VipPostSend PROG --per 5010 [--min 0.5]
"""
import argparse
import collections
import re
import subprocess
import sys


def records(path):
    """(function, position, Ir) of every self-cost line of a callgrind output file: a call's line
    (the callee's inclusive cost) is left out.  position is the instruction's address with
    --dump-instr=yes --compress-pos=no, else None."""
    cur, skip = None, False
    names = {}
    for line in open(path):
        if line.startswith(('fn=', 'cfn=')):
            v = line.split('=', 1)[1].strip()
            m = re.match(r'\((\d+)\)(?:\s+(.*))?$', v)     # compressed names: (id) name, once
            if m:
                if m.group(2):
                    names[m.group(1)] = m.group(2)
                v = names.get(m.group(1), v)
            if line.startswith('fn='):
                cur, skip = v, False
        elif line.startswith('calls='):
            skip = True         # the next cost line is the call's: the callee's inclusive cost
        elif re.match(r'^(0x[0-9a-f]+|[+-]?\d+|\*)', line):
            if skip:
                skip = False
                continue
            f = line.split()
            if cur is not None and len(f) > 1:
                yield cur, int(f[0], 16) if f[0].startswith('0x') else None, int(f[-1])


def costs(path, fn):
    """{address: Ir} of the instructions of function fn (callgrind's fn= name ending in fn)."""
    out = collections.Counter()
    for cur, pos, ir in records(path):
        if pos is not None and (cur == fn or cur.endswith(':' + fn)):
            out[pos] += ir
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('callgrind_out')
    ap.add_argument('function')
    ap.add_argument('program', help='the program callgrind ran (for its disassembly)')
    ap.add_argument('--per', type=float, default=1.0, help='divide the counts by this (calls)')
    ap.add_argument('--min', type=float, default=0.0, help='list instructions of at least this count')
    a = ap.parse_args(argv)
    c = costs(a.callgrind_out, a.function)
    if not c:
        sys.exit('cg_instr: no instruction of %s in %s (run callgrind with --dump-instr=yes '
                 '--compress-pos=no)' % (a.function, a.callgrind_out))
    dis = subprocess.run(['objdump', '-d', '--no-show-raw-insn', a.program], capture_output=True,
                         text=True, check=True).stdout
    total = 0.0
    for line in dis.splitlines():
        m = re.match(r'^\s*([0-9a-f]+):\s+(.*)$', line)
        if m and int(m.group(1), 16) in c:
            n = c[int(m.group(1), 16)] / a.per
            total += n
            if n >= a.min:
                print('%8.2f  %s  %s' % (n, m.group(1), m.group(2)))
    print('%8.1f  total (instructions of %s, callees not included)' % (total, a.function))


if __name__ == '__main__':
    main(sys.argv[1:])
