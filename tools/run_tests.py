#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Run every test suite `scons test` names and print one aggregated line "N passed, M failed".
"""Test aggregation for `scons test` (run by SConstruct, not by hand).

Suites: the generator diagnostic runner (tests/gen/run.sh, "N passed, M failed"),
every Criterion executable per config ("Synthesis: Tested: N | Passing: N |
Failing: N | Crashing: N" on stderr; run with LC_BUILD_DIR=<abs build/NAME>),
the zero-cost proof, the config-reference check and the scaffold self-test.
A suite that does not run, times out, or prints no summary counts as one failure.
Exit status: 0 only when nothing failed or crashed.
"""
import argparse
import os
import re
import signal
import subprocess
import sys

SYNTH = re.compile(r'Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)')
PLAIN = re.compile(r'(\d+) passed, (\d+) failed\s*$', re.M)
SUITE_TIMEOUT = 300     # seconds for one suite; the tests set their own .timeout too


def run(cmd, cwd, env=None, shell=False, timeout=SUITE_TIMEOUT):
    """Run a suite in its own process group; return (rc, stdout, stderr, timed_out)."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, shell=shell, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err, False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return -9, out, err, True


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.rows = []

    def add(self, name, passed, failed, note=''):
        self.passed += passed
        self.failed += failed
        self.rows.append((name, passed, failed, note))
        print('%-48s %5d passed, %d failed%s' % (name, passed, failed,
              ('  (' + note + ')') if note else ''), flush=True)


def show_tail(text, lines=40):
    tail = text.strip().splitlines()[-lines:]
    for line in tail:
        print('    | ' + line)


def plain_suite(t, name, rc, out, err, timed_out):
    m = PLAIN.findall(out + '\n' + err)
    if timed_out:
        t.add(name, 0, 1, 'timed out after %d s' % SUITE_TIMEOUT)
        show_tail(out + err)
    elif not m:
        t.add(name, 0, 1, 'no "N passed, M failed" line, exit %d' % rc)
        show_tail(out + err)
    else:
        p, f = int(m[-1][0]), int(m[-1][1])
        if rc != 0 and f == 0:
            f, note = 1, 'exit %d' % rc
        else:
            note = ''
        t.add(name, p, f, note)
        if f:
            show_tail(out + err)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', required=True)
    ap.add_argument('--config', action='append', default=[], help='NAME=ABS_BUILD_DIR')
    ap.add_argument('--test', action='append', default=[], help='CONFIG=EXECUTABLE')
    ap.add_argument('--zerocost', help='command line of the zero-cost proof')
    ap.add_argument('--doc', help='freshly generated config reference to compare')
    ap.add_argument('--scaffold', action='store_true', help='run the scaffold self-test')
    ap.add_argument('--missing', action='append', default=[], help='a suite that cannot run')
    a = ap.parse_args()
    root = a.root
    t = Tally()
    bdirs = dict(c.split('=', 1) for c in a.config)

    # 1. generator diagnostics
    runner = os.path.join(root, 'tests', 'gen', 'run.sh')
    if os.path.exists(runner):
        plain_suite(t, 'gen: diagnostics (tests/gen/run.sh)', *run(['sh', runner], root))
    else:
        t.add('gen: diagnostics', 0, 1, 'tests/gen/run.sh missing')

    # 2. Criterion suites, per config
    for spec in a.test:
        cfg, exe = spec.split('=', 1)
        env = dict(os.environ, LC_BUILD_DIR=bdirs[cfg])
        name = '%s: %s' % (cfg, os.path.basename(exe))
        rc, out, err, to = run([exe, '--color=never'], root, env=env)
        m = SYNTH.findall(err + out)
        if to:
            t.add(name, 0, 1, 'timed out after %d s' % SUITE_TIMEOUT)
            show_tail(err + out)
        elif not m:
            t.add(name, 0, 1, 'no Criterion summary, exit %d' % rc)
            show_tail(err + out)
        else:
            tested, passing, failing, crashing = (int(x) for x in m[-1])
            bad = failing + crashing + max(0, tested - passing - failing - crashing)
            note = ''
            if rc != 0 and bad == 0:
                bad, note = 1, 'exit %d' % rc
            elif tested == 0:
                bad, note = 1, 'no test ran'
            t.add(name, passing, bad, note)
            if bad:
                show_tail('\n'.join(l for l in (err + out).splitlines()
                                    if not l.startswith('[----]') or 'Assertion' in l), 60)

    # 3. the zero-cost proof
    if a.zerocost:
        rc, out, err, to = run(a.zerocost, root, shell=True, timeout=SUITE_TIMEOUT)
        sys.stdout.write(out)
        plain_suite(t, 'zerocost: machine code + instruction counts', rc, out, err, to)

    # 4. the committed config reference is the generated one
    if a.doc:
        ref = os.path.join(root, a.doc)
        committed = os.path.join(root, 'docs', 'config-reference.md')
        try:
            same = open(ref).read() == open(committed).read()
            note = '' if same else 'docs/config-reference.md is stale: run scons doc'
        except OSError as e:
            same, note = False, str(e)
        t.add('doc: docs/config-reference.md up to date', int(same), int(not same), note)

    # 5. the scaffold builds and passes at once
    if a.scaffold:
        st = os.path.join(root, 'tools', 'scaffold_selftest.py')
        plain_suite(t, 'scaffold: new_protocol builds and passes',
                    *run([sys.executable, st, root], root, timeout=SUITE_TIMEOUT))

    for m in a.missing:
        t.add(m, 0, 1, 'did not run')

    print('%d passed, %d failed' % (t.passed, t.failed))
    return 0 if t.failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
