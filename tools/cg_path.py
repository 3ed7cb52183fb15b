#!/usr/bin/env python3
"""Instructions of one node's turn in a ping-pong: callgrind counts only between the path marks.

A build made with `scons mode=marks config=CFG` (build/CFG-marks) carries the marks of
nic/lc_marks.h: collection starts when a wait or test sees its request complete and stops when
the node's next frame is published into the peer's Receive Ring.  In a ping-pong that is the
critical path of one turn on the measured node: the receive's completion, the program's and a
personality's work, the reply's send down to the wire.  The program runs twice, with two
iteration counts, under commrun with callgrind on one node only; the difference of the two runs
divided by the difference of the counts is the turn's cost with start-up, warm-up and the end
cancelled out.  With --half rx it counts the other half of a one-way message instead: from the
moment Net-Recv sees the frame published in the node's Receive Ring to the wait's completion.
Prints the Ir per turn and the functions that make it up (self cost, inlined code counted where
gcc put it).  Usage:

  scons -Q mode=marks config-baseline
  tools/cg_path.py --build build/baseline-marks -- PROG -s 8:8 -i {iters} -w 10

PROG is a path (build/baseline-marks/bin/pingpong, build/baseline-marks/examples/vipl/...);
{iters} in the arguments takes each iteration count in turn.
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cg_instr import records  # noqa: E402

# the callgrind run on the measured node only (the peer runs at full speed) ...
NODE_SH = ('if [ "$LC_NODE" = "$CG_NODE" ]; then exec valgrind --tool=callgrind -q '
           '--collect-atstart=no --callgrind-out-file="$CG_OUT" "$@"; else exec "$@"; fi')
# ... or on every node (--both), each its own file; the measured node's is read
BOTH_SH = ('exec valgrind --tool=callgrind -q --collect-atstart=no '
           '--callgrind-out-file="$CG_OUT.$LC_NODE" "$@"')


def run(build, node, prog, iters, out, half='tx', both=False):
    """Self Ir per function of one run with iters iterations."""
    args = [a.replace('{iters}', str(iters)) for a in prog]
    env = dict(os.environ, CG_NODE=str(node), CG_OUT=out, LC_PATH_HALF=half)
    cmd = [os.path.join(build, 'bin', 'commrun'), '-n', '2', 'sh', '-c',
           BOTH_SH if both else NODE_SH, 'sh'] + args
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        sys.exit('cg_path: %s failed (%d):\n%s%s' % (' '.join(cmd), r.returncode, r.stdout, r.stderr))
    per = collections.Counter()
    for fn, _, ir in records('%s.%d' % (out, node) if both else out):
        per[fn.split(':')[-1]] += ir
    return per


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog='\n'.join(__doc__.splitlines()[1:]))
    ap.add_argument('--build', required=True, help='a mode=marks build directory')
    ap.add_argument('--node', type=int, default=1, help='the node measured (default 1)')
    ap.add_argument('--iters', default='1000,3000', help='the two iteration counts')
    ap.add_argument('--top', type=int, default=20, help='functions listed')
    ap.add_argument('--half', choices=('tx', 'rx'), default='tx',
                    help='tx: a turn, completion to the reply on the wire (default); '
                         'rx: the receive, Net-Recv seeing the frame to the wait\'s completion')
    ap.add_argument('--both', action='store_true',
                    help='callgrind on both nodes, slowed alike: each waits for the other as it '
                         'does natively (with one node under callgrind the slowed one never '
                         'waits, and its receive half counts what a native one does not: a '
                         'protocol\'s clock reads and timer scans, a message that lands before '
                         'its receive is posted)')
    ap.add_argument('prog', nargs=argparse.REMAINDER, help='-- PROG ARGS with {iters}')
    a = ap.parse_args(argv)
    prog = a.prog[1:] if a.prog[:1] == ['--'] else a.prog
    if not prog or not any('{iters}' in p for p in prog):
        ap.error('give the program after --, with {iters} in its arguments')
    if not os.path.exists(os.path.join(a.build, 'config.json')) or '-marks' not in a.build:
        ap.error('%s is not a mode=marks build (scons mode=marks config=CFG)' % a.build)
    lo, hi = (int(x) for x in a.iters.split(','))
    with tempfile.TemporaryDirectory() as tmp:
        c_lo = run(a.build, a.node, prog, lo, os.path.join(tmp, 'lo'), a.half, a.both)
        c_hi = run(a.build, a.node, prog, hi, os.path.join(tmp, 'hi'), a.half, a.both)
    n = hi - lo
    diff = {f: (c_hi[f] - c_lo[f]) / n for f in set(c_hi) | set(c_lo)}
    total = sum(diff.values())
    if total <= 0:
        sys.exit('cg_path: nothing counted between the marks: is %s built with mode=marks?' % prog[0])
    print('%.0f Ir per %s on node %d (%s, runs of %d and %d iterations)'
          % (total, 'turn' if a.half == 'tx' else 'receive', a.node, os.path.basename(prog[0]), lo, hi))
    for f, v in sorted(diff.items(), key=lambda kv: -kv[1])[:a.top]:
        if v >= 0.5:
            print('%8.1f  %s' % (v, f))


if __name__ == '__main__':
    main(sys.argv[1:])
