#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Broadcast latency, host vs nic mode, from interleaved runs of examples/bcast.c (medians); a benchmark, not a test.
"""
Usage: python3 tests/multicast/bench_bcast.py [--rounds R] [--sizes 8,65536] [--nodes 2,4,8]
                                              [--iters I] [--configs a,b,...]
Builds nothing: run `scons config=<c>` for each config first.  Each round runs
every (nodes, size, config) cell once, configs interleaved, so load changes hit
all configs alike; the table shows the median of the rounds per cell (us per
broadcast + acks, examples/bcast.c) and the load average before and after.
"""
import argparse
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT = 'multicast_host,multicast,reliable_multicast,reliable_multicast_nic'


def run(cfg, nodes, size, iters):
    b = os.path.join(ROOT, 'build', cfg)
    cmd = [os.path.join(b, 'bin', 'commrun'), '--timeout', '120', '-n', str(nodes),
           os.path.join(b, 'bin', 'bcast'), '-s', '%d:%d' % (size, size), '-i', str(iters),
           '-w', str(max(iters // 10, 2))]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) >= 3 and f[0] == '[0]' and f[1] == str(size):
            return float(f[2])
    raise SystemExit('%s: no result\n%s%s' % (' '.join(cmd), out.stdout, out.stderr))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--sizes', default='8,65536')
    ap.add_argument('--nodes', default='2,4,8')
    ap.add_argument('--iters', type=int, default=1000)
    ap.add_argument('--configs', default=DEFAULT)
    a = ap.parse_args()
    cfgs = a.configs.split(',')
    sizes = [int(s) for s in a.sizes.split(',')]
    nodes = [int(n) for n in a.nodes.split(',')]
    res = {}
    load0 = os.getloadavg()
    for _ in range(a.rounds):
        for n in nodes:
            for s in sizes:
                for c in cfgs:
                    res.setdefault((n, s, c), []).append(run(c, n, s, a.iters))
    load1 = os.getloadavg()
    print('# bcast latency (us, median of %d interleaved rounds; iters %d, fewer above 8 KiB)'
          % (a.rounds, a.iters))
    print('# load average before %.2f %.2f %.2f, after %.2f %.2f %.2f' % (load0 + load1))
    print('%-6s %-8s ' % ('nodes', 'size') + ' '.join('%24s' % c for c in cfgs))
    for n in nodes:
        for s in sizes:
            print('%-6d %-8d ' % (n, s) + ' '.join(
                '%24s' % ('%.1f [%.1f-%.1f]' % (statistics.median(res[(n, s, c)]),
                                               min(res[(n, s, c)]), max(res[(n, s, c)])))
                for c in cfgs))
    return 0


if __name__ == '__main__':
    sys.exit(main())
