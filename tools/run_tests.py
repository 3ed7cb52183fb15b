#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Run every test suite `scons test` names and print one aggregated line "N passed, M failed, K skipped".
"""Test aggregation for `scons test` (run by SConstruct, not by hand).

Suites: the generator diagnostic runner (tests/gen/run.sh, "N passed, M failed"),
every fuzz harness replaying its inputs (tests/fuzz/<name>/{corpus,regress}, "N passed, M failed"),
every Criterion executable per config (its machine-readable report, --json:
passed, failed, errored = crashed, skipped with each skipped test's reason; run
with LC_BUILD_DIR=<abs build/NAME>),
the zero-cost proof, the config-reference check, the scaffold self-test and the
benchmark quick-check (tools/bench/run.py quick=1 scale=1, "bench-quick: N passed, M failed"; it
measures build/baseline, the release build, whatever --mode the suites were built in).
A suite that does not run, times out, or prints no summary counts as one failure.
A failed Criterion test's row (and the FAILED block at the end) carries its assertion's
message from the report, WHY_LINES lines of it: the programs' output a case puts there.
A sanitizer's report (ASan, LeakSanitizer, UBSan, ThreadSanitizer) in a Criterion suite's own
output fails the suite: Criterion passes a test whose process a sanitizer flagged (it reads
the test's verdict, not the process's exit status); a node program's report reaches the
suite only through the command output the test checks.
A test a config compiles out is skipped with its reason (LC_T_SKIPPED, tests/pipeline/lc_skip.h);
a Criterion suite that exits 0 with no test at all, every one compiled out without it,
counts as one skipped, so that a missing #else shows.
Suites run --jobs at a time (SConstruct gives two a core, 4 on this 2-core target: a suite
waits -- time limits, a peer's sleep, its nodes spinning then yielding -- more than it
computes; four configs' suites took 200-225 s with 4 jobs, 300-309 s with 2), each
Criterion suite with --jobs=1, the longest first (EXPECTED) so that the pool does not end
on one long suite while the other workers idle; every row prints its wall time and the
slowest suites are listed at the end, and each row's CPU seconds (user + sys of the suite and
every process it waited for) with the suites that took the most.  The benchmark quick-check
runs alone, after everything else, so that no other suite steals its cores.
A suite runs in full on the configs that compose what it exercises and as a smoke test on
the others, as its row in tests/smoke.py says: LC_T_SMOKE=1 in its environment (Criterion
suites: fewer iterations, inputs or sizes of every case, tests/pipeline/lc_run.h), every
FUZZ_SMOKE_STRIDE-th corpus input for a fuzz replay; its row says "smoke".
--mode tsan (ThreadSanitizer builds): the runtime maps its shadow at fixed addresses,
and on a kernel with many bits of mmap randomisation (vm.mmap_rnd_bits) it may find them
taken and stop ("FATAL: ThreadSanitizer: unexpected memory mapping").  The first suite is
probed (--list); if it stops so, every suite runs under `setarch <arch> -R` (no address
randomisation for it and the processes it starts), and the row "tsan: runtime" says which.
Exit status: 0 only when nothing failed or crashed.
"""
import argparse
import concurrent.futures
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

PLAIN = re.compile(r'(\d+) passed, (\d+) failed\s*$', re.M)
# a check a plain suite cannot run in this build (tests/pychecks.py skip): counted, with its reason
PLAIN_SKIP = re.compile(r'^SKIP: (.*)$', re.M)
SUITE_TIMEOUT = 300     # seconds for one suite; the tests set their own .timeout too
WHY_LINES = 60          # lines kept of the failed tests' messages (criterion_report)
# --mode: how many times more time a suite gets (LC_T_SLOWDOWN, tests/pipeline/lc_run.h)
SLOWDOWN = {'release': 1, 'debug': 3, 'tsan': 10}
NO_TEST = 'every test compiled out for this config (no LC_T_SKIPPED)'
# the first line of a sanitizer's report, at the start of a line of the suite's own output
SANITIZER_REPORT = re.compile(r'^(==\d+==ERROR: (Address|Leak)Sanitizer|WARNING: ThreadSanitizer|'
                              r'ThreadSanitizer:DEADLYSIGNAL|\S+:\d+:\d+: runtime error: )', re.M)
# prepended to every suite's command line (tsan_prefix)
PREFIX = []
LUA = 'lua5.4'
# Rough wall seconds (release, 2 cores) of the suites that take longest, as a suite's full run
# and its smoke run (tests/smoke.py); every other suite counts EXPECTED_OTHER.  The pool starts
# the longest first.
EXPECTED = {'zerocost': (25, 25), 'gen: diagnostics': (14, 14), 'scaffold': (9, 9),
            'fuzz_frame': (25, 4), 'fuzz_config': (9, 9), 'test_mpi': (20, 9),
            'test_rel_e2e': (15, 3), 'test_pipeline_load': (11, 5), 'test_rel_faults': (4, 2),
            'test_atlas': (7, 3), 'test_csn': (5, 3), 'test_vipl': (4, 2.5),
            'test_multicast': (6, 6), 'test_pipeline_faults': (4, 4), 'test_pipeline': (3.5, 3.5),
            'test_pipeline_bibw': (3.5, 3.5), 'test_pipeline_sizes': (3.5, 1.5),
            'test_pipeline_envelope': (3, 3), 'test_flow_control': (3.5, 3.5),
            'test_launcher': (2.5, 2.5), 'test_mcp': (2.5, 2.5), 'test_pipeline_traffic': (2, 2),
            'test_rendezvous': (2, 2), 'test_rel_window': (2, 2)}
EXPECTED_OTHER = 1
# what Criterion reports of a skip that gave no reason (a .disabled test, cr_skip_test(""))
UNEXPLAINED = ('', 'The test was skipped.', 'Test is disabled')
# a test the config compiles out (LC_T_SKIPPED, tests/pipeline/lc_skip.h) is a .disabled
# Criterion test, its reason "suite::name\twhy" in this ELF section of its program
SKIP_SECTION = 'lc_t_skipped'


def timed_run(*args, **kw):
    """run() and its wall time: (rc, out, err, timed_out, seconds)."""
    secs, r = timed(run, *args, **kw)
    return r + (secs,)


# The CPU seconds (user + sys) of the last suite this thread ran, with every process it
# waited for (Criterion's workers, commrun's nodes, a test's own children): its row prints
# them beside its wall time.  Under the lanes a suite's waits spin and yield, so its CPU is
# mostly its share of the cores (docs/internals.md, twenty-fourth part); alone, what it needs.
CPU = threading.local()


class CpuPopen(subprocess.Popen):
    """Popen that keeps the child's resource usage (os.wait4) when it reaps it."""
    rusage = None

    def _try_wait(self, wait_flags):
        try:
            pid, sts, ru = os.wait4(self.pid, wait_flags)
        except ChildProcessError:
            return (self.pid, 0)    # reaped elsewhere: what subprocess itself does
        if pid == self.pid:
            self.rusage = ru
        return (pid, sts)


def run(cmd, cwd, env=None, shell=False, timeout=None):
    """Run a suite in its own process group (timeout: SUITE_TIMEOUT); return (rc, stdout,
    stderr, timed_out).  Its CPU seconds are left in CPU.secs for its row."""
    timeout = timeout or SUITE_TIMEOUT
    CPU.secs = None
    p = CpuPopen(cmd, cwd=cwd, env=env, shell=shell, stdout=subprocess.PIPE,
                 stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        r = (p.returncode, out, err, False)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        r = (-9, out, err, True)
    if p.rusage:
        CPU.secs = p.rusage.ru_utime + p.rusage.ru_stime
    return r


class Tally:
    """Rows of (name, passed, failed, note, seconds, cpu seconds); printing is serialised."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.rows = []
        self.failures = []      # (name, note, tail): repeated after the summary rows
        self.lock = threading.Lock()

    def add(self, name, passed, failed, note='', secs=None, tail=None, skipped=0):
        # the CPU of the suite this thread ran last (run()), for a row with a wall time
        cpu = getattr(CPU, 'secs', None) if secs is not None else None
        CPU.secs = None
        with self.lock:
            self.passed += passed
            self.failed += failed
            self.skipped += skipped
            self.rows.append((name, passed, failed, note, secs, cpu))
            if failed:
                self.failures.append((name, note, tail or []))
            print('%-48s %5d passed, %d failed%s %s%s%s' % (
                name, passed, failed, ', %d skipped' % skipped if skipped else '',
                '' if secs is None else '%6.1fs' % secs,
                '' if cpu is None else ' cpu %5.1fs' % cpu,
                ('  (' + note + ')') if note else ''), flush=True)
            for line in tail or []:
                print('    | ' + line)
            sys.stdout.flush()


def tail_of(text, lines=40):
    return text.strip().splitlines()[-lines:]


def plain_suite(t, name, rc, out, err, timed_out, secs=None, timeout=None):
    timeout = timeout or SUITE_TIMEOUT
    m = PLAIN.findall(out + '\n' + err)
    if timed_out:
        t.add(name, 0, 1, 'timed out after %d s' % timeout, secs, tail_of(out + err))
    elif not m:
        t.add(name, 0, 1, 'no "N passed, M failed" line, exit %d' % rc, secs, tail_of(out + err))
    else:
        p, f = int(m[-1][0]), int(m[-1][1])
        skips = PLAIN_SKIP.findall(out)
        if rc != 0 and f == 0:
            f, note = 1, 'exit %d' % rc
        else:
            note = '; '.join('skipped: ' + why for why in skips)
        t.add(name, p, f, note, secs, tail_of(out + err) if f else None, skipped=len(skips))


def replay_suite(t, name, rc, out, err, timed_out, secs):
    """A fuzz harness's replay: its "N passed, M failed"; no input at all is a failure."""
    m = PLAIN.findall(out + '\n' + err)
    if m and not timed_out and int(m[-1][0]) + int(m[-1][1]) == 0:
        t.add(name, 0, 1, 'no input to replay (tests/fuzz/<name>/corpus is empty)', secs)
    else:
        plain_suite(t, name, rc, out, err, timed_out, secs)


def timed(fn, *args, **kw):
    """(seconds, fn(*args, **kw))."""
    t0 = time.time()
    r = fn(*args, **kw)
    return time.time() - t0, r


# program name -> {config: the suite::test names its report lists}: every config must list the
# same tests, run or skipped (a test an #if drops without LC_T_SKIPPED shows up here)
LISTED = {}


def compiled_out(exe):
    """{suite::test: why} of the tests exe compiles out (LC_T_SKIPPED): SKIP_SECTION's
    NUL-terminated entries, copied out with objcopy ({} when exe has no such section)."""
    with tempfile.TemporaryDirectory() as tmp:
        sec = os.path.join(tmp, 'section')
        subprocess.run(['objcopy', '-O', 'binary', '--only-section=' + SKIP_SECTION, exe, sec],
                       check=True, capture_output=True)
        with open(sec, 'rb') as f:
            entries = f.read().decode().split('\0')
    return dict(e.split('\t', 1) for e in entries if '\t' in e)


def criterion_report(path, listed=None, off=None):
    """Criterion's machine output (--json=path): (passed, failed, errored, skipped, reasons,
    unexplained, why_failed); the suite::test names go into the set listed; a disabled test
    takes its reason from off (compiled_out); why_failed: each failed test's name and its
    assertion's message (the programs' output a test puts there), the log shows neither."""
    with open(path) as f:
        r = json.load(f)
    reasons, unexplained, why_failed = [], [], []
    for suite in r.get('test_suites', []):
        for test in suite.get('tests', []):
            name = '%s::%s' % (suite.get('name'), test.get('name'))
            if listed is not None:
                listed.add(name)
            if test.get('status') in ('FAILED', 'ERRORED'):
                why_failed += ['%s %s:' % (test.get('status'), name)] + \
                    ['  ' + l for m in test.get('messages') or [] for l in m.splitlines()]
            if test.get('status') == 'SKIPPED':
                why = '; '.join(test.get('messages') or [])
                if why in UNEXPLAINED and name in (off or {}):
                    why = off[name]
                if why in UNEXPLAINED:
                    unexplained.append(name)
                elif why not in reasons:
                    reasons.append(why)
    return r['passed'], r['failed'], r['errored'], r['skipped'], reasons, unexplained, why_failed


def tsan_prefix(exe, root):
    """(prefix, note): how a ThreadSanitizer program runs on this kernel -- as it is, or
    under setarch -R when its runtime cannot place its shadow; prefix None when neither."""
    def stops(cmd):
        rc, out, err, _ = run(cmd + [exe, '--list'], root, timeout=60)
        text = out + err
        return rc != 0 and 'ThreadSanitizer' in text, text
    bad, text = stops([])
    if not bad:
        return [], 'runs as it is'
    setarch = ['setarch', platform.machine(), '-R']
    bad2, text2 = stops(setarch)
    if not bad2:
        return setarch, 'stopped at start (%s): every suite runs under %s' % (
            (text.strip().splitlines() or ['?'])[0][:100], ' '.join(setarch))
    return None, 'stops at start, also under %s: %s' % (' '.join(setarch), tail_of(text2, 3))


class Config:
    """What a predicate of tests/smoke.py sees of a config (its docstring)."""

    def __init__(self, name, protos, every, variant):
        self.name, self.protos, self.every, self.variant = name, protos, every, variant


def gen_protocols(root, cfg):
    """The protocols configs/<cfg>.lua composes (the generator's --print protocols), or None."""
    try:
        r = subprocess.run([LUA, 'gen/main.lua', '--config', 'configs/%s.lua' % cfg, '--print',
                            'protocols'], cwd=root, capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    if r.returncode != 0:
        return None
    words = (w.strip('"\' ') for w in re.split(r'[\s,\[\]{}]+', r.stdout))
    return frozenset(w for w in words if w)


def implemented(root):
    """The protocols of protocols/ whose registry entry says implemented = true."""
    out = set()
    pdir = os.path.join(root, 'protocols')
    for p in sorted(os.listdir(pdir)) if os.path.isdir(pdir) else []:
        if not re.match(r'^[A-Za-z0-9_]+$', p) or \
                not os.path.exists(os.path.join(pdir, p, 'protocol.lua')):
            continue
        code = 'local t = dofile("protocols/%s/protocol.lua") ' \
               'io.write(tostring(type(t) == "table" and t.implemented))' % p
        try:
            r = subprocess.run([LUA, '-e', code], cwd=root, capture_output=True, text=True,
                               timeout=60)
        except OSError:
            continue
        if r.stdout.strip() == 'true':
            out.add(p)
    return frozenset(out)


def smoke_plan(root, bdirs):
    """(suites, stride, configs, env): tests/smoke.py's rows, its fuzz stride, a Config per config
    (None where build/<cfg>/config.json cannot be read: every suite runs in full there) and what
    a smoke run's environment adds."""
    path = os.path.join(root, 'tests', 'smoke.py')
    if not os.path.exists(path):
        return {}, 1, {}, {}
    ns = {}
    exec(open(path).read(), ns)
    protos = {}
    for cfg, bdir in bdirs.items():
        try:
            with open(os.path.join(bdir, 'config.json')) as f:
                protos[cfg] = frozenset(p['name'] for p in json.load(f)['active_protocols'])
        except (OSError, ValueError, KeyError, TypeError):
            protos[cfg] = None
    every = implemented(root)
    configs = {}
    for cfg, ps in protos.items():
        if ps is None:
            configs[cfg] = None
            continue
        parent = None
        try:
            with open(os.path.join(root, 'configs', cfg + '.lua')) as f:
                m = re.search(r'\bextends\s*=\s*["\']([A-Za-z0-9_.-]+)["\']', f.read())
            parent = m and m.group(1)
        except OSError:
            pass
        pps = None
        if parent:
            pps = protos.get(parent)
            if pps is None:
                pps = gen_protocols(root, parent)
        configs[cfg] = Config(cfg, ps, bool(every) and every <= ps, pps is not None and pps == ps)
    return ns.get('SUITES', {}), ns.get('FUZZ_SMOKE_STRIDE', 1), configs, ns.get('SMOKE_ENV', {})


def is_smoke(plan, suite, cfg):
    """True when suite runs as a smoke test on cfg (tests/smoke.py)."""
    suites, _, configs, _ = plan
    row, c = suites.get(suite), configs.get(cfg)
    return bool(row and c and not row[0](c))


def expected(name):
    """EXPECTED seconds of a job's name."""
    for key, (full, smoke) in EXPECTED.items():
        if re.search(r'(^|[ :])%s\b' % re.escape(key), name):
            return smoke if name.endswith(' smoke') else full
    return EXPECTED_OTHER


def criterion_suite(t, name, exe, root, env):
    listed = set()
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, 'report.json')
        secs, (rc, out, err, to) = timed(run, PREFIX + [exe, '--color=never', '--jobs=1',
                                                        '--json=' + report], root, env=env)
        try:
            off = compiled_out(exe)
        except (OSError, UnicodeError, subprocess.CalledProcessError) as e:
            off = {}     # every disabled test then fails as skipped without a reason
            print('%s: no reasons of its compiled-out tests (objcopy: %s)' % (name, e), flush=True)
        try:
            res = criterion_report(report, listed, off)
            with t.lock:
                LISTED.setdefault(os.path.basename(exe), {})[name.split(':', 1)[0]] = listed
        except (OSError, ValueError, KeyError) as e:
            res, why = None, 'no Criterion report (%s), exit %d' % (e.__class__.__name__, rc)
    failing_lines = [l for l in (err + out).splitlines()
                     if not l.startswith('[----]') or 'Assertion' in l]
    flagged = SANITIZER_REPORT.search(err + out)
    if to:
        t.add(name, 0, 1, 'timed out after %d s' % SUITE_TIMEOUT, secs, tail_of(err + out))
    elif res is None:
        t.add(name, 0, 1, why, secs, tail_of(err + out))
    else:
        passing, failing, errored, skipped, reasons, unexplained, why_failed = res
        bad = failing + errored
        note = ''
        if flagged:
            bad += 1
            failing_lines = (err + out)[flagged.start():].splitlines()[:60]
        if unexplained:
            # a skip must say why (LC_T_SKIPPED, cr_skip_test(why)); .disabled says nothing
            bad += len(unexplained)
            skipped -= len(unexplained)
            note = ('skipped without a reason (.disabled outside LC_T_SKIPPED? skip with '
                    'LC_T_SKIPPED or cr_skip_test(why)): ') + \
                ', '.join(unexplained)
        elif flagged:
            note = 'a sanitizer report in the suite\'s own process: %s' % flagged.group(0)
        elif rc != 0 and bad == 0:
            bad, note = 1, 'exit %d' % rc
        elif passing + bad + skipped == 0:
            # a clean exit with every test compiled out for this config (#if on its
            # protocols) and no LC_T_SKIPPED in their #else: no failure, but no quiet
            # pass either
            skipped, note = 1, 'skipped: ' + NO_TEST
        elif skipped:
            note = 'skipped: ' + ' | '.join(reasons)
        t.add(name, passing, bad, note, secs,
              failing_lines[-60:] + why_failed[:WHY_LINES] if bad else None, skipped)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', required=True)
    ap.add_argument('--config', action='append', default=[], help='NAME=ABS_BUILD_DIR')
    ap.add_argument('--test', action='append', default=[], help='CONFIG=EXECUTABLE')
    ap.add_argument('--replay', action='append', default=[],
                    help='CONFIG=NAME=EXECUTABLE: a fuzz harness replaying tests/fuzz/NAME/{corpus,regress}')
    ap.add_argument('--zerocost', help='command line of the zero-cost proof')
    ap.add_argument('--doc', help='freshly generated config reference to compare')
    ap.add_argument('--scaffold', action='store_true', help='run the scaffold self-test')
    ap.add_argument('--missing', action='append', default=[], help='a suite that cannot run')
    ap.add_argument('--bench-quick', action='store_true', help='run the benchmark quick-check')
    ap.add_argument('--jobs', type=int, default=4, help='suites run at the same time')
    ap.add_argument('--mode', default='release', help='what the suites were built in (SConstruct)')
    a = ap.parse_args()
    global SUITE_TIMEOUT
    SUITE_TIMEOUT *= SLOWDOWN.get(a.mode, 1)
    root = a.root
    t = Tally()
    bdirs = dict(c.split('=', 1) for c in a.config)
    tests = list(a.test)
    if a.mode == 'debug':
        # a UBSan finding ends the program (-fno-sanitize-recover): say where it came from
        os.environ.setdefault('UBSAN_OPTIONS', 'print_stacktrace=1')
    if a.mode == 'tsan' and tests:
        prefix, note = tsan_prefix(tests[0].split('=', 1)[1], root)
        if prefix is None:
            t.add('tsan: runtime', 0, 1, note)
            tests = []
        else:
            PREFIX[:] = prefix
            t.add('tsan: runtime', 1, 0, note)

    jobs = []     # (name, callable) run by the pool
    plan = smoke_plan(root, bdirs)

    # 1. generator diagnostics
    runner = os.path.join(root, 'tests', 'gen', 'run.sh')
    if os.path.exists(runner):
        name = 'gen: diagnostics (tests/gen/run.sh)'
        jobs.append((name, lambda name=name: plain_suite(t, name, *timed_run(['sh', runner], root))))
    else:
        t.add('gen: diagnostics', 0, 1, 'tests/gen/run.sh missing')

    # 2. Criterion suites, per config
    for spec in tests:
        cfg, exe = spec.split('=', 1)
        env = dict(os.environ, LC_BUILD_DIR=bdirs[cfg])
        env.pop('LC_T_SMOKE', None)
        name = '%s: %s' % (cfg, os.path.basename(exe))
        if is_smoke(plan, os.path.basename(exe), cfg):
            env['LC_T_SMOKE'] = '1'
            if SLOWDOWN.get(a.mode, 1) == 1:
                # a sanitizer's build keeps the config's limit: its code runs 3-10 x slower,
                # and a limit counts time (an MCP thread that makes no progress for it)
                env.update(plan[3])
            name += ' smoke'
        jobs.append((name, lambda name=name, exe=exe, env=env: criterion_suite(t, name, exe, root, env)))

    # 2b. every fuzz harness replays its seed corpus and its regressions (tests/fuzz/targets.py)
    for spec in a.replay:
        cfg, fname, exe = spec.split('=', 2)
        env = dict(os.environ, LC_BUILD_DIR=bdirs[cfg])
        name = '%s: fuzz_%s (replay of tests/fuzz/%s)' % (cfg, fname, fname)
        dirs = [os.path.join(root, 'tests', 'fuzz', fname, d) for d in ('corpus', 'regress')]
        if is_smoke(plan, 'fuzz_' + fname, cfg):
            # every stride-th corpus input in the replay's own (name) order, every regression
            corpus = dirs[0]
            names = sorted(n for n in os.listdir(corpus) if not n.startswith('.')) \
                if os.path.isdir(corpus) else []
            dirs = [os.path.join(corpus, n) for n in names[::max(1, plan[1])]] + dirs[1:]
            name += ' smoke'
        jobs.append((name, lambda name=name, exe=exe, env=env, dirs=dirs: replay_suite(
            t, name, *timed_run([exe] + dirs, root, env=env))))

    # 3. the zero-cost proof (its own output is printed with its row)
    if a.zerocost:
        def zerocost():
            secs, (rc, out, err, to) = timed(run, a.zerocost, root, shell=True)
            with t.lock:
                sys.stdout.write(out)
            plain_suite(t, 'zerocost: machine code + instruction counts', rc, out, err, to, secs)
        jobs.append(('zerocost', zerocost))

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
        jobs.append(('scaffold', lambda st=st: plain_suite(t, 'scaffold: new_protocol builds and passes',
                                                     *timed_run([sys.executable, st, root], root))))

    # 6. one protocol, one folder: no protocol names another, the shared folders name none
    ind = os.path.join(root, 'tools', 'check_independence.py')
    jobs.append(('independence', lambda ind=ind: plain_suite(
        t, 'independence: protocols and framework/nic/launcher (tools/check_independence.py)',
        *timed_run([sys.executable, ind, '--root', root], root))))

    # 7. the placement tool against the job's own routes (any config's commrun --routes)
    if bdirs:
        pb = bdirs.get('baseline') or bdirs[sorted(bdirs)[0]]
        tp = os.path.join(root, 'tests', 'placement', 'test_place.py')
        jobs.append(('placement', lambda tp=tp, pb=pb: plain_suite(
            t, 'placement: tools/place.py on commrun --routes (tests/placement)',
            *timed_run([sys.executable, tp, pb], root))))
        # 8. the cost model's formulas against hand computations (tools/costmodel)
        tc = os.path.join(root, 'tests', 'costmodel', 'test_costmodel.py')
        jobs.append(('costmodel', lambda tc=tc, pb=pb: plain_suite(
            t, 'costmodel: tools/costmodel against seed 002 and hand computations (tests/costmodel)',
            *timed_run([sys.executable, tc, pb], root))))
        # 9. the benchmark driver's failure reasons, on a real commrun job (tools/bench/run.py)
        tb = os.path.join(root, 'tests', 'bench', 'test_bench.py')
        jobs.append(('bench-driver', lambda tb=tb, pb=pb: plain_suite(
            t, 'bench: a failed cell names every node and commrun\'s first lines (tests/bench)',
            *timed_run([sys.executable, tb, pb], root))))

    # 10. the PC sampler (tools/pcprof) on a program whose time it knows.  Every job binds its
    # paths as it is made (a lambda reads a free name when it runs: the pcprof job's path, once
    # named tp as well, ran in place of the placement suite)
    tpc = os.path.join(root, 'tests', 'pcprof', 'test_pcprof.py')
    jobs.append(('pcprof', lambda tpc=tpc: plain_suite(
        t, 'pcprof: the PC sampler names where two processes spent their time (tests/pcprof)',
        *timed_run([sys.executable, tpc], root))))

    # the longest first (EXPECTED), so that the pool does not end on one long suite while
    # the other workers idle
    jobs.sort(key=lambda j: -expected(j[0]))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for f in [pool.submit(fn) for _, fn in jobs]:
            f.result()

    # every program lists the same tests in every config that builds it
    if a.test:
        odd, bad = [], set()
        for prog, by_cfg in sorted(LISTED.items()):
            every = set().union(*by_cfg.values())
            for cfg, names in sorted(by_cfg.items()):
                for n in sorted(every - names):
                    bad.add(prog)
                    odd.append('%s: %s lists no %s (compiled out without LC_T_SKIPPED?)' % (cfg, prog, n))
        t.add('tests: each program lists the same tests in every config', len(LISTED) - len(bad),
              len(bad), '', None, odd[:40])

    # 7. the benchmark quick-check, alone on the machine
    if a.bench_quick:
        bench_to = 600
        cmd = [sys.executable, os.path.join(root, 'tools', 'bench', 'run.py'), 'quick=1',
               'build=0', 'mpi=0', 'scale=1', 'crc=1', 'model=1', 'configs=baseline',
               'out=build/bench/quick']
        secs, r = timed(run, cmd, root, timeout=bench_to)
        plain_suite(t, 'bench: quick-check (tools/bench/run.py quick=1)', *r, secs=secs,
                    timeout=bench_to)

    for m in a.missing:
        t.add(m, 0, 1, 'did not run')

    slow = sorted((r for r in t.rows if r[4] is not None), key=lambda r: -r[4])[:8]
    print('slowest suites: ' + ', '.join('%s %.0fs' % (r[0], r[4]) for r in slow))
    dear = sorted((r for r in t.rows if r[5] is not None), key=lambda r: -r[5])
    if dear:
        print('most CPU (user + sys, %.0f s in all): ' % sum(r[5] for r in dear) +
              ', '.join('%s %.0fs' % (r[0], r[5]) for r in dear[:8]))
    # every failure once more at the end, where a log's tail shows it (.ci/run repeats these)
    for name, note, tail in t.failures:
        print('FAILED: %s%s' % (name, ': ' + note if note else ''))
        for line in tail[-(WHY_LINES + 15):]:
            print('    | ' + line)
    print('%d passed, %d failed, %d skipped' % (t.passed, t.failed, t.skipped))
    return 0 if t.failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
