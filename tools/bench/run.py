#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# scons bench: build each config, run the benchmark matrix in interleaved rounds with anchors, write tables/CSV/JSON/plots/report.
"""
Usage (normally through scons):
  python3 tools/bench/run.py [configs=a,b|all] [sizes=0,8,1K|lo:hi] [rounds=N] [quick=1]
                             [mpi=0] [faults=1] [out=DIR] [build=0] [budget=SECONDS]

Every (round, benchmark) runs every config, each followed by its MPI series
(<config>+mpi: the benchmark's MPI twin built with the config's bin/mpicc and
run with its bin/mpirun), and then the anchors one after the other, so all of
them see the same machine noise.  A run that fails (non-zero
exit, timeout, a size missing from its output) is recorded as failed with its
reason, never as a number.  Outputs: build/bench/<timestamp>/ and the link
build/bench/latest.  stdlib only.
"""
import csv
import datetime
import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import benchlib as bl  # noqa: E402
import plots  # noqa: E402
import report  # noqa: E402

LUA = 'lua5.4'
GEN = os.path.join(ROOT, 'gen', 'main.lua')
MPIRUN = ['mpirun.openmpi', '--allow-run-as-root', '-np', '2',
          '--mca', 'pml', 'ob1', '--mca', 'btl', 'self,vader']
# bind=core (default) | none: every program of a run is placed the same way -- commrun --bind,
# the config's mpirun --bind-to, Open MPI's --bind-to, shm_pingpong --bind -- and report.md says
# which.  A job of more nodes than cores is not bound (commrun says so), pinned or not.
BIND_VALUES = ('core', 'none')
# preset=NAME: options a preset gives unless the command line sets them.  small: the small-message
# mode -- every size 0 B to 4 KiB, 64 KiB and 1 MiB for the protocols' targets, the configs those
# targets name, 11 interleaved rounds; report.md judges each target (report.TARGETS).
# large: the large-message mode -- rendezvous against baseline and Open MPI at 4-64 KiB (latency)
# and 1 and 16 MiB (stream), 7 rounds, and the copies per delivered byte (copies=1);
# report.md judges report.LARGE_TARGETS.
PRESETS = {'small': dict(configs='baseline,checksum,reliable', rounds='11',
                         sizes='0,1,2,4,8,16,32,64,128,256,512,1K,2K,4K,64K,1M', scale='1',
                         crc='1'),
           'large': dict(configs='baseline,rendezvous', rounds='7',
                         sizes='4K,8K,16K,32K,64K,128K,1M,16M', copies='1')}
# scale=1: scaling with peers (the first config, 8 B): pingpong and msgrate with SCALE_NODES nodes,
# every pair exchanging at once (pairs (0,1), (2,3), ...), and with one active pair among idle
# nodes; callgrind's instructions of node 0 per message and per poll for each (scale.csv, report.md).
SCALE_NODES = [2, 4, 8]
# copies=1 (part of preset=large): each config's bytes moved per payload byte delivered, from the
# counters of a one-window stream at each of COPIES_SIZES (copies.csv, report.md)
COPIES_SIZES = [1 << 20]
# crc=1 (part of preset=small): crc_speed.c, the protocols' CRC32C, a memcpy and the two fused
# (lc_crc32c_copy) in bytes per TSC tick, 64 B to 64 KiB, in cache (crc.csv, report.md)
CRC_REPS = 3000
SCALE_ROUNDS = 5
FAULT_DROPS = [0.0, 0.001, 0.01, 0.05]
QUICK_SIZES = [8, 65536]
# The configs of a default run: the baseline and each protocol alone (multicast in its NIC
# mode), then all of them together -- what each protocol costs.  configs=all runs every config.
DEFAULT_CONFIGS = ['baseline', 'checksum', 'reliable', 'flowctl', 'multicast', 'all']
DEFAULT_ROUNDS = 5
# Wall-time budget of a default run (the issue asks for 15 minutes): rounds stop early, and
# say so, when the next round would not end within it (plots and report take seconds).
BUDGET_SECONDS = 14 * 60
CFLAGS = ['-std=c11', '-Wall', '-Wextra', '-Werror', '-Wundef', '-Wshadow',
          '-Wmissing-prototypes', '-Wstrict-prototypes', '-O2', '-g']
# What each config build installs of the MPI personality (bin/mpicc builds the MPI twins for the
# config, bin/mpirun runs them over its commrun); asked of scons only when personalities/mpi exists.
MPI_PERSONALITY = ['bin/mpicc', 'bin/mpirun', 'lib/libmpi.a', 'include/mpi.h', 'lib/pkgconfig/mpi.pc']
# Where the measured programs of each config live: a copy taken right after the build
# (<out>/cfg/<config>/bin), so that another scons in the same checkout cannot swap or
# delete them mid-run.  Set by snapshot().
CFG_BIN = {}
# a row "size value [value]" of any node (a personality's measuring process need not be node 0)
LINE_RE = re.compile(r'^(?:\[\d+\]\s+)?(\d+)\s+([-+0-9.eE]+)(?:\s+([-+0-9.eE]+))?\s*$')
# msgrate --phases (examples/lc_ex_pattern.h, lc_ex_phases_print; the MPI twin's the same): each
# node's time a message in its posting loop, its wait and the rest of the window
PHASES_RE = re.compile(r'^(?:\[\d+\]\s+)?# phases (\d+) B node (\d+) \((sender|receiver)\): '
                       r'post ([0-9.]+) wait ([0-9.]+) rest ([0-9.]+) ns a message, (\d+) windows')
PHASES_COLUMNS = ['config', 'round', 'size', 'node', 'role', 'post', 'wait', 'rest', 'windows']


def wants_phases(target, bench):
    """1 when a run of bench for target prints msgrate's --phases: the native msgrate of a config,
    its MPI twin and Open MPI's (the same source); not the NIC floor, not a personality's own."""
    return bench['name'] == 'msgrate' and target not in ('nic', 'shm') and \
        not bl.personality_bench(target, bench['name'])


def say(msg):
    progress.clear()
    print(msg, flush=True)


# ---------------------------------------------------------------- progress
class Progress:
    """One \\r line on a terminal, plain lines otherwise."""

    def __init__(self):
        self.tty = sys.stdout.isatty()
        self.width = 0
        self.total = 0
        self.done = 0
        self.t_start = time.time()
        self.spent = {}      # (bench, target) -> seconds of its first run

    def clear(self):
        if self.tty and self.width:
            sys.stdout.write('\r' + ' ' * self.width + '\r')
            self.width = 0

    def eta(self, remaining):
        known = list(self.spent.values())
        if not known:
            return '?'
        avg = sum(known) / len(known)
        secs = sum(r if r is not None else avg for r in remaining)
        return '%dm%02ds' % (secs // 60, secs % 60)

    def show(self, text, remaining, plain=True):
        line = '[%d/%d] %s  ETA %s' % (self.done, self.total, text, self.eta(remaining))
        if self.tty:
            line = line[:150]
            sys.stdout.write('\r' + line.ljust(self.width))
            self.width = max(self.width, len(line))
            sys.stdout.flush()
        elif plain:
            print(line, flush=True)


progress = Progress()


# ---------------------------------------------------------------- arguments
def parse_args(argv):
    opts = dict(configs='', sizes='', rounds='', quick='0', mpi='1', faults='0', out='', build='1',
                budget=str(BUDGET_SECONDS), bind='core', preset='', scale='', crc='', model='',
                copies='')
    for a in argv:
        if '=' not in a:
            sys.exit('bench: argument %r is not KEY=VALUE' % a)
        k, v = a.split('=', 1)
        if k in ('config',):
            k = 'configs'
        if k not in opts:
            sys.exit('bench: unknown option %s (known: %s)' % (k, ', '.join(sorted(opts))))
        opts[k] = v
    if opts['preset'] and opts['preset'] not in PRESETS:
        sys.exit('bench: preset must be one of %s' % ', '.join(sorted(PRESETS)))
    for k, v in PRESETS.get(opts['preset'], {}).items():
        if not opts[k]:
            opts[k] = v         # a preset fills what the command line leaves unsaid
    quick = opts['quick'] not in ('0', '', 'no', 'false')
    o = dict(quick=quick, mpi=opts['mpi'] not in ('0', 'no', 'false'),
             faults=opts['faults'] not in ('0', '', 'no', 'false'), out=opts['out'],
             build=opts['build'] not in ('0', 'no', 'false'))
    o['rounds'] = int(opts['rounds']) if opts['rounds'] else (1 if quick else DEFAULT_ROUNDS)
    # the budget only trims the default number of rounds; rounds=N is obeyed
    o['budget'] = 0 if opts['rounds'] else float(opts['budget'])
    if o['rounds'] < 1:
        sys.exit('bench: rounds must be at least 1')
    if opts['sizes']:
        s = opts['sizes']
        if ':' in s:
            lo, hi = (bl.parse_size(x) for x in s.split(':', 1))
            sizes = [x for x in bl.default_sizes() if lo <= x <= hi]
            if lo not in sizes:
                sizes = sorted(set(sizes + [lo]))
        else:
            sizes = sorted(set(bl.parse_size(x) for x in re.split(r'[,\s]+', s) if x))
    else:
        sizes = QUICK_SIZES if quick else bl.default_sizes()
    if not sizes:
        sys.exit('bench: no sizes')
    o['sizes'] = sizes
    o['configs'] = opts['configs']
    if opts['bind'] not in BIND_VALUES:
        sys.exit('bench: bind must be one of %s' % ', '.join(BIND_VALUES))
    o['bind'] = opts['bind']
    o['scale'] = opts['scale'] not in ('0', '', 'no', 'false')
    o['crc'] = opts['crc'] not in ('0', '', 'no', 'false')
    o['copies'] = opts['copies'] not in ('0', '', 'no', 'false')
    # model=1 (the default of a full run; quick runs leave it out): calibrate the cost model on
    # the run's configs and print its prediction beside every cell (costmodel.json, report.md)
    o['model'] = opts['model'] not in ('0', 'no', 'false') if opts['model'] else not quick
    return o


def run_cmd(cmd, timeout=None, env=None):
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr


# ---------------------------------------------------------------- configs and builds
def all_configs():
    rc, out, err = run_cmd([LUA, GEN, '--list-configs'])
    if rc != 0:
        sys.exit('bench: %s --list-configs failed: %s' % (GEN, err.strip()))
    return out.split()


def select_configs(spec):
    """[(name, None | reason it is skipped)]; '' is DEFAULT_CONFIGS, 'all' every config."""
    if spec == 'all':
        names = all_configs()
    elif spec == '':
        names = [c for c in DEFAULT_CONFIGS if c in all_configs()]
    else:
        names = [c for c in re.split(r'[,\s]+', spec) if c]
    out = []
    for c in names:
        rc, o, e = run_cmd([LUA, GEN, '--config', c, '--check-only'])
        if rc == 0:
            out.append((c, None))
        elif rc == 3:
            out.append((c, 'selects an unimplemented protocol: ' +
                        ' '.join(l.split(': ', 2)[-1] for l in e.strip().splitlines())))
        else:
            out.append((c, 'the generator rejects it: ' + (e.strip() or o.strip())))
    return out


def build_configs(names, build=True):
    """{name: None | reason the build failed}; runs scons configs=... (retried: shared checkout).
    build=False (build=0, e.g. from scons test) only checks that the programs are there."""
    if not names:
        return {}
    need = ['commrun'] + [b['program'] for b in bl.BENCHMARKS]
    if not build:
        return {c: None if all(os.access(os.path.join(ROOT, 'build', c, 'bin', p), os.X_OK)
                               for p in need) else 'not built (build=0): run scons config=%s' % c
                for c in names}
    # only what is measured: not the config's test suites
    extra = MPI_PERSONALITY if os.path.isdir(os.path.join(ROOT, 'personalities', 'mpi')) else []
    # the personality series' programs, and the seed tables' (bl.SEED_PROGRAMS)
    extra += ['examples/%s/%s' % (r['p'], r['program']) for r in bl.PERSONALITY_BENCH
              if os.path.isdir(os.path.join(ROOT, 'personalities', r['p']))]
    extra += ['examples/%s' % x for x in bl.SEED_PROGRAMS
              if os.path.isdir(os.path.join(ROOT, 'personalities', x.split('/')[0]))]
    cmd = ['scons', '-Q', 'configs=' + ','.join(names)] + \
        ['build/%s/%s' % (c, t) for c in names for t in ['libcomm.a', 'config.json'] + extra +
         ['bin/' + p for p in need]]
    log = ''
    for attempt in range(3):
        say('bench: building %s (%s)%s' % (', '.join(names), ' '.join(cmd),
                                          ' (retry)' if attempt else ''))
        try:
            rc, o, e = run_cmd(cmd, timeout=900)
        except subprocess.TimeoutExpired:
            rc, o, e = -1, '', 'scons timed out after 900 s'
        log = (o + e)[-2000:]
        missing = {c: [p for p in need if not os.access(os.path.join(ROOT, 'build', c, 'bin', p),
                                                         os.X_OK)] for c in names}
        if rc == 0 and not any(missing.values()):
            break
        time.sleep(2)
    res = {}
    for c in names:
        if missing[c]:
            res[c] = 'build failed (missing %s): %s' % (', '.join(missing[c]),
                                                        log.strip().splitlines()[-1] if log.strip() else '')
        else:
            res[c] = None
    if rc != 0 and not any(res.values()):
        say('bench: scons exited %d but every program is there; continuing. Last lines:\n%s'
            % (rc, '\n'.join(log.strip().splitlines()[-5:])))
    return res


def snapshot(name, outdir):
    """Copy build/<name>/bin/*, the personalities' measured examples (examples/<p>/) and
    config.json into <out>/cfg/<name>/; None or the reason it failed."""
    src = os.path.join(ROOT, 'build', name)
    dst = os.path.join(outdir, 'cfg', name)
    try:
        os.makedirs(os.path.join(dst, 'bin'), exist_ok=True)
        for f in os.listdir(os.path.join(src, 'bin')):
            shutil.copy2(os.path.join(src, 'bin', f), os.path.join(dst, 'bin', f))
        for p in bl.personality_dirs():
            if os.path.isdir(os.path.join(src, 'examples', p)):
                shutil.copytree(os.path.join(src, 'examples', p), os.path.join(dst, 'examples', p),
                                dirs_exist_ok=True)
        shutil.copy2(os.path.join(src, 'config.json'), os.path.join(dst, 'config.json'))
    except OSError as e:
        return 'cannot copy its programs out of build/%s: %s' % (name, e)
    CFG_BIN[name] = os.path.join(dst, 'bin')
    return None


def cfg_bin(name):
    return CFG_BIN.get(name, os.path.join(ROOT, 'build', name, 'bin'))


def config_json(name):
    try:
        with open(os.path.join(os.path.dirname(cfg_bin(name)), 'config.json')) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def active_protocols(cj):
    if not cj:
        return []
    return [p['name'] if isinstance(p, dict) else p for p in cj.get('active_protocols', [])]


def crc_stage(bindir, path, quick):
    """crc=1: builds and runs crc_speed.c once (its repetitions interleave every column) and
    writes crc.csv (size, what, median, min, max in bytes per TSC tick, tsc_ghz, default: the
    implementation the protocols use here); returns the note."""
    exe = os.path.join(bindir, 'crc_speed')
    os.makedirs(bindir, exist_ok=True)
    rc, o, e = run_cmd(['gcc'] + CFLAGS + ['-I' + os.path.join(ROOT, 'framework'),
                                           os.path.join(HERE, 'crc_speed.c'),
                                           os.path.join(ROOT, 'framework', 'lc_crc32c.c'), '-o', exe])
    if rc != 0:
        return 'failed: crc_speed.c does not compile: ' + e.strip()[-300:]
    say('bench: CRC32C against memcpy (crc_speed)')
    rc, o, e = run_cmd([exe, '-r', str(200 if quick else CRC_REPS)], timeout=300)
    if rc != 0:
        return 'failed: crc_speed exit %d: %s' % (rc, e.strip()[-300:])
    ghz, default, rows = None, None, []
    for line in o.splitlines():
        f = line.split()
        if line.startswith('# tsc_ghz') and len(f) == 3:
            ghz = f[2]
        elif line.startswith('# default') and len(f) == 3:
            default = f[2]      # the implementation the protocols use on this CPU
        elif len(f) == 5 and not line.startswith('#'):
            rows.append(dict(size=f[0], what=f[1], median=f[2], min=f[3], max=f[4], tsc_ghz=ghz,
                             default=default))
    with open(path, 'w', newline='') as fh:
        w = csv.DictWriter(fh, fieldnames=['size', 'what', 'median', 'min', 'max', 'tsc_ghz', 'default'])
        w.writeheader()
        w.writerows(rows)
    return 'measured (%d repetitions per size)' % (200 if quick else CRC_REPS)


def stats_totals(out):
    """{counter: its sum over the nodes} of the counter table `commrun --stats` printed in out."""
    got = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2 and all(x.isdigit() for x in f[1:]):
            got[f[0]] = sum(int(x) for x in f[1:])
    return got


def copies_stage(configs, path):
    """copies=1: one window of `stream` at each of COPIES_SIZES under `commrun --stats` on every
    config; copies.csv holds the counters of report.COPY_COUNTERS and rx_bytes, both nodes summed.
    Returns the note."""
    rows, keys = [], report.COPY_COUNTERS + ['rx_bytes']
    for c in configs:
        b = cfg_bin(c)
        for size in COPIES_SIZES:
            say('bench: copies: %s stream %s' % (c, bl.fmt_size(size)))
            cmd = [os.path.join(b, 'commrun'), '-n', '2', '--stats', '--timeout', '120',
                   os.path.join(b, 'stream'), '-s', '%d:%d' % (size, size), '-i', '2', '-w', '1']
            try:
                rc, out, err = run_cmd(cmd, timeout=150)
            except subprocess.TimeoutExpired:
                rc, out, err = -1, '', 'timed out'
            got = stats_totals(out)
            missing = [k for k in keys if k not in got]
            status = 'ok' if rc == 0 and not missing else 'failed: %s' % (
                failure_text(rc, err.splitlines()) if rc != 0 else
                'commrun --stats printed no %s' % ', '.join(missing))
            rows.append(dict(config=c, size=size, status=status,
                             **{k: got.get(k, '') for k in keys}))
    with open(path, 'w', newline='') as fh:
        w = csv.DictWriter(fh, fieldnames=['config', 'size', 'status'] + keys)
        w.writeheader()
        w.writerows(rows)
    bad = [r for r in rows if r['status'] != 'ok']
    return 'measured' if not bad else 'failed: %s' % '; '.join('%s %s' % (r['config'], r['status']) for r in bad)


def model_stage(configs, path, quick):
    """model=1: tools/costmodel/calibrate.py on the run's configs (instructions of each, copy
    speeds and the shm floor of this machine) into path; returns the note."""
    say('bench: calibrating the cost model (tools/costmodel/calibrate.py)')
    rc, o, e = run_cmd([sys.executable, os.path.join(ROOT, 'tools', 'costmodel', 'calibrate.py'),
                        '--configs', ','.join(configs), '--out', path,
                        '--rounds', '1' if quick else '5'], timeout=1800)
    if rc != 0:
        return 'failed: calibrate.py exit %d: %s' % (rc, e.strip()[-300:])
    return 'calibrated on %s' % ', '.join(configs)


def floor_config(configs):
    """The config whose NIC the NIC model floor (nic_floor) runs: baseline when measured, else the first."""
    return 'baseline' if 'baseline' in configs else (configs[0] if configs else None)


def build_anchors(bindir, want_mpi, configs=()):
    """{anchor: None | reason it is skipped}; compiles shm_pingpong, nic_floor and the Open MPI twins."""
    res = {}
    os.makedirs(bindir, exist_ok=True)
    inc = ['-I' + os.path.join(ROOT, 'examples')]
    rc, o, e = run_cmd(['gcc'] + CFLAGS + inc + [os.path.join(HERE, 'shm_pingpong.c'),
                                                 '-o', os.path.join(bindir, 'shm_pingpong'), '-lrt'])
    res['shm'] = None if rc == 0 else 'shm_pingpong does not compile: ' + e.strip()[-300:]
    # the NIC model floor: below the public API on purpose (nic/ and the geometry of the config,
    # linked with that config's libcomm.a, just built)
    fc = floor_config(configs)
    if fc is None:
        res['nic'] = 'no config was built'
    else:
        b = os.path.join(ROOT, 'build', fc)
        rc, o, e = run_cmd(['gcc'] + CFLAGS + inc + [
            '-I' + os.path.join(ROOT, 'nic'), '-I' + os.path.join(ROOT, 'framework'),
            '-I' + os.path.join(b, 'include'), os.path.join(HERE, 'nic_floor.c'),
            '-o', os.path.join(bindir, 'nic_floor'), os.path.join(b, 'libcomm.a'), '-lpthread', '-lrt'])
        res['nic'] = None if rc == 0 else 'nic_floor does not compile against build/%s: %s' % (
            fc, e.strip()[-300:])
    if not want_mpi:
        res['openmpi'] = 'mpi=0'
        return res
    if not (shutil.which('mpirun.openmpi') and shutil.which('mpicc')):
        say('bench: Open MPI missing; installing openmpi-bin libopenmpi-dev with apt-get')
        run_cmd(['apt-get', 'install', '-y', 'openmpi-bin', 'libopenmpi-dev'], timeout=600)
    if not (shutil.which('mpirun.openmpi') and shutil.which('mpicc')):
        res['openmpi'] = 'Open MPI is not installed and apt-get could not install it'
        return res
    why = None
    mpidir = os.path.join(HERE, 'mpi')
    for b in bl.BENCHMARKS:
        if 'openmpi' not in b['anchors']:
            continue
        rc, o, e = run_cmd(['mpicc'] + CFLAGS + inc + ['-I' + mpidir,
                                                       os.path.join(mpidir, b['program'] + '.c'),
                                                       '-o', os.path.join(bindir, 'mpi_' + b['program'])])
        if rc != 0:
            why = 'tools/bench/mpi/%s.c does not compile: %s' % (b['program'], e.strip()[-300:])
    res['openmpi'] = why
    return res


def twin_path(bindir, target, program):
    """The MPI twin of program: <bindir>/mpi_<program> (Open MPI) or <bindir>/<config>/mpi_<program>."""
    if bl.is_mpi_target(target):
        return os.path.join(bindir, bl.config_of(target), 'mpi_' + program)
    return os.path.join(bindir, 'mpi_' + program)


def build_twins(configs, bindir):
    """Compile every MPI twin with each config's bin/mpicc into <bindir>/<config>/;
    {(<config>+mpi, benchmark): None | the reason it does not build}."""
    res = {}
    mpidir = os.path.join(HERE, 'mpi')
    for c in configs:
        mpicc = os.path.join(cfg_bin(c), 'mpicc')
        os.makedirs(os.path.join(bindir, c), exist_ok=True)
        for b in bl.BENCHMARKS:
            if not bl.has_twin(b):
                continue
            t = bl.mpi_target(c)
            if not os.access(mpicc, os.X_OK):
                res[(t, b['name'])] = 'the config has no bin/mpicc (MPI personality not built)'
                continue
            rc, o, e = run_cmd([mpicc] + CFLAGS + ['-I' + os.path.join(ROOT, 'examples'),
                                                   '-I' + mpidir, os.path.join(mpidir, b['program'] + '.c'),
                                                   '-o', twin_path(bindir, t, b['program'])])
            res[(t, b['name'])] = None if rc == 0 else (
                'tools/bench/mpi/%s.c does not build with bin/mpicc: %s'
                % (b['program'], ' '.join((e or o).strip().splitlines()[-2:])[-300:]))
            if rc != 0:
                say('bench: %s %s: %s' % (t, b['name'], res[(t, b['name'])]))
    return res


# ---------------------------------------------------------------- running one sweep
def segments(sizes):
    """Split sorted sizes into runs the examples sweep in one process (0, 1, 2, 4, ...)."""
    segs, cur = [], []
    for s in sizes:
        if cur and s == (1 if cur[-1] == 0 else cur[-1] * 2) and cur[-1] & (cur[-1] - 1) == 0:
            cur.append(s)
        else:
            if cur:
                segs.append(cur)
            cur = [s]
    if cur:
        segs.append(cur)
    return segs


def kill_group(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# commrun's own lines a failure's reason keeps, the first ones (the first names the node that
# failed; the rest are mostly the others killed after it)
FAILURE_LAUNCHER_LINES = 4


def failure_text(rc, errtext):
    """A failed run's reason from its stderr lines: the last line of each node's own ("[N] ...",
    by node; unprefixed lines count as one more source; valgrind's "==pid==" lines left out), then
    commrun's first lines -- so a node that died first is named beside the peer that saw it die."""
    last = {}
    for line in errtext:
        if not line.strip() or line.startswith('commrun:') or '==' in line[:12]:
            continue
        m = re.match(r'\[(\d+)\]', line)
        last[int(m.group(1)) if m else -1] = line
    launcher = [l for l in errtext if l.startswith('commrun:')][:FAILURE_LAUNCHER_LINES]
    parts = [last[k] for k in sorted(last)] + launcher
    return 'exit status %d: %s' % (rc, ' | '.join(parts) or 'no message')


def run_sweep(cmd, sizes, column, timeout, on_size, phases=None):
    """Run cmd (one process group), parse the OSU table; return ({size: value}, error or None).
    phases: a list that takes each --phases line of the sizes asked for (PHASES_COLUMNS' last seven)."""
    got, err = {}, None
    try:
        p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
    except OSError as e:
        return {}, 'cannot start %s: %s' % (os.path.basename(cmd[0]), e)
    deadline = time.time() + timeout
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ, 'out')
    sel.register(p.stderr, selectors.EVENT_READ, 'err')
    errtext, buf = [], {'out': '', 'err': ''}
    open_streams = 2
    while open_streams:
        left = deadline - time.time()
        if left <= 0:
            kill_group(p)
            err = 'timed out after %d s (the run\'s share of the time budget)' % timeout
            break
        for key, _ in sel.select(timeout=min(left, 1.0)):
            chunk = os.read(key.fileobj.fileno(), 65536).decode(errors='replace')
            if not chunk:
                sel.unregister(key.fileobj)
                open_streams -= 1
                continue
            buf[key.data] += chunk
            while '\n' in buf[key.data]:
                line, buf[key.data] = buf[key.data].split('\n', 1)
                if key.data == 'err':
                    errtext.append(line)
                    continue
                m = PHASES_RE.match(line) if phases is not None else None
                if m and int(m.group(1)) in sizes:
                    phases.append(dict(zip(PHASES_COLUMNS[2:], m.groups())))
                    continue
                m = LINE_RE.match(line)
                if m and m.group(column + 1) is not None:
                    got[int(m.group(1))] = float(m.group(column + 1))
                    on_size(int(m.group(1)))
    sel.close()
    try:
        rc = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        kill_group(p)
        rc = p.wait()
    kill_group(p)   # nothing of the job may outlive it
    if err is None and rc != 0:
        err = failure_text(rc, errtext)
    got = {s: v for s, v in got.items() if s in sizes}
    if err is None and len(got) < len(sizes):
        err = 'no figure for size(s) %s' % ', '.join(str(s) for s in sizes if s not in got)
    return got, err


def bench_cmd(target, bench, seg, args, bindir, timeout, quick=False, bind='core'):
    rng = ['-s', '%d:%d' % (seg[0], seg[-1])]
    cbind = ['--bind', bind]
    if target == 'shm':
        # the floor under a stream: the same program's ring of mailboxes (--stream)
        mode = ['--stream'] if bench['name'] == 'stream' else []
        return [os.path.join(bindir, 'shm_pingpong')] + cbind + mode + rng + args
    if target == 'nic':
        # msgrate's windows (--rate) or the ping-pong
        mode = ['--rate'] if bench['name'] == 'msgrate' else []
        return [os.path.join(bindir, 'nic_floor')] + cbind + mode + rng + args
    if target == 'openmpi':
        return MPIRUN + ['--bind-to', bind] + [twin_path(bindir, target, bench['program'])] + \
            rng + args
    b = cfg_bin(bl.config_of(target))
    pb = bl.personality_bench(target, bench['name'])
    if pb:
        # a personality's own program: its own arguments for the sizes (the bench's -i/-w/--window
        # are the native programs'), under the config's commrun
        prog = os.path.join(os.path.dirname(b), 'examples', pb['p'], pb['program'])
        return (['env'] + pb['env'] if pb['env'] else []) + \
            [os.path.join(b, 'commrun'), '-n', str(bench['nodes']), '--timeout', str(timeout)] + \
            cbind + [prog] + pb['args'](seg[0], seg[-1], quick)
    if bl.is_mpi_target(target):
        # the config's own mpirun: -n N, then commrun's options (its --timeout) and the program
        return [os.path.join(b, 'mpirun'), '-n', str(bench['nodes']), '--timeout', str(timeout)] + \
            cbind + [twin_path(bindir, target, bench['program'])] + rng + args
    return [os.path.join(b, 'commrun'), '-n', str(bench['nodes']), '--timeout', str(timeout)] + \
        cbind + [os.path.join(b, bench['program'])] + rng + args


SINK_RE = re.compile(r'sink ok:.*checked, ([0-9.]+) MB/s')

# The placement probe (bl.PLACE_CSV): the shm floor's 8 B ping-pong, short -- a few ms with its
# start -- so that one between every two runs of a round costs a second or two a round.
PROBE_ARGS = ['-s', '8:8', '-i', '2000', '-w', '100']


def probe_placement(bindir, bind):
    """The shm floor's 8 B one-way time now (us), or None when the probe failed: where the
    host has put the job's vCPUs, just before or after a run (bl.attach_places)."""
    try:
        rc, out, _ = run_cmd([os.path.join(bindir, 'shm_pingpong'), '--bind', bind] + PROBE_ARGS,
                             timeout=30)
    except subprocess.TimeoutExpired:
        return None
    for line in out.splitlines() if rc == 0 else []:
        m = LINE_RE.match(line)
        if m and int(m.group(1)) == 8:
            return float(m.group(2))
    return None


def seed_filter_round(configs, rnd, quick, rows):
    """One round of seed 001's filter experiment (bl.SEED_FILTER) on every config."""
    sf = bl.SEED_FILTER
    for c in configs:
        t = bl.personality_target(c, sf['personality'])
        ex = os.path.join(os.path.dirname(cfg_bin(c)), 'examples', sf['personality'])
        for size in (sf['quick_sizes'] if quick else sf['sizes']):
            count = str(max(100, sf['mbytes'] * 1000000 // size))
            for nbuf in sf['buffers']:
                src, flt, snk = (os.path.join(ex, x) for x in sf['programs'])
                cmd = [os.path.join(cfg_bin(c), 'commrun'), '--timeout', '60',
                       '-n', '1', src, str(size), count, ':', '-n', '1', flt, str(nbuf), str(size),
                       count, ':', '-n', '1', snk, str(size), count]
                progress.show('round %d  %-16s %s %d buffer(s) %s' % (rnd, t, sf['name'], nbuf,
                                                                     bl.fmt_size(size)), [], plain=False)
                try:
                    rc, out, err = run_cmd(cmd, timeout=90)
                except subprocess.TimeoutExpired:
                    rc, out, err = -1, '', 'timed out'
                m = SINK_RE.search(out + err)
                ok = rc == 0 and m is not None
                why = failure_text(rc, (out + err).splitlines()) if not ok else None
                rows.append(dict(config=t, benchmark=bl.seed_filter_bench(nbuf), size=size, round=rnd,
                                 value=float(m.group(1)) if ok else None, unit=sf['unit'],
                                 status='ok' if ok else 'failed: %s' % why))
                if not ok:
                    say('bench: FAILED %s %s size %d: %s' % (t, bl.seed_filter_bench(nbuf), size, why))


# ---------------------------------------------------------------- callgrind
def callgrind_job(launcher, prog, args, toggles, tag, workdir):
    """Run prog with launcher's argv before it (commrun or mpirun, with --stats) under callgrind on
    both nodes, collecting only inside the functions `toggles` (each entry and exit toggles
    collection, so a toggle nested in another leaves that callee out); (stdout, [out file of
    node 0, node 1], None) or (None, None, the reason it failed)."""
    os.makedirs(workdir, exist_ok=True)
    outpat = os.path.join(workdir, 'callgrind.%s.%%q{LC_NODE}.out' % tag)
    cmd = launcher + ['valgrind', '--tool=callgrind', '--callgrind-out-file=' + outpat] + \
        ['--toggle-collect=' + f for f in toggles] + [prog] + args
    try:
        rc, o, e = run_cmd(cmd, timeout=330)
    except subprocess.TimeoutExpired:
        return None, None, 'callgrind run timed out'
    except OSError as e:
        return None, None, 'cannot start %s: %s' % (os.path.basename(launcher[0]), e)
    if rc != 0:
        return None, None, 'callgrind run exited %d: %s' % (rc, e.strip().splitlines()[-1:] or '')
    paths = [outpat.replace('%q{LC_NODE}', str(node)) for node in (0, 1)]
    for path in paths:
        if not os.path.isfile(path):
            return None, None, 'no callgrind output %s' % path
    return o, paths, None


def callgrind_file(path):
    """(total Ir, {function: calls}, {function: inclusive Ir of those calls}) of one callgrind
    output file, over what was collected; a compiler clone (f.part.0, f.constprop.0) counts as f."""
    ids, calls, incl = {}, {}, {}
    total, npos, cfn, after_calls = None, 1, None, False

    def name(v):
        m = re.match(r'\((\d+)\)(?:\s+(.*))?$', v.strip())
        if not m:
            return v.strip().split('.')[0]
        if m.group(2):
            ids[m.group(1)] = m.group(2).split('.')[0]
        return ids.get(m.group(1), '?')
    with open(path) as f:
        for line in f:
            if after_calls:     # the line after calls= holds the positions then the call's cost
                t = line.split()
                incl[cfn] = incl.get(cfn, 0) + (int(t[npos]) if len(t) > npos else 0)
                after_calls = False
            elif line.startswith('positions:'):
                npos = len(line.split()) - 1
            elif line.startswith(('summary:', 'totals:')):
                total = int(line.split()[1])
            elif line.startswith('fn='):
                name(line[3:])
            elif line.startswith('cfn='):
                cfn = name(line[4:])
            elif line.startswith('calls='):
                calls[cfn] = calls.get(cfn, 0) + int(line[6:].split()[0])
                after_calls = True
    return total, calls, incl


def scale_jobs():
    """(nodes, active pairs, label) of the scaling stage: every pair of each size, then one active
    pair among the idle nodes of each size above 2."""
    return [(n, n // 2, '%d nodes, %d pairs' % (n, n // 2)) for n in SCALE_NODES] + \
        [(n, 1, '%d nodes, 1 pair (%d idle)' % (n, n - 2)) for n in SCALE_NODES if n > 2]


def scale_sweep(cfg, rounds, bind, workdir, quick):
    """Rows (nodes, pairs, benchmark, round, value, unit, status) of the scaling stage on cfg:
    callgrind once per job (instructions of node 0: lc_send per message, lc_progress_locked per
    call), then `rounds` interleaved rounds of pingpong (mean one-way latency of the pairs) and
    msgrate (their summed rate), 8 B."""
    b = cfg_bin(cfg)
    out = []
    iters = 200 if quick else 2000
    for n, k, label in scale_jobs():
        say('bench: scale: callgrind %s, %s' % (cfg, label))
        os.makedirs(workdir, exist_ok=True)
        outpat = os.path.join(workdir, 'scale.%d.%d.%%q{LC_NODE}.out' % (n, k))
        cmd = [os.path.join(b, 'commrun'), '-n', str(n), '--timeout', '600', 'valgrind',
               '--tool=callgrind', '--callgrind-out-file=' + outpat, os.path.join(b, 'pingpong'),
               '-s', '8:8', '-i', str(iters), '-w', '10', '--pairs', str(k)]
        err = None
        try:
            rc, o, e = run_cmd(cmd, timeout=660)
            if rc != 0:
                err = 'callgrind run exited %d: %s' % (rc, e.strip().splitlines()[-1:] or '')
        except subprocess.TimeoutExpired:
            err = 'callgrind run timed out'
        vals = {}
        if err is None:
            _, calls, incl = callgrind_file(outpat.replace('%q{LC_NODE}', '0'))
            for f, name in (('lc_send', 'send_ir'), ('lc_progress_locked', 'poll_ir')):
                if calls.get(f):
                    vals[name] = incl[f] / calls[f]
            vals['polls'] = calls.get('lc_progress_locked', 0) / max(1, calls.get('lc_send', 1))
        for name, unit in (('send_ir', 'Ir/msg'), ('poll_ir', 'Ir/poll'), ('polls', 'polls/msg')):
            v = vals.get(name)
            out.append(dict(nodes=n, pairs=k, benchmark=name, round=1, value=v, unit=unit,
                            status='ok' if v is not None else 'failed: ' + (err or 'no such call')))
    for rnd in range(1, rounds + 1):
        for n, k, label in scale_jobs():
            for prog, col, unit, args in (('pingpong', 1, 'us', ['-i', '2000' if quick else '20000',
                                                                  '-w', '1000']),
                                          ('msgrate', 2, 'msgs/s', ['-i', '20' if quick else '200'])):
                say('bench: scale: round %d/%d %s %s' % (rnd, rounds, prog, label))
                cmd = [os.path.join(b, 'commrun'), '-n', str(n), '--timeout', '120', '--bind',
                       bind, os.path.join(b, prog), '-s', '8:8', '--pairs', str(k)] + args
                got, err = run_sweep(cmd, [8], col, 130, lambda s: None)
                out.append(dict(nodes=n, pairs=k, benchmark=prog, round=rnd, value=got.get(8),
                                unit=unit, status='ok' if 8 in got else 'failed: ' + (err or 'no figure')))
    return out


SCALE_COLUMNS = ['nodes', 'pairs', 'benchmark', 'round', 'value', 'unit', 'status']


def callgrind(cfg, size, iters, workdir):
    """Instructions of lc_tx_frame + lc_rx_frame (inclusive) per message, both nodes; (value, err)."""
    b = cfg_bin(cfg)
    o, paths, err = callgrind_job([os.path.join(b, 'commrun'), '-n', '2', '--stats', '--timeout',
                                   '300'], os.path.join(b, 'pingpong'),
                                  ['-s', '%d:%d' % (size, size), '-i', str(iters), '-w', '10'],
                                  ['lc_tx_frame', 'lc_rx_frame'], '%s.%d' % (cfg, size), workdir)
    if err:
        return None, err
    msgs = stats_totals(o).get('tx_msgs')
    if not msgs:
        return None, 'commrun --stats printed no tx_msgs'
    ir = 0
    for path in paths:
        total = callgrind_file(path)[0]
        if total is None:
            return None, 'no totals in %s' % path
        ir += total
    return ir / msgs, None


# The blocking send and receive calls of the two ping-pong programs at 8 B (instr_api): the native
# example's and its MPI twin's.  The wait loop both reach (lc_wait_held: lc_wait, and the native
# blocking calls' own wait) polls for as long as the peer takes, so its count is timing: it is left out, and the calls it makes once per message whatever the timing
# (the frame received, the request finished) are put back.
API_CALLS = {'native': ('lc_send', 'lc_recv'), 'mpi': ('MPI_Send', 'MPI_Recv')}
API_WAIT = 'lc_wait_held'   # every blocking wait's polling loop (lc_wait, lc_send, lc_recv, ...)
API_PUT_BACK = ('lc_rx_frame', 'lc_finish')
# Repeats of each instr_api count, recorded as rounds 1..N: the baseline's repeats to the
# instruction; a protocol's acks, handled inside the calls or inside the wait as they happen to
# arrive, move it by tens to hundreds of Ir (reliable on a loaded machine, 500 round trips:
# 1573-1613 native, 1776-1888 via MPI).
API_REPEATS = 3


def callgrind_api(target, bindir, iters, workdir):
    """Ir per message of the program's blocking send + receive calls (both nodes, collected only
    inside them), less the wait loop (API_WAIT), plus its API_PUT_BACK calls; messages = calls of the send
    function.  target is a config (examples/pingpong.c) or <config>+mpi (the MPI twin); (value, err)."""
    cfg, mpi = bl.config_of(target), bl.is_mpi_target(target)
    b = cfg_bin(cfg)
    send, recv = API_CALLS['mpi' if mpi else 'native']
    if mpi:
        launcher, prog = [os.path.join(b, 'mpirun'), '-n', '2'], twin_path(bindir, target, 'pingpong')
    else:
        launcher, prog = [os.path.join(b, 'commrun'), '-n', '2'], os.path.join(b, 'pingpong')
    o, paths, err = callgrind_job(launcher + ['--timeout', '300'], prog,
                                  ['-s', '8:8', '-i', str(iters), '-w', '10'], [send, recv],
                                  'api.%s' % target, workdir)
    if err:
        return None, err
    ir = msgs = 0
    for path in paths:
        total, calls, incl = callgrind_file(path)
        for fn in (send, API_WAIT) + API_PUT_BACK:
            if not calls.get(fn):
                return None, ('no call of %s in %s (inlined, or renamed?): the count would be '
                              'wrong' % (fn, os.path.basename(path)))
        ir += total - incl[API_WAIT] + sum(incl.get(fn, 0) for fn in API_PUT_BACK)
        msgs += calls[send]
    return ir / msgs, None


# ---------------------------------------------------------------- fault sweep
def fault_sweep(configs, cjs, bindir, rows, note):
    """Goodput and latency of reliable configs under drop; says plainly why it cannot run."""
    reliable = [c for c in configs if 'reliability' in active_protocols(cjs.get(c))]
    commrun = os.path.join(cfg_bin((configs or ['baseline'])[0]), 'commrun')
    helptext = ''
    if os.access(commrun, os.X_OK):
        _, o, e = run_cmd([commrun, '--help'])
        helptext = o + e
    reasons = []
    if not reliable:
        reasons.append('no config with the reliability protocol was built (the reliability '
                       'protocol is not implemented yet, or no reliable config was selected)')
    if '--faults' not in helptext:
        reasons.append('commrun has no --faults option (the fault injector is not built yet)')
    if reasons:
        note['faults'] = 'skipped: ' + '; '.join(reasons)
        say('bench: fault sweep skipped: ' + '; '.join(reasons))
        return
    note['faults'] = 'ran on %s' % ', '.join(reliable)
    for c in reliable:
        b = cfg_bin(c)
        for drop in FAULT_DROPS:
            spec = 'drop=%g,seed=7' % drop
            pct = drop * 100
            for bench, prog, size, col, unit in (('fault_goodput', 'stream', 65536, 1, 'MB/s'),
                                                 ('fault_latency', 'pingpong', 8, 1, 'us')):
                args = ['-i', '5', '-w', '1'] if prog == 'stream' else ['-i', '200', '-w', '20']
                cmd = [os.path.join(b, 'commrun'), '-n', '2', '--faults', spec, '--timeout', '120',
                       os.path.join(b, prog), '-s', '%d:%d' % (size, size)] + args
                say('bench: faults %s %s drop %g%%' % (c, prog, pct))
                got, err = run_sweep(cmd, [size], col, 130, lambda s: None)
                # the "size" column of a fault row is the drop rate in parts per thousand
                rows.append(dict(config=c, benchmark=bench, size=int(round(drop * 1000)), round=1,
                                 value=got.get(size) if not err else None, unit=unit,
                                 status='ok' if not err else 'failed: ' + err))


# ---------------------------------------------------------------- outputs
def write_tables(outdir, rows, targets):
    tdir = os.path.join(outdir, 'tables')
    os.makedirs(tdir, exist_ok=True)
    allcells = bl.cells(rows)
    failed = {}
    for r in rows:
        if r['status'] != 'ok':
            failed.setdefault((r['config'], r['benchmark'], r['size']), r['status'])
    for t in targets:
        for b in bl.BENCHMARKS + [bl.INSTR, bl.INSTR_API]:
            sizes = sorted({r['size'] for r in rows if r['config'] == t and r['benchmark'] == b['name']})
            if not sizes:
                continue
            path = os.path.join(tdir, '%s.%s.txt' % (t, b['name']))
            with open(path, 'w') as f:
                f.write('# %s %s (median over rounds, [min, max], n rounds)\n' % (t, b['name']))
                head = b.get('header', '# Size  Instructions per message (Ir/msg)')
                f.write('%s  [min  max]  n\n' % head)
                for s in sizes:
                    c = allcells.get((t, b['name'], s))
                    if c:
                        f.write('%-12d%16.2f  [%.2f  %.2f]  %d\n' % (s, c['median'], c['min'],
                                                                    c['max'], c['n']))
                    else:
                        f.write('%-12d%16s  %s\n' % (s, 'FAILED', failed.get((t, b['name'], s), '')))


def write_csv(path, rows):
    with open(path, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=bl.CSV_COLUMNS)
        w.writeheader()
        for r in rows:
            d = dict(r)
            d['value'] = '' if r['value'] is None else repr(float(r['value']))
            w.writerow({k: d[k] for k in bl.CSV_COLUMNS})


def link_latest(outdir):
    latest = os.path.join(ROOT, 'build', 'bench', 'latest')
    tmp = latest + '.tmp'
    try:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(os.path.basename(outdir), tmp)
        os.replace(tmp, latest)
    except OSError as e:
        say('bench: cannot update build/bench/latest: %s' % e)


# ---------------------------------------------------------------- main
def main(argv):
    t0 = time.time()
    o = parse_args(argv)
    stamp = datetime.datetime.now().strftime('%Y%m%d-%H%M%S')
    outdir = o['out'] or os.path.join(ROOT, 'build', 'bench', stamp)
    os.makedirs(outdir, exist_ok=True)
    bindir = os.path.join(outdir, 'bin')
    note = {}

    chosen = select_configs(o['configs'])
    configs = [c for c, why in chosen if why is None]
    skipped = {c: why for c, why in chosen if why}
    for c, why in skipped.items():
        say('bench: skipping config %s: %s' % (c, why))
    built = build_configs(configs, o['build'])
    for c, why in built.items():
        if why:
            say('bench: config %s: %s' % (c, why))
            skipped[c] = why
    configs = [c for c in configs if not built.get(c)]
    for c in list(configs):
        why = snapshot(c, outdir)
        if why:
            say('bench: config %s: %s' % (c, why))
            skipped[c] = why
            configs.remove(c)
    cjs = {c: config_json(c) for c in configs}
    anchors = build_anchors(bindir, o['mpi'], configs)
    for a, why in anchors.items():
        if why:
            say('bench: anchor %s skipped: %s' % (a, why))
    live_anchors = [a for a in bl.ANCHORS if anchors.get(a) is None]
    # the MPI series: every twin built with each config's bin/mpicc; one that does not build is
    # a failed cell with the reason in every round, never left out
    twins = build_twins(configs, bindir)
    mpi_targets = [bl.mpi_target(c) for c in configs]
    if not configs:
        say('bench: no config could be built; nothing to measure')

    rows = []
    prows = []   # msgrate's --phases lines (phases.csv)
    # instructions per message: once per config, from a fixed-count callgrind run
    have_vg = shutil.which('valgrind') is not None
    isizes = [8] if o['quick'] else [8, 65536]
    for c in configs:
        for s in isizes:
            say('bench: callgrind %s %s' % (c, bl.fmt_size(s)))
            if have_vg:
                v, err = callgrind(c, s, 100 if o['quick'] or s > 8192 else 500,
                                   os.path.join(outdir, 'callgrind'))
            else:
                v, err = None, 'valgrind is not installed'
            rows.append(dict(config=c, benchmark='instr', size=s, round=1, value=v,
                             unit=bl.INSTR['unit'], status='ok' if err is None else 'failed: ' + err))
            if err:
                say('bench: FAILED callgrind %s: %s' % (c, err))
    # the blocking calls of the ping-pong at 8 B, native and through the MPI personality
    for t in [x for c in configs for x in (c, bl.mpi_target(c))]:
        # quick=1 checks that every stage runs: one repeat, one scaling round
        reps = 1 if o['quick'] else API_REPEATS
        say('bench: callgrind %s send + receive calls, 8 B (%d times)' % (t, reps))
        for rep in range(1, reps + 1):
            err = twins.get((t, 'pingpong'))
            if err:
                v = None
            elif have_vg:
                v, err = callgrind_api(t, bindir, 100 if o['quick'] else 500,
                                       os.path.join(outdir, 'callgrind'))
            else:
                v, err = None, 'valgrind is not installed'
            rows.append(dict(config=t, benchmark=bl.INSTR_API['name'], size=8, round=rep, value=v,
                             unit=bl.INSTR_API['unit'],
                             status='ok' if err is None else 'failed: ' + err))
            if err:
                say('bench: FAILED callgrind %s: %s' % (t, err))

    timeout = 120 if o['quick'] else 300
    # the plan of one round: for each benchmark, every config followed by its MPI series, then
    # every anchor
    plan = []
    for b in bl.BENCHMARKS:
        sizes = [s for s in o['sizes'] if s >= b['min_size'] and
                 (b['max_size'] is None or s <= b['max_size'])]
        if not sizes:
            continue
        for t in bl.targets_of(b, configs, live_anchors):
            c = bl.config_of(t)
            if c in configs and not bl.applies(b, active_protocols(cjs.get(c))):
                continue
            if bl.personality_of(t):
                # its own program sizes its own window (bl.PERSONALITY_BENCH)
                plan.append((b, t, bl.sizes_of(b, t, sizes), []))
                continue
            mr = ((cjs.get(c) or {}).get('config') or {}).get('host', {}).get('max_requests')
            w = bl.window_for(b, mr, bl.is_mpi_target(t))
            if w is not None and w != bl.WINDOW:
                note.setdefault('windows', {})['%s %s' % (t, b['name'])] = (
                    'window %d instead of %d: host.max_requests = %s' % (w, bl.WINDOW, mr))
                say('bench: %s %s: window %d (host.max_requests = %s)' % (t, b['name'], w, mr))
            # an anchor may stop below the benchmark's largest size (bl.ANCHOR_MAX_SIZE)
            sizes_t = bl.sizes_of(b, t, sizes)
            if sizes_t:
                plan.append((b, t, sizes_t, [] if w is None else ['--window', str(w)]))
    progress.total = len(plan) * o['rounds']
    rounds_done = 0
    # each run's placement, probed before it and after it (the next run's before): bl.PLACE_CSV
    probe = 'shm' in live_anchors
    place_rows = []
    for rnd in range(1, o['rounds'] + 1):
        if rnd > 1 and o['budget']:
            per_round = (time.time() - t_rounds) / (rnd - 1)
            if time.time() - t0 + per_round > o['budget']:
                note['rounds'] = ('stopped after %d of %d rounds: one more (about %d s) would '
                                  'pass the %d s budget' % (rnd - 1, o['rounds'], per_round,
                                                            o['budget']))
                say('bench: ' + note['rounds'])
                break
        elif rnd == 1:
            t_rounds = time.time()
        rounds_done = rnd
        before = probe_placement(bindir, o['bind']) if probe else None
        for i, (b, t, sizes, wargs) in enumerate(plan):
            args = (b['quick'] if o['quick'] else b['full']) + wargs
            later = [progress.spent.get((p[0]['name'], p[1])) for p in plan]
            remaining = later[i:] + later * (o['rounds'] - rnd)
            label = 'round %d/%d  %-16s %-9s' % (rnd, o['rounds'], t, b['name'])
            progress.show(label, remaining)
            start = time.time()
            limit = timeout
            if o['budget']:
                # share what is left of the budget among the runs left in this round, so that
                # even one slow round cannot overrun it; sizes not reached say so
                left = t0 + o['budget'] - 30 - time.time()
                limit = int(min(timeout, max(15, left / (len(plan) - i))))
            ph = [] if wants_phases(t, b) else None
            for seg in segments(sizes):
                got, err = {}, twins.get((t, b['name']))
                if err is None:
                    cmd = bench_cmd(t, b, seg, args + (['--phases'] if ph is not None else []),
                                    bindir, limit, o['quick'], o['bind'])
                    got, err = run_sweep(cmd, seg, b['column'], limit,
                                         lambda s, lab=label, rem=remaining:
                                         progress.show('%s size %s' % (lab, bl.fmt_size(s)), rem,
                                                       plain=False), ph)
                for s in seg:
                    ok = s in got
                    rows.append(dict(config=t, benchmark=b['name'], size=s, round=rnd,
                                     value=got[s] if ok else None, unit=b['unit'],
                                     status='ok' if ok else 'failed: ' + (err or 'no figure')))
                if err:
                    say('bench: FAILED %s %s round %d sizes %s..%s: %s'
                        % (t, b['name'], rnd, seg[0], seg[-1], err))
            prows += [dict(p, config=t, round=rnd) for p in ph or []]
            progress.spent.setdefault((b['name'], t), time.time() - start)
            progress.done += 1
            if probe:
                after = probe_placement(bindir, o['bind'])
                place_rows.append(dict(round=rnd, config=t, benchmark=b['name'],
                                       before='' if before is None else before,
                                       after='' if after is None else after))
                before = after
        # seed 001's own experiment, in the same round (the CSN personality over each config)
        if os.path.isdir(os.path.join(ROOT, 'personalities', bl.SEED_FILTER['personality'])):
            seed_filter_round(configs, rnd, o['quick'], rows)

    if place_rows:
        with open(os.path.join(outdir, bl.PLACE_CSV), 'w', newline='') as f:
            w = csv.DictWriter(f, fieldnames=bl.PLACE_COLUMNS)
            w.writeheader()
            w.writerows(place_rows)

    # where msgrate's windows wait, on each node (report.md reads it)
    if prows:
        with open(os.path.join(outdir, 'phases.csv'), 'w', newline='') as f:
            w = csv.DictWriter(f, fieldnames=PHASES_COLUMNS)
            w.writeheader()
            w.writerows(prows)

    # broadcast latency: only where multicast is active (examples/bcast.c falls back to sends elsewhere)
    bcast = {}
    for c in configs:
        if not bl.applies(bl.BENCH['bcast'], active_protocols(cjs.get(c))):
            bcast[c] = 'skipped: multicast is not active in this config'
        elif not os.access(os.path.join(cfg_bin(c), 'bcast'), os.X_OK):
            bcast[c] = 'failed: examples/bcast.c did not build for this config'
        else:
            bcast[c] = 'measured (%d nodes)' % bl.BENCH['bcast']['nodes']
    note['broadcast'] = bcast

    if o['faults']:
        fault_sweep(configs, cjs, bindir, rows, note)
    else:
        note['faults'] = 'not requested (faults=1 runs it)'
    progress.clear()

    # scaling with peers: the first config (preset=small: baseline)
    if o['scale'] and configs:
        srows = scale_sweep(configs[0], 1 if o['quick'] else SCALE_ROUNDS, o['bind'],
                            os.path.join(outdir, 'callgrind'), o['quick'])
        with open(os.path.join(outdir, 'scale.csv'), 'w', newline='') as f:
            w = csv.DictWriter(f, fieldnames=SCALE_COLUMNS)
            w.writeheader()
            for r in srows:
                w.writerow(dict(r, value='' if r['value'] is None else repr(float(r['value']))))
        note['scale'] = configs[0]
    progress.clear()

    if o['crc']:
        note['crc'] = crc_stage(bindir, os.path.join(outdir, 'crc.csv'), o['quick'])
    progress.clear()

    if o['copies']:
        note['copies'] = copies_stage(configs, os.path.join(outdir, 'copies.csv'))
    progress.clear()

    if o['model']:
        note['model'] = model_stage(configs, os.path.join(outdir, 'costmodel.json'), o['quick'])
    progress.clear()

    # outputs
    csv_path = os.path.join(outdir, 'results.csv')
    write_csv(csv_path, rows)
    ptargets = [bl.personality_target(c, p) for c in configs for p in bl.personalities()]
    write_tables(outdir, rows, configs + mpi_targets + ptargets + live_anchors)
    meta = dict(timestamp=stamp, rounds=rounds_done, quick=o['quick'], sizes=o['sizes'],
                seconds_per_run={'%s %s' % k: round(v, 2) for k, v in progress.spent.items()},
                host=os.uname().nodename, cpus=os.cpu_count(),
                configs=configs, anchors={a: anchors.get(a) for a in bl.ANCHORS},
                mpi_targets=mpi_targets, personality_targets=ptargets,
                mpi_twins={'%s %s' % k: v for k, v in sorted(twins.items())},
                instr_api=dict(calls=API_CALLS, wait=API_WAIT, put_back=list(API_PUT_BACK)),
                skipped=skipped, notes=note, mpirun=' '.join(MPIRUN + ['--bind-to', o['bind']]),
                bind=o['bind'], nic_floor=floor_config(configs),
                benchmarks=[{k: v for k, v in b.items() if k != 'anchors'} for b in bl.BENCHMARKS])
    summary = [dict(config=k[0], benchmark=k[1], size=k[2], **v)
               for k, v in sorted(bl.cells(rows).items())]
    doc = dict(meta=meta, resolved_configs=cjs, measurements=[dict(r) for r in rows],
               cells=summary)
    with open(os.path.join(outdir, 'results.json'), 'w') as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    plot_err = plots.make_all(outdir, bl.load_csv(csv_path), configs, live_anchors, mpi_targets)
    for e in plot_err:
        say('bench: plot: ' + e)
    wall = time.time() - t0
    meta['wall_seconds'] = round(wall, 1)
    with open(os.path.join(outdir, 'results.json'), 'w') as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    report.write(outdir, csv_path, meta, cjs)
    link_latest(outdir)
    nfail = sum(1 for r in rows if r['status'] != 'ok')
    say('bench: %d measurements, %d failed cells; outputs in %s (build/bench/latest)'
        % (len(rows), nfail, os.path.relpath(outdir, ROOT)))
    say('bench: wall time %dm%02ds' % (wall // 60, wall % 60))
    if o['quick']:
        import check_outputs
        return check_outputs.main([outdir])
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        progress.clear()
        sys.exit('bench: interrupted')
