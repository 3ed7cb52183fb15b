#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Root's callgrind instructions per broadcast, host vs nic mode (examples/bcast.c, root under callgrind only).
"""
Usage: python3 tests/multicast/cg_bcast.py [--nodes 2,4,8] [--size 8] [--configs a,b,...]
For each config and node count the root (node 0) runs under callgrind, the
other nodes natively.  Two regions, each collected with --toggle-collect:
  host  lc_bcast (the call: pipeline, hooks, stamps, kept copies) less the
        MCP steps taken inside it (lc_nic_assist, under lc_nic_step: with the MCP
        inline the host's progress calls run the NIC's engines; their cost
        is the NIC's, counted below);
  mcp   lc_nic_net_send_step (Net-Send of the root's NIC for the whole run:
        in nic mode the copies, stamps and CRCs; in both modes the frames it
        puts on links, including the members' acks' answers).
Each is measured at two iteration counts and the difference is divided by the
extra broadcasts, so setup and teardown cancel out.  Deterministic up to a
few polls (the numbers move by well under 1 %).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT = 'multicast_host,multicast,reliable_multicast,reliable_multicast_nic'
WRAP = ('if [ "$LC_NODE" = 0 ]; then exec valgrind --tool=callgrind -q '
        '--callgrind-out-file="$CG_OUT" --toggle-collect="$CG_FN" "$@"; else exec "$@"; fi')


def ir(cfg, nodes, size, iters, fn, tmp):
    b = os.path.join(ROOT, 'build', cfg)
    out = os.path.join(tmp, 'cg.%s.%d.%s.%d' % (cfg, nodes, fn, iters))
    env = dict(os.environ, CG_OUT=out, CG_FN=fn)
    cmd = [os.path.join(b, 'bin', 'commrun'), '--timeout', '300', '-n', str(nodes), '/bin/sh', '-c',
           WRAP, 'sh', os.path.join(b, 'bin', 'bcast'), '-s', '%d:%d' % (size, size),
           '-i', str(iters), '-w', '0']
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=400, env=env)
    if p.returncode != 0:
        raise SystemExit('%s: exit %d\n%s%s' % (' '.join(cmd), p.returncode, p.stdout, p.stderr))
    text = open(out).read()
    m = re.search(r'^totals:\s+(\d+)', text, re.M) or re.search(r'^summary:\s+(\d+)', text, re.M)
    total = int(m.group(1))
    if fn != 'lc_bcast':
        return total
    ann = subprocess.run(['callgrind_annotate', '--inclusive=yes', '--threshold=100', out],
                         capture_output=True, text=True).stdout
    # lc_nic_step calls lc_nic_assist, which runs the engines: subtract the latter once
    m = re.search(r'^\s*([\d,]+) \([^)]*\)\s+\S*:lc_nic_assist \[', ann, re.M)
    if m:
        total -= int(m.group(1).replace(',', ''))
    return total


def scaled(iters, size):
    """Timed iterations examples/bcast.c runs for -i iters at this size (fewer above 8 KiB)."""
    return iters if size <= 8192 else max(10, iters * 8192 // size)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--nodes', default='2,4,8')
    ap.add_argument('--size', type=int, default=8)
    ap.add_argument('--iters', default='50,150')
    ap.add_argument('--configs', default=DEFAULT)
    a = ap.parse_args()
    i1, i2 = (int(x) for x in a.iters.split(','))
    d = scaled(i2, a.size) - scaled(i1, a.size)
    if d <= 0:
        raise SystemExit('--iters %s: the same count at %d B (bcast.c scales above 8 KiB)' % (a.iters, a.size))
    cfgs = a.configs.split(',')
    print('# root Ir per broadcast of %d B (callgrind, (Ir@%d - Ir@%d) / %d); host = lc_bcast, '
          'mcp = lc_nic_net_send_step' % (a.size, i2, i1, d))
    print('%-6s ' % 'nodes' + ' '.join('%30s' % c for c in cfgs))
    with tempfile.TemporaryDirectory(prefix='cgb.') as tmp:
        for n in (int(x) for x in a.nodes.split(',')):
            cells = []
            for c in cfgs:
                v = {}
                for fn in ('lc_bcast', 'lc_nic_net_send_step'):
                    v[fn] = (ir(c, n, a.size, i2, fn, tmp) - ir(c, n, a.size, i1, fn, tmp)) / d
                cells.append('host %7.0f mcp %7.0f' % (v['lc_bcast'], v['lc_nic_net_send_step']))
            print('%-6d ' % n + ' '.join('%30s' % x for x in cells))
            sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())
