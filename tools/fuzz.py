#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run the fuzz harnesses `scons fuzz` built (tests/fuzz/targets.py); called by SConstruct.

Each run: build/fuzz/<cfg>/<name>/corpus (libFuzzer writes what it finds there) seeded from
tests/fuzz/<name>/corpus and tests/fuzz/<name>/regress, findings in
build/fuzz/<cfg>/<name>/artifacts/, the whole log in build/fuzz/<cfg>/<name>/log.  One line
per run: executions, executions per second, coverage (libFuzzer's cov: edges, ft: features),
corpus size and the verdict.  A finding names its input: copy it into
tests/fuzz/<name>/regress/ (named after what it found) once fixed, and `scons test` replays
it from then on.  Exit status 1 when any run found something.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'tests', 'fuzz'))
from targets import TARGETS  # noqa: E402


def stat(text, key):
    m = re.findall(r'^stat::%s:\s*(\d+)' % key, text, re.M)
    return int(m[-1]) if m else None


def run_one(root, name, cfg, prog, secs):
    row = TARGETS[name]
    work = os.path.join(root, 'build', 'fuzz', cfg, name)
    corpus = os.path.join(work, 'corpus')
    arts = os.path.join(work, 'artifacts')
    for d in (corpus, arts):
        os.makedirs(d, exist_ok=True)
    seeds = [d for d in (os.path.join(root, 'tests', 'fuzz', name, 'corpus'),
                         os.path.join(root, 'tests', 'fuzz', name, 'regress')) if os.path.isdir(d)]
    before = set(glob.glob(os.path.join(arts, '*')))
    cmd = [prog, corpus] + seeds + [
        '-max_total_time=%d' % secs, '-timeout=%d' % row['timeout'], '-max_len=%d' % row['max_len'],
        '-artifact_prefix=%s/' % arts, '-print_final_stats=1', '-rss_limit_mb=4096']
    env = dict(os.environ, LC_BUILD_DIR=os.path.dirname(prog),
               ASAN_OPTIONS=os.environ.get('ASAN_OPTIONS', 'detect_leaks=1'))
    t0 = time.time()
    with open(os.path.join(work, 'log'), 'w') as log:
        log.write('$ %s\n' % ' '.join(cmd))
        log.flush()
        p = subprocess.run(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    secs_run = time.time() - t0
    text = open(os.path.join(work, 'log'), errors='replace').read()
    found = sorted(set(glob.glob(os.path.join(arts, '*'))) - before)
    done = re.findall(r'#(\d+)\s+DONE\s+cov: (\d+) ft: (\d+) corp: (\d+)/', text)
    pulse = re.findall(r'#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/', text)
    last = done[-1] if done else (pulse[-1] if pulse else ('?', '?', '?', '?'))
    execs = stat(text, 'number_of_executed_units') or last[0]
    eps = stat(text, 'average_exec_per_sec')
    verdict = 'no finding' if p.returncode == 0 and not found else \
        'FOUND (exit %d): %s' % (p.returncode, ', '.join(os.path.relpath(f, root) for f in found) or
                                 'see ' + os.path.relpath(os.path.join(work, 'log'), root))
    print('fuzz %-10s %-22s %6.0fs  %10s execs  %6s exec/s  cov %5s  ft %6s  corpus %5s  %s' % (
        name, cfg, secs_run, execs, eps if eps is not None else '?', last[1], last[2], last[3],
        verdict), flush=True)
    if p.returncode != 0 or found:
        for line in [l for l in text.splitlines() if 'ERROR' in l or 'SUMMARY' in l or
                     '==' in l][:12]:
            print('    | ' + line)
    return p.returncode == 0 and not found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', required=True)
    ap.add_argument('--secs', type=int, required=True)
    ap.add_argument('--run', action='append', default=[], help='NAME=CONFIG=PROGRAM')
    a = ap.parse_args()
    ok = True
    for r in a.run:
        name, cfg, prog = r.split('=', 2)
        ok = run_one(a.root, name, cfg, prog, a.secs) and ok
    print('fuzz: %d run(s), %s' % (len(a.run), 'no finding' if ok else 'FINDINGS (see above)'))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
