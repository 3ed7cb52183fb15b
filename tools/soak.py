#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The soak: the run-time switching test under faults over many fault seeds (scons soak).

usage: tools/soak.py --build CFG=BUILD_DIR [--build ...] [--seeds A-B] [--jobs N] [--timeout S]

`scons test` runs tests/active_net's switching test under faults with one seed; what a seed
meets depends on which frames the injector damages, and two bugs of that kind (a damaged
unchecked frame losing a checked message, and one parked for good) showed in about 1 run of
100 and 3 of 370.  The soak runs, for every seed of --seeds and every config that composes active_net
with reliability,
    commrun --show-job --stats --timeout S --faults drop=0.03,corrupt=0.01,dup=0.01,reorder=0.02,seed=N
            -n 2 tests/progs/actswitch 2000 50
(--jobs at a time) and fails a run that exits non-zero (a failed check, a hang that commrun's
--timeout killed), prints no result line of each node, or leaves its job segment behind.  A
config without both protocols is skipped, with the reason.  Prints each failure's seed and
tail, then "N passed, M failed, K skipped".
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

FAULTS = 'drop=0.03,corrupt=0.01,dup=0.01,reorder=0.02,seed=%d'
RESULT = re.compile(r'actswitch node (\d): (\d+) of (\d+) \(reliable (\d+) of (\d+)\)')
JOB = re.compile(r'commrun: job (/\S+)')


def protocols(bdir):
    with open(os.path.join(bdir, 'config.json')) as f:
        return {p['name'] if isinstance(p, dict) else p for p in json.load(f)['active_protocols']}


def one(bdir, seed, timeout):
    """None when the run passed, else why it failed (with its output's tail)."""
    cmd = [os.path.join(bdir, 'bin', 'commrun'), '--show-job', '--stats', '--timeout', str(timeout),
           '--faults', FAULTS % seed, '-n', '2', os.path.join(bdir, 'tests', 'progs', 'actswitch'),
           '2000', '50']
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 60)
    except subprocess.TimeoutExpired:
        return 'commrun did not end within %d s' % (timeout + 60)
    out = r.stdout + r.stderr
    job = JOB.search(out)
    nodes = {int(m.group(1)) for m in RESULT.finditer(out) if m.group(4) == m.group(5)}
    why = []
    if r.returncode != 0:
        why.append('exit %d' % r.returncode)
    if nodes != {0, 1}:
        why.append('result lines with every reliable message of nodes %s, not 0 and 1' % sorted(nodes))
    if job and os.path.exists('/dev/shm' + job.group(1)):
        why.append('segment /dev/shm%s left behind' % job.group(1))
    if not why:
        return None
    tail = [l for l in out.splitlines() if 'FAIL' in l or 'commrun: timeout' in l][-6:]
    return '; '.join(why) + ('\n    | ' + '\n    | '.join(tail) if tail else '')


def seed_range(text):
    m = re.match(r'^(\d+)-(\d+)$', text)
    if not m or int(m.group(1)) > int(m.group(2)):
        raise argparse.ArgumentTypeError('seeds=%s: A-B with A <= B' % text)
    return range(int(m.group(1)), int(m.group(2)) + 1)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--build', action='append', default=[], help='CFG=BUILD_DIR (repeat)')
    ap.add_argument('--seeds', type=seed_range, default=seed_range('1-200'))
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--timeout', type=int, default=120, help='commrun --timeout of each run (s)')
    a = ap.parse_args(argv)
    runs, skipped = [], 0
    for spec in a.build:
        cfg, _, bdir = spec.partition('=')
        missing = {'active_net', 'reliability'} - protocols(bdir)
        if missing:
            print('%s: soak skipped: needs %s composed' % (cfg, ' and '.join(sorted(missing))))
            skipped += 1
            continue
        runs += [(cfg, bdir, s) for s in a.seeds]
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futs = {pool.submit(one, bdir, s, a.timeout): (cfg, s) for cfg, bdir, s in runs}
        for f in concurrent.futures.as_completed(futs):
            cfg, s = futs[f]
            why = f.result()
            if why:
                failed += 1
                print('FAILED: %s: seed %d: %s' % (cfg, s, why))
                sys.stdout.flush()
    print('%d passed, %d failed, %d skipped' % (len(runs) - failed, failed, skipped))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
