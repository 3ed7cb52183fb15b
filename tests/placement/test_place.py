#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools/place.py against commrun's own routes: prints "N passed, M failed" (tools/run_tests.py).

usage: tests/placement/test_place.py BUILD_DIR   (any config: its commrun gives the routes)

20 NICs on 16-port switches make two levels: leaf 0 has slots 0-14, leaf 1 slots 15-19.  Ten
pairs (i, i + 10) exchange most of the traffic; with NIC i in slot i the five pairs of NICs 5-9
cross the root.  Leaf 1 holds five NICs, so the best placement leaves one pair crossing: the
search must find it (each checked through commrun --map FILE --routes, the job's own routes),
and a placement file that is no permutation is refused.  The tables of commrun --stats
(tools/commstats.py) from a real job: the message-size histogram.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PLACE = os.path.join(HERE, '..', '..', 'tools', 'place.py')
sys.path.insert(0, os.path.join(HERE, '..'))
from pychecks import check, finish  # noqa: E402
sys.path.insert(0, os.path.join(HERE, '..', '..', 'tools'))
import commstats  # noqa: E402
import place  # noqa: E402
import place_experiment  # noqa: E402


def crossing(build, mapfile, pairs):
    """Pairs whose route (commrun --routes under mapfile) takes three hops."""
    args = [os.path.join(build, 'bin', 'commrun'), '-n', '20', '--routes']
    if mapfile:
        args[3:3] = ['--map', mapfile]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    hops = {(int(w[0]), int(w[1])): int(w[2]) for w in (l.split() for l in out.splitlines())
            if w and not w[0].startswith('#')}
    return sum(1 for p in pairs if hops[p] == 3)


def stats_tables(build):
    """commrun --stats of a real ping-pong: the message sizes each node sent (one power of two
    per bucket, so each bucket's bytes are its messages times its size), summing to tx_msgs;
    the switch ports table; and a faults table after the traffic matrix is read as faults, not
    as traffic."""
    exe = os.path.join(build, 'bin', 'commrun')
    r = subprocess.run([exe, '--stats', '-n', '2', os.path.join(build, 'bin', 'pingpong'), '-s', '0:4K',
                        '-i', '7', '-w', '0'], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, 'commrun --stats pingpong: exit %d: %s' % (r.returncode, r.stderr[-300:]))
    t = commstats.parse(r.stdout)
    sizes, tx = t.get('sizes', {}), t.get('counters', {}).get('tx_msgs', [])
    # Net-Send counts a first frame each time it puts it on the link: under a protocol that
    # retransmits (exactly_once) a message may count more than once, never less
    with open(os.path.join(build, 'config.json')) as f:
        resends = any('exactly_once' in p.get('provides', []) for p in json.load(f)['active_protocols'])
    same = (lambda a, b: a >= b) if resends else (lambda a, b: a == b)
    for node in (0, 1):
        rows = sizes.get(node, [])
        want = [(0, 0), (1, 1), (2, 2)] + [((1 << (b - 1)) + 1, 1 << b) for b in range(2, 13)]
        check([(lo, hi) for lo, hi, _, _ in rows] == want, 'node %d buckets %s' % (node, rows))
        check(all(same(m, 7) and nb == m * hi for _, hi, m, nb in rows),
              'node %d: 7 messages of each size%s, bytes = messages x size: %s'
              % (node, ' (or more: resent)' if resends else '', rows))
        check(len(tx) > node and same(sum(m for _, _, m, _ in rows), tx[node]),
              'node %d: the histogram sums to tx_msgs %s' % (node, tx))
    # the switch ports: one crossbar, each frame crosses one port (the one to its receiver)
    # (a frame crossed by its sender's Net-Send or pulled by its receiver's)
    ports = t.get('ports', {})
    net = [sum(v) for v in zip(*(t.get('counters', {}).get(k, []) for k in ('net_tx_frames', 'net_pull_frames')))]
    check(sorted(ports) == ['0.0', '0.1'] and ports['0.1']['to'] == 'NIC 1 (node 1)' and
          sum(p['frames'] for p in ports.values()) == sum(net),
          'ports %s, net_tx_frames + net_pull_frames %s' % (ports, net))
    # a timed network's two more columns, and where-it-leads-to text with spaces
    t = commstats.parse('# switch output ports: 2 switches\n'
                        'port  leads to  frames  bytes  stalls  wait ms  busy ms\n'
                        '0.3       root                            1808         1286656           7       514.2      1029.3\n'
                        '1.0       NIC 2 (nodes 4-5)                 12            4096           0         0.0         1.5\n')
    check(t['ports']['0.3'] == dict(to='root', frames=1808, bytes=1286656, stalls=7, wait_ms=514.2,
                                    busy_ms=1029.3) and t['ports']['1.0']['to'] == 'NIC 2 (nodes 4-5)',
          'a timed ports table: %s' % t)
    text = ('# traffic matrix: x\nsrc->dst msgs frames bytes\n0->1 5 6 700\n'
            '# faults injected per link\nlink drop corrupt dup reorder delay\n0->1 2 1 0 0 0\n')
    t = commstats.parse(text)
    check(t['traffic'] == {(0, 1): dict(msgs=5, frames=6, bytes=700)} and t['faults'][(0, 1)]['drop'] == 2,
          'a faults table is not traffic: %s' % t)
    try:
        commstats.parse('# traffic matrix\nsrc->dst msgs frames bytes\n0->1 5 x 700\n')
        check(False, 'a malformed row is refused')
    except commstats.Error as e:
        check(e.args[0] == 3, 'the malformed row is named by its line: %s' % (e.args,))


def replay_cases():
    """tools/place.py's replay against hand-computed times (ns per byte 1, hop 100, header 32)."""
    n, hop, hdr = 5, 100.0, 32
    # a request of 32 bytes and its answer of 2048 over one crossbar, n times in a row
    traffic = {(0, 1): [n, n, n * 32], (1, 0): [n, n, n * 2048]}
    routes = {(0, 1): ['0.1'], (1, 0): ['0.0']}
    req, streams = place.job_shape(traffic)
    check(req == {0: {1: n}} and streams == {}, 'node 0 asks node 1: %s %s' % (req, streams))
    t = place.replay(traffic, routes, (0, 1), 1.0, hop, hdr, 8192)
    want = n * (2 * hop + (32 + hdr) + (2048 + hdr))
    check(t == want, 'request and answer in a row: %g ns, by hand %g' % (t, want))
    # two streams into one port: their frames take turns on it, the second waits a whole frame
    traffic = {(0, 2): [n, n, n * 1000], (1, 2): [n, n, n * 1000]}
    routes = {(0, 2): ['0.2'], (1, 2): ['0.2']}
    req, streams = place.job_shape(traffic)
    check(req == {} and streams == {0: {2: n}, 1: {2: n}}, 'two streams: %s %s' % (req, streams))
    t = place.replay(traffic, routes, (0, 1, 2), 1.0, hop, hdr, 8192)
    want = hop + 2 * n * (1000 + hdr)
    check(t == want, 'two streams through one port: %g ns, by hand %g' % (t, want))
    # wormhole: stream 0 -> 3 crosses ports a, b; stream 1 -> 3 takes b first (sent first at the
    # same time: node 1's event comes after node 0's, so 0's frame reserves b first) ... a
    # frame of 2 -> 4 through a alone then waits behind 0's frame held at b
    traffic = {(0, 3): [1, 1, 968], (1, 3): [1, 1, 968], (2, 4): [1, 1, 968]}
    routes = {(0, 3): ['a', 'b'], (1, 3): ['b'], (2, 4): ['a']}
    t = place.replay(traffic, routes, (0, 1, 2, 3, 4), 1.0, hop, hdr, 8192)
    # 0->3: head at a 100, at b 200, tail 1200, holds a until 1100; 1->3: head at b waits to
    # 1200, tail 2200; 2->4: head at a waits to 1100, tail 2100: the job ends at 2200
    check(t == 2200.0, 'a head waits at a busy port, the frame before holds its route: %g ns' % t)
    # one NIC, two destinations on other ports: its link takes one frame after the other
    traffic = {(0, 1): [1, 1, 968], (0, 2): [1, 1, 968]}
    t = place.replay(traffic, {(0, 1): ['p'], (0, 2): ['q']}, (0, 1, 2), 1.0, hop, hdr, 8192)
    check(t == 2100.0, 'a NIC link carries one frame at a time: %g ns, by hand 2100' % t)
    # a message longer than the MTU is its frames back to back
    traffic = {(0, 1): [1, 3, 2 * 8192 + 100]}
    t = place.replay(traffic, {(0, 1): ['0.1']}, (0, 1), 1.0, hop, hdr, 8192)
    want = hop + 2 * (8192 + hdr) + (100 + hdr)
    check(t == want, 'three frames of one message: %g ns, by hand %g' % (t, want))


def ranking_cases():
    """place_experiment's ranking: pairs the interleaved rounds tell apart must be modelled in order."""
    rc = place_experiment.ranking_check
    # a faster in every round, b and c trading places: b ~ c a tie either order may take
    times = dict(a=[10, 10, 10, 10, 10], b=[20, 21, 20, 21, 20], c=[21, 20, 21, 20, 21])
    check(rc(times, dict(a=1, b=2, c=3)) == ([('b', 'c')], []), 'a tie: %s' % (rc(times, dict(a=1, b=2, c=3)),))
    check(rc(times, dict(a=1, b=3, c=2)) == ([('b', 'c')], []), 'a tie ordered the other way: %s' % (
        rc(times, dict(a=1, b=3, c=2)),))
    check(rc(times, dict(a=3, b=1, c=2)) == ([('b', 'c')], [('a', 'b'), ('a', 'c')]),
          'a modelled slower than b and c it beat in every round: %s' % (rc(times, dict(a=3, b=1, c=2)),))
    # 4 of 5 rounds is DISTINCT (80 %): told apart; 3 of 5 is not; an equal model cost is no order
    times = dict(a=[1, 1, 1, 1, 9], b=[2, 2, 2, 2, 2])
    check(rc(times, dict(a=2, b=1)) == ([], [('a', 'b')]), '4 of 5 rounds tell them apart')
    check(rc(times, dict(a=1, b=1)) == ([], [('a', 'b')]), 'an equal model cost orders nothing')
    times = dict(a=[1, 1, 1, 9, 9], b=[2, 2, 2, 2, 2])
    check(rc(times, dict(a=2, b=1)) == ([('a', 'b')], []), '3 of 5 rounds are a tie')


def main():
    build = os.path.abspath(sys.argv[1])
    stats_tables(build)
    replay_cases()
    ranking_cases()
    pairs = [(i, i + 10) for i in range(10)]
    with tempfile.TemporaryDirectory() as d:
        stats, best = os.path.join(d, 'stats.txt'), os.path.join(d, 'best.map')
        with open(stats, 'w') as f:
            f.write('# traffic matrix: what each node\'s NIC put on the link to each\n')
            f.write('src->dst              msgs          frames           bytes\n')
            for s, t in pairs:
                f.write('%d->%d  1000  1000  2048000\n' % (s, t))
                f.write('%d->%d  1000  1000  2048000\n' % (t, s))
            for s in range(20):  # a little traffic everywhere else
                f.write('%d->%d  1  1  64\n' % (s, (s + 1) % 20))
        cmd = [sys.executable, PLACE, '--build', build, '--stats', stats, '--link-mbps', '2000',
               '--hop-ns', '500', '--out', best]
        r = subprocess.run(cmd, capture_output=True, text=True)
        check(r.returncode == 0, 'place.py exit %d: %s' % (r.returncode, r.stderr))
        rows = {l[:24].strip(): l.split() for l in r.stdout.splitlines() if not l.startswith('#')}
        check('identity' in rows and 'best found' in rows, 'rows: %s' % r.stdout)
        if 'identity' in rows and 'best found' in rows:
            ratio = float(rows['best found'][3])
            check(ratio < 1.0, 'best found costs %.3f of the identity' % ratio)
        check(crossing(build, None, pairs) == 5, 'the identity crosses the root with five pairs')
        if os.path.exists(best):
            n = crossing(build, best, pairs)
            check(n == 1, 'the best placement leaves %d pairs crossing, the least is 1' % n)
        bad = os.path.join(d, 'bad.map')
        with open(bad, 'w') as f:
            f.write(' '.join(['0'] * 20) + '\n')
        r = subprocess.run(cmd + ['--map', bad], capture_output=True, text=True)
        check(r.returncode == 2 and 'not a permutation' in r.stderr, 'a bad map: %s' % r.stderr)
    return finish()


if __name__ == '__main__':
    sys.exit(main())
