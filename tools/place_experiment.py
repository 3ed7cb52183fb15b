#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seed 002's validation, on libcomm: the distributed scheduler under several placements,
measured and modelled side by side.

usage: tools/place_experiment.py [--build build/myrinet2000] [--network SPEC] [--rounds N]
                                 [--tasks N] [--params SET] [--objective phi|link|replay] [--out FILE.md]

examples/sched.c (two masters, two slaves, three priority queues of 2 KiB tasks, seven
nodes) runs once under `commrun --stats` for its traffic matrix; tools/place.py evaluates the
hand-made placements below with the cost model (Phi: no contention; the busiest link; the
replay: the job's requests, answers and streams played out over the timed network, wormhole
waits and all -- the --objective, by default) and suggests the best one it finds; then every placement runs --rounds times, the
placements interleaved in each round (`commrun --map FILE`), and the medians are set beside
the model as seed 002's Table I does: each value as a percentage of the slowest placement.
The ranking must agree and each placement's modelled percentage lie within 10 points of
the measured one; two placements the rounds do not tell apart (neither faster in at least
DISTINCT of the rounds, the placements being interleaved in each) are a tie the model may order
either way, and the table says which pairs were ties; the suggested placement must measure at least as fast as the best
hand-made one (within the spread of the rounds).

After the rounds, each placement runs once more under `commrun --stats`: its switch ports' wait
(frames' heads held for a link) and busy time say where it lost its time, beside the table.

The network is the build's with commrun --network SPEC on top (default: four-port switches,
two levels from four NICs -- a leaf serves three NICs and an uplink to the root -- 10 Mb/s
links and 100 us a switch: slow enough that the network, not the two cores that emulate seven
NICs, sets the pace; the build must be a timed config).  Nodes: 0, 1 masters; 2, 3 slaves; 4, 5,
6 the queues #0, #1, #2.  Slots: leaf 0 holds 0-2, leaf 1 3-5, leaf 2 6 (commrun --routes).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import commstats  # noqa: E402

# slot of node 0..6 (M0 M1 S2 S3 Q0 Q1 Q2); leaves: slots 0-2, 3-5, 6
HAND_MADE = [
    ('a: identity', [0, 1, 2, 3, 4, 5, 6]),
    ('b: masters with queue #0', [0, 1, 3, 4, 2, 5, 6]),
    ('c: slaves with queue #0', [3, 4, 0, 1, 2, 5, 6]),
    ('d: the queues together', [3, 4, 5, 6, 0, 1, 2]),
]
NETWORK = 'switch_ports=4,link_mbps=10,hop_ns=100000'
# a placement measures faster than another when it was faster in at least this share of the rounds
DISTINCT = 0.8
TIME_RE = re.compile(r'sched: (\d+) tasks of (\d+) bytes in ([0-9.]+) ms')


def die(msg):
    sys.stderr.write('place_experiment.py: %s\n' % msg)
    sys.exit(2)


def run(cmd, timeout=600):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if r.returncode != 0:
        die('%s: exit %d: %s' % (' '.join(cmd), r.returncode, (r.stderr or r.stdout).strip()[-400:]))
    return r.stdout


def sched_run(build, network, mapfile, tasks, *opts):
    """The output of sched on 7 nodes under one placement (commrun options opts, e.g. --stats)."""
    return run([os.path.join(build, 'bin', 'commrun'), '-n', '7', '--network', network, '--map', mapfile]
               + list(opts) + [os.path.join(build, 'bin', 'sched'), '-t', str(tasks)])


def sched_time(build, network, mapfile, tasks):
    out = sched_run(build, network, mapfile, tasks)
    m = TIME_RE.search(out)
    if not m:
        die('sched printed no time: %s' % out.strip()[-300:])
    return float(m.group(3))


def port_times(build, network, mapfile, tasks):
    """{port: (to, wait ms, busy ms)} of one run under commrun --stats (commstats' ports table)."""
    ports = commstats.parse(sched_run(build, network, mapfile, tasks, '--stats')).get('ports', {})
    return {k: (v['to'], v.get('wait_ms', 0.0), v.get('busy_ms', 0.0)) for k, v in ports.items()}


def ranking_check(times, model):
    """The pairs of placements the rounds tell apart and how the model orders them.

    times: name -> the run times of the rounds (index r: round r, the placements interleaved in
    it); model: name -> the modelled cost.  Returns (ties, wrong): ties, the pairs (x, y) neither
    of which was faster in DISTINCT of the rounds; wrong, the pairs (faster, slower) the rounds
    tell apart and the model orders the other way (an equal model cost counts as wrong).
    """
    names = sorted(times)
    ties, wrong = [], []
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            n = min(len(times[x]), len(times[y]))
            wins = sum(times[x][r] < times[y][r] for r in range(n))
            losses = sum(times[x][r] > times[y][r] for r in range(n))
            if n and wins >= DISTINCT * n:
                fast, slow = x, y
            elif n and losses >= DISTINCT * n:
                fast, slow = y, x
            else:
                ties.append((x, y))
                continue
            if not model[fast] < model[slow]:
                wrong.append((fast, slow))
    return ties, wrong


def write_map(path, slots, why):
    with open(path, 'w') as f:
        f.write('# %s\n%s\n' % (why, ' '.join(map(str, slots))))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--build', default=os.path.join(ROOT, 'build', 'myrinet2000'))
    ap.add_argument('--network', default=NETWORK, help='commrun --network SPEC (default %s)' % NETWORK)
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--tasks', type=int, default=600)
    ap.add_argument('--params', help='cost model parameter set for place.py (default: the network '
                    'alone)')
    ap.add_argument('--objective', choices=('phi', 'link', 'replay'), default='replay')
    ap.add_argument('--out', help='write the table (markdown) here as well')
    a = ap.parse_args(argv)
    build = os.path.abspath(a.build)
    if not os.access(os.path.join(build, 'bin', 'sched'), os.X_OK):
        die('%s/bin/sched is missing: build the config (scons configs=%s)' % (
            build, os.path.basename(build)))
    with tempfile.TemporaryDirectory() as d:
        stats = os.path.join(d, 'stats.txt')
        with open(stats, 'w') as f:
            f.write(run([os.path.join(build, 'bin', 'commrun'), '-n', '7', '--network', a.network, '--stats',
                         os.path.join(build, 'bin', 'sched'), '-t', str(a.tasks)]))
        maps = []
        for i, (name, slots) in enumerate(HAND_MADE):
            p = os.path.join(d, 'hand%d.map' % i)
            write_map(p, slots, name)
            maps.append((name, p))
        best = os.path.join(d, 'best.map')
        cmd = [sys.executable, os.path.join(HERE, 'place.py'), '--build', build, '--stats', stats,
               '--network', a.network, '--objective', a.objective, '--out', best] + \
            (['--params', a.params] if a.params else [])
        for _, p in maps:
            cmd += ['--map', p]
        model_out = run(cmd)
        model = {}
        for line in model_out.splitlines():
            if line.startswith('#') or line.startswith('placement'):
                continue
            w = line.split()
            # name (may hold spaces) then phi ratio busiest slots...: find the numbers from the end
            nums = [x for x in w if re.match(r'^[0-9.]+$', x)]
            if len(nums) >= 4 + 7:
                slots = tuple(int(x) for x in w[-7:])
                phi, busiest, replay = float(w[-11]), float(w[-9]), float(w[-8])
                model[slots] = (phi, busiest, replay)
        with open(best) as f:
            best_slots = [int(x) for x in f.read().split('\n', 1)[1].split()]
        rows = [(n, s) for n, s in HAND_MADE] + [('suggested (place.py)', best_slots)]
        times = {n: [] for n, _ in rows}
        for r in range(a.rounds):
            for n, s in rows:
                p = os.path.join(d, 'run.map')
                write_map(p, s, n)
                t = sched_time(build, a.network, p, a.tasks)
                times[n].append(t)
                sys.stderr.write('round %d/%d %-28s %8.1f ms\n' % (r + 1, a.rounds, n, t))
        waits = {}
        for n, s in rows:
            p = os.path.join(d, 'run.map')
            write_map(p, s, n)
            waits[n] = port_times(build, a.network, p, a.tasks)
    med = {n: statistics.median(v) for n, v in times.items()}
    slowest = max(med.values())
    key = {'phi': 0, 'link': 1, 'replay': 2}[a.objective]
    kname = {0: 'Phi', 1: 'busiest link', 2: 'replay'}[key]
    mod = {n: model.get(tuple(s)) for n, s in rows}
    if any(v is None for v in mod.values()):
        die('place.py did not evaluate every placement:\n' + model_out)
    top = [max(v[i] for v in mod.values()) for i in (0, 1, 2)]
    pct = lambda n, i: 100.0 * mod[n][i] / top[i]  # noqa: E731
    L = ['| placement | slots of nodes 0-6 | measured ms (median of %d) | spread | %% | model Phi us | %% '
         '| model busiest link us | %% | model replay ms | %% | %s %% - measured %% |' % (a.rounds, kname),
         '|---|---|---|---|---|---|---|---|---|---|---|---|']
    for n, s in rows:
        mp = 100.0 * med[n] / slowest
        L.append('| %s | %s | %.1f | %.1f-%.1f | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f | %.0f | %+.1f |' % (
            n, ' '.join(map(str, s)), med[n], min(times[n]), max(times[n]), mp, mod[n][0],
            pct(n, 0), mod[n][1], pct(n, 1), mod[n][2], pct(n, 2), pct(n, key) - mp))
    hand = [n for n, _ in HAND_MADE]
    order_meas = sorted(hand, key=lambda n: med[n])
    order_mod = sorted(hand, key=lambda n: mod[n][key])
    diffs = [abs(pct(n, key) - 100.0 * med[n] / slowest) for n in hand]
    best_hand = min(med[n] for n in hand)
    ties, wrong = ranking_check({n: times[n] for n in hand}, {n: mod[n][key] for n in hand})
    short = lambda n: n.split(':')[0]  # noqa: E731
    L += ['', '- ranking by %s, measured (medians): %s; modelled: %s (%s)' % (
        kname, ' < '.join(short(n) for n in order_meas),
        ' < '.join(short(n) for n in order_mod),
        'the same' if order_meas == order_mod else 'they differ'),
        '- pairs the rounds tell apart (one faster in at least %d %% of them): %s; ties: %s' % (
            round(100 * DISTINCT),
            'the model orders every one as measured' if not wrong else
            'the model orders %s the other way' % ', '.join('%s < %s' % (short(f), short(s))
                                                            for f, s in wrong),
            ', '.join('%s ~ %s' % (short(x), short(y)) for x, y in ties) or 'none'),
        '- largest difference of the percentages: %.1f points (seed 002: under 10)' % max(diffs),
        '- suggested placement: %.1f ms against the best hand-made %.1f ms (%.3f)' % (
            med['suggested (place.py)'], best_hand, med['suggested (place.py)'] / best_hand),
        '', 'Where each placement waited (one run under commrun --stats): the ports whose heads '
        'waited longest for their link, and the busiest link',
        '', '| placement | heads waited, ms (all ports) | longest waits: port (leads to) wait / busy ms '
        '| busiest link: port, busy ms |', '|---|---|---|---|']
    for n, _ in rows:
        w = waits[n]
        top = sorted(w.items(), key=lambda kv: -kv[1][1])[:3]
        busy = max(w.items(), key=lambda kv: kv[1][2]) if w else ('-', ('', 0.0, 0.0))
        L.append('| %s | %.0f | %s | %s (%s), %.0f |' % (
            n, sum(v[1] for v in w.values()),
            '; '.join('%s (%s) %.0f / %.0f' % (k, v[0], v[1], v[2]) for k, v in top),
            busy[0], busy[1][0], busy[1][2]))
    L += ['', "place.py's output:", '', '```', model_out.strip(), '```']
    text = '\n'.join(L)
    print(text)
    if a.out:
        with open(a.out, 'w') as f:
            f.write(text + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
