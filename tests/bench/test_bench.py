#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The benchmark driver's own checks: prints "N passed, M failed" (tools/run_tests.py).

usage: tests/bench/test_bench.py BUILD_DIR   (any config: its commrun runs the jobs)

The report's placement groups (benchlib.placements, report.placement_lines) on rounds made up here,
and on runs whose placement was probed (benchlib.attach_places: placement.csv beside results.csv).

A failed cell's reason (tools/bench/run.py failure_text, through run_sweep on a real commrun job):
every node's last line of its own and commrun's first lines, so that the node that died first is
named beside the peer that saw it die.
"""
import csv
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
sys.path.insert(0, os.path.join(ROOT, 'tools', 'bench'))
import run  # noqa: E402
import benchlib as bl  # noqa: E402
import report  # noqa: E402
sys.path.insert(0, os.path.join(HERE, '..'))
from pychecks import check, finish, skip  # noqa: E402


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    commrun = os.path.join(argv[0], 'bin', 'commrun')
    if not os.access(commrun, os.X_OK):
        skip('%s is not built' % commrun)
        return finish()
    # node 1 dies at once; node 0 notices a while later, says so and fails in turn
    job = ('if [ "$LC_NODE" = 1 ]; then echo "node one starts" >&2; kill -9 $$; fi; '
           'echo "# Size  Latency (us)"; echo "8 1.5"; sleep 0.3; '
           'echo "wait: peer node died or stopped answering" >&2; exit 1')
    got, err = run.run_sweep([commrun, '-n', '2', 'sh', '-c', job], [8, 16], 1, 30, lambda s: None)
    check(got == {8: 1.5}, 'the figure printed before the failure is kept: %r' % got)
    check(err and err.startswith('exit status 137: '),
          "commrun's status, node 1 killed (128 + 9): %r" % err)
    check(err and '[0] wait: peer node died' in err, "the survivor's own last line: %r" % err)
    check(err and '[1] node one starts' in err, "the dead node's own last line: %r" % err)
    check(err and 'node 1 died: signal 9' in err, 'commrun names the node that died: %r' % err)
    at = [(err or '').find(k) for k in ('[0]', '[1]', 'commrun:')]
    check(min(at) >= 0 and at == sorted(at), 'nodes in order, then commrun: %r' % err)
    # the text alone: valgrind's lines and blank lines left out, commrun's first lines kept
    lines = ['==123== Memcheck', '', '[2] two', 'plain'] + \
        ['commrun: line %d' % i for i in range(run.FAILURE_LAUNCHER_LINES + 2)]
    t = run.failure_text(3, lines)
    check(t == 'exit status 3: plain | [2] two | ' +
          ' | '.join('commrun: line %d' % i for i in range(run.FAILURE_LAUNCHER_LINES)),
          'failure_text: %r' % t)
    check(run.failure_text(1, []) == 'exit status 1: no message', 'no stderr at all')
    placement_checks()
    probe_checks()
    loop_checks()
    return finish()


def loop_checks():
    """Every latency series runs osu_latency's small-message loop, the same one: their ratios
    (VIPL or MPI over native, native over Open MPI) compare like with like."""
    check(bl.LAT_FULL == ['-i', '10000', '-w', '100'], 'LAT_LOOP_SMALL after LAT_SKIP_SMALL: %r'
          % bl.LAT_FULL)
    pp = [b for b in bl.BENCHMARKS if b['name'] == 'pingpong']
    check(len(pp) == 1 and pp[0]['full'] == bl.LAT_FULL, 'the native ping-pong: %r' % pp)
    for r in bl.PERSONALITY_BENCH:
        if r['bench'] == 'pingpong':
            a = r['args'](1, 8, False)
            same = a[-1] == str(bl.LAT_ITERS) if r['p'] == 'csn' else \
                ' '.join(bl.LAT_FULL) in ' '.join(a)
            check(same, '%s ping-pong runs the native loop: %r' % (r['series'], a))


def rows_of(shm, ratio):
    """Rounds 1.. with the shm floor shm[i] (us) and `baseline` msgrate ratio[i] x Open MPI's."""
    out = []
    for i, (f, q) in enumerate(zip(shm, ratio), 1):
        for cfg, bench, v in (('shm', 'pingpong', f), ('openmpi', 'msgrate', 10e6),
                              ('baseline', 'msgrate', 10e6 * q)):
            out.append(dict(config=cfg, benchmark=bench, size=8, round=i, value=v, unit='', status='ok'))
    return out


def placement_checks():
    rate = [t for t in report.TARGETS if t[3] == 'msgrate' and t[1] == 'baseline']
    # two groups 3.5x apart, the rounds interleaved: each judged on its own rounds
    rows = rows_of([0.07, 0.30, 0.08, 0.28, 0.07, 0.35], [1.2, 0.9, 1.2, 0.9, 1.2, 0.9])
    place, bounds, how = bl.placements(rows)
    classes = {r['round']: place(r) for r in rows}
    check(classes == {1: 'fast', 2: 'slow', 3: 'fast', 4: 'slow', 5: 'fast', 6: 'slow'} and how == 'rounds',
          'placements: %r %r' % (classes, how))
    check(bounds == (0.08, 0.28), 'the groups\' bounds: %r' % (bounds,))
    L = report.placement_lines(rows, rate)
    row = [x for x in L if x.startswith('| `baseline` 8 B message rate')]
    check(len(row) == 1 and 'met: 1.200× (8 B), IQR 1.200–1.200 (3 rounds)' in row[0] and
          'not met: 0.900× (8 B), IQR 0.900–0.900 (3 rounds)' in row[0] and
          row[0].index('met: 1.200') < row[0].index('not met: 0.900'),
          'fast then slow, each its own verdict: %r' % row)
    check(any('3 round(s) at 0.080 us or less' in x and '3 at 0.280 us or more' in x for x in L),
          'the groups named with their bounds: %r' % L[:1])
    # targets no round measured (the large ones in a small run): no table
    check(report.placement_lines(rows, report.LARGE_TARGETS) == [],
          'no table of targets measured in neither placement')
    check(len([x for x in report.placement_lines(rows, rate + report.LARGE_TARGETS)
               if x.startswith('| `')]) == 1, 'only the measured target\'s row')
    # one group (the largest gap 1.29x): no split, nothing added to the report
    rows = rows_of([0.07, 0.09, 0.08, 0.075], [1.2, 0.9, 1.1, 1.0])
    check(bl.placements(rows) == (None, None, None), 'one placement: %r' % (bl.placements(rows),))
    check(report.placement_lines(rows, rate) == [], 'one placement: no table')
    check(bl.placements(rows_of([0.07], [1.0])) == (None, None, None), 'one round: no groups')
    # one disturbed round far off is no placement: the split is the real one, or none
    place, bounds, how = bl.placements(rows_of([6.31, 0.23, 0.08, 0.25, 0.068, 0.26, 0.46],
                                               [1.0] * 7))
    check(bounds == (0.08, 0.23) and place({'round': 1}) == 'slow' and place({'round': 3}) == 'fast',
          'a lone round at 6.31 us left in the slow group: %r' % (bounds,))
    check(bl.placements(rows_of([0.07, 0.08, 0.075, 0.09, 6.31], [1.0] * 5)) == (None, None, None),
          'a lone round far off, the rest one group: no split')
    # the verdict of a median whose interquartile range spans the bound is marked unsettled
    rows = rows_of([0.07] * 5, [0.95, 1.05, 1.02, 0.98, 1.01])
    t = report.target_rows(rows, rate)[0]
    check(t['verdict'] == 'met' + report.SPANS, 'a median of 1.01x, IQR 0.98-1.02: %r' % t['verdict'])
    rows = rows_of([0.07] * 5, [0.95, 1.02, 0.97, 0.98, 1.01])
    t = report.target_rows(rows, rate)[0]
    check(t['verdict'] == 'not met' + report.SPANS, 'a median of 0.98x, IQR 0.97-1.01: %r' % t['verdict'])
    rows = rows_of([0.07] * 5, [1.1, 1.2, 1.15, 1.05, 1.3])
    check(report.target_rows(rows, rate)[0]['verdict'] == 'met', 'IQR 1.10-1.20 clear of the bound')
    check(report.le_verdict(None, 1.1) == 'n/a' and
          report.le_verdict(bl.summarise([1.0, 1.05, 1.08, 1.2]), 1.1) == 'met' + report.SPANS and
          report.le_verdict(bl.summarise([1.0, 1.05, 1.08]), 1.1) == 'met',
          'le_verdict: a median of 1.065x, IQR 1.04-1.11, and one clear of the bound')


def probed(rows, probes):
    """rows as load_csv returns them beside a placement.csv of probes {(round, config): (before,
    after)} (every benchmark of the rows: msgrate), read back through bl.load_csv."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, 'results.csv'), 'w', newline='') as f:
            w = csv.DictWriter(f, fieldnames=['config', 'benchmark', 'size', 'round', 'value', 'unit',
                                              'status'])
            w.writeheader()
            w.writerows(rows)
        with open(os.path.join(d, bl.PLACE_CSV), 'w', newline='') as f:
            w = csv.DictWriter(f, fieldnames=bl.PLACE_COLUMNS)
            w.writeheader()
            for (rnd, cfg), (a, b) in probes.items():
                w.writerow(dict(round=rnd, config=cfg, benchmark='msgrate', before=a, after=b))
        return bl.load_csv(os.path.join(d, 'results.csv'))


def probe_checks():
    """Each run in its own placement: a per-round ratio pairs two runs of one placement only."""
    rate = [t for t in report.TARGETS if t[3] == 'msgrate' and t[1] == 'baseline']
    fast, slow = (0.05, 0.06), (0.30, 0.32)
    # six rounds, the shm floor's round-level figure fast in all: the probes tell the runs apart
    rows = [r for r in rows_of([0.07] * 6, [1.2, 1.2, 0.9, 0.4, 2.5, 1.2]) if r['config'] != 'shm']
    got = probed(rows, {(1, 'baseline'): fast, (1, 'openmpi'): fast,
                        (2, 'baseline'): fast, (2, 'openmpi'): fast,
                        (3, 'baseline'): slow, (3, 'openmpi'): slow,
                        (4, 'baseline'): slow, (4, 'openmpi'): fast,      # moved between the runs
                        (5, 'baseline'): (0.05, 0.31), (5, 'openmpi'): fast,  # moved during one
                        (6, 'baseline'): fast, (6, 'openmpi'): ('', '')})  # a probe failed: not known
    places = {(r['round'], r['config']): r.get('place') for r in got}
    check(places[(1, 'baseline')] == 'fast' and places[(3, 'openmpi')] == 'slow' and
          places[(5, 'baseline')] == 'mixed' and places[(6, 'openmpi')] is None,
          'each run\'s placement from its two probes: %r' % places)
    r = bl.round_ratios(got, 'baseline', 'openmpi', 'msgrate', 8)
    check(r == [1.2, 1.2, 0.9, 1.2], 'rounds 4 (runs in two placements) and 5 (a run moved) left out, '
          '6 (one run not known) kept: %r' % r)
    check(bl.unpaired_rounds(got, 'baseline', 'openmpi', 'msgrate', 8) == [4, 5],
          'the rounds left out, named (check_outputs: a one-round run may have no ratio): %r'
          % bl.unpaired_rounds(got, 'baseline', 'openmpi', 'msgrate', 8))
    place, bounds, how = bl.placements(got)
    check(how == 'runs' and bounds == (0.06, 0.30), 'grouped by the probes: %r %r' % (how, bounds))
    L = report.placement_lines(got, rate)
    row = [x for x in L if x.startswith('| `baseline` 8 B message rate')]
    check(len(row) == 1 and 'met: 1.200× (8 B), IQR 1.200–1.200 (2 rounds)' in row[0] and
          'not met: 0.900× (8 B), IQR 0.900–0.900 (1 rounds)' in row[0],
          'fast: rounds 1-2, slow: round 3 (4 and 5 in neither): %r' % row)
    check(any('probed just before and just after' in x and '1 run(s) began in one' in x for x in L),
          'the runs the host moved are counted: %r' % L[:1])
    # 400 runs in two placements and one probe between them, by itself (the host moved the
    # vCPUs while it ran): the gap is the two placements', the run of that probe in neither
    many = [dict(r, round=k) for k in range(1, 201) for r in rows[:2]]
    probes = {(k, c): (0.035 + k % 7 * 0.005, 0.036) if k % 2 else (0.2 + k % 9 * 0.015, 0.21)
              for k in range(1, 201) for c in ('baseline', 'openmpi')}
    probes[(7, 'baseline')] = (0.12, 0.036)
    got = probed(many, probes)
    place, bounds, how = bl.placements(got)
    places = {(r['round'], r['config']): r.get('place') for r in got}
    check(bounds == (0.065, 0.2) and places[(7, 'baseline')] == 'mixed' and
          places[(7, 'openmpi')] == 'fast' and places[(8, 'baseline')] == 'slow',
          'a lone probe at 0.12 us between 0.035-0.065 and 0.2-0.32: %r %r' % (bounds, places[(7, 'baseline')]))
    check(bl.lone_values(sorted([x for p in probes.values() for x in p])) == {0.12},
          'the lone probe: %r' % bl.lone_values(sorted([x for p in probes.values() for x in p])))
    # the probes in one group: every pair is of one placement, no table
    got = probed(rows[:4], {(1, 'baseline'): fast, (1, 'openmpi'): fast,
                            (2, 'baseline'): (0.06, 0.07), (2, 'openmpi'): fast})
    check(bl.placements(got) == (None, None, None) and
          bl.round_ratios(got, 'baseline', 'openmpi', 'msgrate', 8) == [1.2, 1.2],
          'probes of one placement: both rounds, no groups')


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
