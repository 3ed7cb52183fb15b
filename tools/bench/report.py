# SPDX-License-Identifier: MIT
# report.md of the benchmark matrix: every figure is computed here from results.csv (no hand-written numbers).
import csv
import json
import os
import sys

import benchlib as bl

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Size ranges of "fastest config per size range": (label, lowest, highest).
RANGES = [('0 B – 256 B', 0, 256), ('512 B – 8 KiB', 512, 8192),
          ('16 KiB – 256 KiB', 16384, 262144), ('512 KiB – 4 MiB', 524288, 4 << 20)]
# Sizes of the distance-to-anchors table (latency) and of the bandwidth ratios.
LAT_POINTS = [8, 1024, 65536, 1 << 20]
BW_POINTS = [65536, 1 << 20]

SECTIONS = ['## Run', '## Fastest configuration per size range', '## Cost of each configuration '
            'and protocol against baseline', '## Peak bandwidth and n½',
            '## Distance to the shm floor and to Open MPI', '## Failed cells', '## Broadcast and fault sweep',
            '## MPI personality vs native API', '## The seeds\' personalities (CSN, ATLAS) vs native API',
            '## The seeds\' own tables, reproduced', '## Small-message targets',
            '## Where the message rate waits', '## Scaling with peers', '## CRC32C against memcpy',
            '## The cost model beside the measurements', '## The advisor beside the measurements',
            '## Large-message targets (rendezvous)']
MPI_SECTION = SECTIONS[7]
PERS_SECTION = SECTIONS[8]
SEED_SECTION = SECTIONS[9]
TARGET_SECTION = SECTIONS[10]
PHASES_SECTION = SECTIONS[11]
SCALE_SECTION = SECTIONS[12]
CRC_SECTION = SECTIONS[13]
MODEL_SECTION = SECTIONS[14]
ADVISE_SECTION = SECTIONS[15]
LARGE_SECTION = SECTIONS[16]
# The small-message targets: (what, numerator series, denominator series, benchmark, sizes, bound,
# 'le' (ratio at most bound) or 'ge' (at least)).  Each is judged on the per-round ratios of the
# two series in the same round (their median; the worst size's where there are several), and
# `scons bench preset=small` measures every one of them.
SMALL_SIZES = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256]
TARGETS = [
    ('`baseline` 8 B latency vs Open MPI', 'baseline', 'openmpi', 'pingpong', [8], 1.0, 'le'),
    ('`baseline` 8 B latency vs the shm floor', 'baseline', 'shm', 'pingpong', [8], 3.0, 'le'),
    ('`baseline` latency vs Open MPI, every size 0-256 B', 'baseline', 'openmpi', 'pingpong',
     SMALL_SIZES, 1.0, 'le'),
    ('`baseline` 8 B message rate vs Open MPI (window 64)', 'baseline', 'openmpi', 'msgrate', [8],
     1.0, 'ge'),
    ('`checksum` 64 KiB latency vs `baseline`', 'checksum', 'baseline', 'pingpong', [65536], 1.3, 'le'),
    ('`reliable` 64 KiB latency vs `baseline`', 'reliable', 'baseline', 'pingpong', [65536], 1.3, 'le'),
    ('`reliable` 1 MiB stream bandwidth vs `baseline`', 'reliable', 'baseline', 'stream', [1 << 20],
     0.8, 'ge'),
    ('`reliable` 8 B latency vs `baseline`', 'reliable', 'baseline', 'pingpong', [8], 1.15, 'le'),
    ('MPI personality (`baseline+mpi`) 8 B latency vs Open MPI', 'baseline+mpi', 'openmpi',
     'pingpong', [8], 1.0, 'le'),
    ('VIPL (`baseline+vipl`, one data segment) 8 B latency vs the native API', 'baseline+vipl',
     'baseline', 'pingpong', [8], 1.10, 'le'),
]

# The large-message targets (rendezvous: three copies instead of four), as TARGETS; `scons bench
# preset=large` measures every one of them, and its copies=1 stage the copies per delivered byte
# (LARGE_COPIES: config, size, the bound on bytes moved per payload byte delivered).
LARGE_TARGETS = [
    ('`rendezvous` 1 MiB stream bandwidth vs `baseline`', 'rendezvous', 'baseline', 'stream', [1 << 20],
     1.3, 'ge'),
    ('`rendezvous` 16 MiB stream bandwidth vs `baseline`', 'rendezvous', 'baseline', 'stream',
     [16 << 20], 1.3, 'ge'),
    ('`rendezvous` 1 MiB stream bandwidth vs Open MPI', 'rendezvous', 'openmpi', 'stream', [1 << 20],
     1.0, 'ge'),
    ('`rendezvous` 16 MiB stream bandwidth vs Open MPI', 'rendezvous', 'openmpi', 'stream', [16 << 20],
     1.0, 'ge'),
    ('`rendezvous` latency vs `baseline`, every size 4-64 KiB', 'rendezvous', 'baseline', 'pingpong',
     [4096, 8192, 16384, 32768, 65536], 1.0, 'le'),
]
LARGE_COPIES = [('baseline', 1 << 20, 4.0), ('rendezvous', 1 << 20, 3.0)]
# The counters a byte's copies are read from (commrun --stats, both nodes summed): the Tx DMA
# engine, the wire (headers included) -- a sender's own Net-Send, or the receiver's Net-Send pulling
# the frame (docs/internals.md, "A link engine either side may run") -- the Rx DMA engine and the
# host's own copies.
COPY_COUNTERS = ['dma_to_nic_bytes', 'net_tx_bytes', 'net_pull_bytes', 'dma_to_host_bytes', 'host_copy_bytes']


def target_rows(rows, targets=None):
    """One dict per target (TARGETS unless given): its verdict ('met', 'not met', 'not measured'),
    ok (the median within the bound; None when not measured), the judged size, the per-round
    ratios' summary there."""
    out = []
    for what, a, b, bench, sizes, bound, how in (TARGETS if targets is None else targets):
        worst = None
        for sz in sizes:
            x = bl.summarise(bl.round_ratios(rows, a, b, bench, sz))
            if x is None:
                continue
            bad = x['median'] if how == 'le' else -x['median']
            if worst is None or bad > worst[0]:
                worst = (bad, sz, x)
        if worst is None:
            moved = any(bl.unpaired_rounds(rows, a, b, bench, sz) for sz in sizes)
            out.append(dict(what=what, verdict='not measured', ok=None, size=None, x=None, bound=bound, how=how,
                            why='no round measured both `%s` and `%s` (%s)%s' % (
                                a, b, bench, ' in one placement' if moved else '')))
            continue
        x = worst[2]
        ok = x['median'] <= bound if how == 'le' else x['median'] >= bound
        out.append(dict(what=what, verdict=verdict_text(ok, spans(x, bound)), ok=ok, size=worst[1], x=x,
                        bound=bound, how=how, why=''))
    return out


# What a verdict says when the per-round ratios' interquartile range spans the bound: the median
# met it (or not), a quarter of the rounds or more fell on the other side -- another run, more
# rounds or the other placement may turn it.
SPANS = ' (IQR spans the bound)'


def spans(x, bound):
    """Whether the interquartile range of x (bl.summarise) has the bound strictly inside it."""
    return x['q1'] < bound < x['q3']


def verdict_text(ok, unsettled):
    """'met' or 'not met', marked SPANS when the run does not settle it."""
    return ('met' if ok else 'not met') + (SPANS if unsettled else '')


def le_verdict(x, bound):
    """The verdict of a ratio summary x (bl.summarise, None: 'n/a') against a bound from above."""
    return 'n/a' if not x else verdict_text(x['median'] <= bound, spans(x, bound))


# The NIC model's own floor (anchor 'nic', tools/bench/nic_floor.c: the emulated NIC of one config
# with no framework above it) against each latency target of `baseline`: the same ratio with the
# floor in baseline's place says whether any framework over this NIC could meet the target.
FLOOR = 'nic'


def floor_rows(rows, targets=None):
    """[(target dict, floor's target dict)] for the targets of `baseline` the floor is measured in, the floor
    judged against the same bound and series, plus the framework's share (baseline vs the floor)."""
    mine = [t for t in (TARGETS if targets is None else targets) if t[1] == 'baseline' and t[2] != FLOOR
            and FLOOR in bl.BENCH[t[3]]['anchors']]
    out = []
    for t in mine:
        sizes = [sz for sz in t[4] if sz <= bl.ANCHOR_MAX_SIZE[FLOOR]]
        floor_t = ('the NIC model floor' + t[0][len('`baseline`'):], FLOOR, t[2], t[3], sizes, t[5], t[6])
        out.append((target_rows(rows, [t])[0], target_rows(rows, [floor_t])[0]))
    return out


def bound_text(t):
    """A target's bound as the tables print it: "≤ 1.00×" or "≥ 1.00×"."""
    return '%s %.2f×' % ('≤' if t['how'] == 'le' else '≥', t['bound'])


def ratio_text(t, verdict=False):
    """A judged target's ratio at its worst size with its IQR -- with verdict, after its verdict and
    before its rounds -- or why it has none."""
    x = t['x']
    if x is None:
        return t['why']
    r = '%.3f× (%s), IQR %.3f–%.3f' % (x['median'], bl.fmt_size(t['size']), x['q1'], x['q3'])
    return '%s: %s (%d rounds)' % (t['verdict'], r, x['n']) if verdict else r


def floor_lines(rows, targets=None):
    """The table of floor_rows, or [] when the floor was not measured."""
    got = floor_rows(rows, targets)
    if not got or all(f['x'] is None for _, f in got):
        return []
    L = ['What the NIC model costs by itself: `nic_floor` (anchor `nic`, tools/bench/nic_floor.c) runs '
         'the ping-pong over the emulated NIC of the same config with no framework above it -- Send Ring '
         'slot, PIO copy or Tx DMA, doorbell, Net-Send into the peer\'s Receive Ring, Net-Recv, Rx DMA '
         'into staging, copy out, and nothing else (no request, matching, queue or protocol); with '
         '`--rate` the same in msgrate\'s windows.  Where '
         'the floor itself misses a bound, no host path over this NIC model can meet it: the rest of '
         'the distance is the model\'s mandated work, measured in the same rounds.', '',
         '| target | bound | `baseline` | the NIC model floor | the floor alone meets the bound |',
         '|---|---|---|---|---|']
    for t, f in got:
        L.append('| %s | %s | %s | %s | %s |' % (
            t['what'], bound_text(t), ratio_text(t), ratio_text(f),
            'not measured' if f['x'] is None else ('yes' if f['ok'] else 'no')))
    for bench, what in (('pingpong', 'latency'), ('msgrate', 'message rate')):
        x = bl.summarise(bl.round_ratios(rows, 'baseline', FLOOR, bench, 8))
        if x is not None:
            L += ['', 'The framework\'s share, %s: `baseline` over the NIC model floor at 8 B, per round: '
                  '%.3f×, IQR %.3f–%.3f [%.3f %.3f] (%d rounds).' % (what, x['median'], x['q1'], x['q3'],
                                                                     x['min'], x['max'], x['n'])]
    return L + ['']


def target_section(rows, title=TARGET_SECTION, targets=None, preset='small'):
    L = [title, '',
         'Each target is judged on the ratio of the two series measured in the same round (median '
         'over rounds, its interquartile range and [min max]; where the run probed each program\'s '
         'placement, only rounds whose two runs were in the same one); where a target covers several '
         'sizes, the worst size is shown.  A verdict marked "%s" is the median\'s, with a '
         'quarter of the rounds or more on the other side: this run does not settle it.  '
         '`scons bench preset=%s` measures them all.' % (SPANS.strip(' ()'), preset), '',
         '| target | bound | verdict | size | per-round ratio |', '|---|---|---|---|---|']
    for t in target_rows(rows, targets):
        x = t['x']
        L.append('| %s | %s | %s | %s | %s |' % (
            t['what'], bound_text(t), t['verdict'],
            bl.fmt_size(t['size']) if t['size'] is not None else 'n/a',
            t['why'] if x is None else '%.3f×, IQR %.3f–%.3f [%.3f %.3f] (%d rounds)' % (
                x['median'], x['q1'], x['q3'], x['min'], x['max'], x['n'])))
    L.append('')
    return L + placement_lines(rows, targets) + (floor_lines(rows, targets) if targets is None else [])


def placement_lines(rows, targets=None):
    """Each target judged again over the runs of each placement (bl.placements), or [] when the
    runs (or rounds) were in one; a target measured in neither group is left out (no table when
    none is)."""
    place, bounds, how = bl.placements(rows)
    if place is None:
        return []
    by = {c: target_rows([r for r in rows if place(r) == c], targets) for c in ('fast', 'slow')}
    pairs = [(f, s) for f, s in zip(by['fast'], by['slow']) if f['x'] is not None or s['x'] is not None]
    if not pairs:
        return []
    lo, hi = bounds
    if how == 'runs':
        runs = {(r['round'], r['config'], r['benchmark']): r.get('place') for r in rows if 'place' in r}
        n = {c: sum(1 for v in runs.values() if v == c) for c in ('fast', 'slow', 'mixed')}
        head = ('By placement: the shm floor\'s 8 B one-way time, probed just before and just after '
                'each program\'s run, put the runs in two groups -- %d run(s) at %.3f us or less '
                '(*fast*: a cache line crosses between the two vCPUs quickly) and %d at %.3f us or '
                'more (*slow*), %.1fx apart; %d run(s) began in one and ended in the other (the host '
                'moved the vCPUs during the run) and count in neither.  A per-round ratio pairs '
                'two runs of one placement only, here and above.  Each target over the runs of '
                'each group:' % (n['fast'], lo, n['slow'], hi, hi / lo, n['mixed']))
    else:
        n = {c: len({r['round'] for r in rows if place(r) == c}) for c in ('fast', 'slow')}
        head = ('By placement: the shm floor\'s 8 B one-way time put the rounds in two groups -- %d '
                'round(s) at %.3f us or less (*fast*: a cache line crosses between the two vCPUs '
                'quickly) and %d at %.3f us or more (*slow*), %.1fx apart; the host placed the job\'s '
                'two vCPUs differently between them.  Each target over the rounds of each group:'
                % (n['fast'], lo, n['slow'], hi, hi / lo))
    L = [head, '', '| target | bound | fast placement | slow placement |', '|---|---|---|---|']
    for f, s in pairs:
        L.append('| %s | %s | %s | %s |' % (f['what'], bound_text(f), ratio_text(f, True),
                                            ratio_text(s, True)))
    return L + ['']


def copies_rows(outdir):
    """[(config, size, {counter: bytes}, delivered, copies per delivered byte)] of copies.csv
    (run.py copies=1), or None when the stage did not run."""
    rows = stage_rows(outdir, 'copies')
    if rows is None:
        return None
    out = []
    for r in rows:
        if r['status'] != 'ok':
            out.append((r['config'], int(r['size']), None, None, r['status']))
            continue
        got = {k: int(r[k]) for k in COPY_COUNTERS}
        d = int(r['rx_bytes'])
        out.append((r['config'], int(r['size']), got, d, sum(got.values()) / d if d else None))
    return out


def large_section(rows, outdir):
    """The large-message targets and the copies per delivered byte (preset=large)."""
    L = target_section(rows, LARGE_SECTION, LARGE_TARGETS, 'large')
    L += ['Copies per delivered byte: the bytes each engine and the host moved in a 1-window '
          'stream (`commrun -n 2 --stats stream -s S:S -i 2 -w 1`, both nodes: %s; Net-Send with '
          'the frame headers) over the payload bytes received (`rx_bytes`).' %
          ', '.join('`%s`' % k for k in COPY_COUNTERS), '']
    got = copies_rows(outdir)
    if got is None:
        return L + [NOT_MEASURED % ('copies', 'large'), '']
    want = {(c, s): b for c, s, b in LARGE_COPIES}
    L += ['| config | size | Tx DMA | Net-Send | pulled | Rx DMA | host | delivered | copies per byte | target |',
          '|---|---|---|---|---|---|---|---|---|---|']
    for c, size, cnt, d, per in got:
        w = want.get((c, size))
        if cnt is None:
            L.append('| %s | %s | %s |' % (c, bl.fmt_size(size), per))
            continue
        L.append('| %s | %s | %s | %s | %.3f | %s |' % (
            c, bl.fmt_size(size), ' | '.join(str(cnt[k]) for k in COPY_COUNTERS), d, per,
            'n/a' if w is None else '%.1f: %s' % (w, 'met' if abs(per - w) < 0.05 else 'not met')))
    L.append('')
    return L


# Seed 000's Table 1 (the ATLAS message passing over SCI, 2000): size, bandwidth MB/s (streaming),
# latency us (ping-pong / 2), as published.
SEED000_TABLE1 = [(8, 0.7, 15), (16, 1.4, 15), (32, 3.0, 15), (64, 6.0, 15), (128, 9.8, 18),
                  (256, 18, 19), (512, 28, 23), (1024, 39, 29), (2048, 49, 43), (4096, 56, 70),
                  (8192, 60, 125)]
# The size of the personality's latency figures, and its target: the MPI series' 8 B latency at
# most this many times the native API's (median of the per-round ratios).
MPI_SIZE = 8
MPI_TARGET = 1.10


NOT_MEASURED = 'Not measured in this run (`%s=1`, or `preset=%s`, measures it).'


def stage_rows(outdir, stage):
    """The rows of <stage>.csv that run.py's stage <stage>=1 wrote, or None when it did not run."""
    path = os.path.join(outdir, stage + '.csv')
    if not os.path.isfile(path):
        return None
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


def calibrated_section(outdir, meta, title, missing, body):
    """A section of the cost model's (run.py model=1: tools/costmodel/calibrate.py wrote
    costmodel.json here): body(calibration) under title, or why there is none."""
    path = os.path.join(outdir, 'costmodel.json')
    if not os.path.isfile(path):
        why = meta['notes'].get('model') or 'not run (model=1 calibrates the cost model and runs it)'
        return [title, '', '%s: %s.' % (missing, why.replace('\n', ' ')), '']
    sys.path.insert(0, os.path.join(ROOT, 'tools', 'costmodel'))
    with open(path) as f:
        cal = json.load(f)
    return [title, ''] + body(cal)


def model_section(outdir, cells, configs, meta):
    """The cost model's prediction beside every native ping-pong and stream cell."""
    def body(cal):
        import validate
        return validate.section(cells, configs, cal)
    return calibrated_section(outdir, meta, MODEL_SECTION, 'No prediction', body)


def advise_section(outdir, cells, configs, meta):
    """The advisor's ranking of the run's configs beside the measured one."""
    def body(cal):
        import advise
        return advise.check_section(cells, configs, cal)
    return calibrated_section(outdir, meta, ADVISE_SECTION, 'No ranking', body)


def crc_section(outdir):
    """CRC32C against memcpy (run.py crc=1, crc.csv): bytes per TSC tick of the protocols' CRC in
    each implementation the CPU has, fused with a copy or not, beside a memcpy, per size."""
    L = [CRC_SECTION, '']
    rows = stage_rows(outdir, 'crc')
    if rows is None:
        return L + [NOT_MEASURED % ('crc', 'small'), '']
    val = {(r['size'], r['what']): r for r in rows}
    sizes = sorted({int(r['size']) for r in rows})
    impls = [w.split(':', 1)[1] for w in dict.fromkeys(r['what'] for r in rows) if w.startswith('crc:')]
    ghz = rows[0]['tsc_ghz'] if rows else '?'
    default = rows[0].get('default') or '?'
    L += ['`tools/bench/crc_speed.c`, in cache, every column interleaved in each repetition: bytes '
          'per TSC tick (the TSC runs at %s GHz, the nominal clock; no other cycle counter is '
          'readable here), median [min max].  *crc*: `lc_crc32c` (checksum\'s and reliability\'s '
          'CRC); *fused*: `lc_crc32c_copy`, the CRC and a copy in one pass (reliability\'s kept '
          'copy); *memcpy*: the copy the pipeline makes anyway; per implementation -- *sse42*: the '
          'crc32 instruction in three chains (8 bytes a cycle at best), *fold*: carry-less '
          'multiplication (VPCLMULQDQ over AVX-512, buffers of 1 KiB and more).  The protocols use '
          '*%s* on this CPU; the last two columns are its figures.' % (ghz, default), '',
          '| size | memcpy | %s | crc+memcpy | crc / memcpy time |' % ' | '.join(
              'crc %s | fused %s' % (i, i) for i in impls),
          '|---|---|%s---|---|' % ('---|---|' * len(impls))]

    def cell(s, w):
        r = val.get((str(s), w))
        if not r:
            return 'failed: no figure'
        return '%.2f [%.2f %.2f]' % (float(r['median']), float(r['min']), float(r['max']))

    for s in sizes:
        try:
            c, m = float(val[(str(s), 'crc:' + default)]['median']), float(val[(str(s), 'memcpy')]['median'])
            seq, slow = '%.2f' % (1 / (1 / c + 1 / m)), '%.1f×' % (m / c)
        except (KeyError, ValueError, ZeroDivisionError):
            seq = slow = 'n/a'
        L.append('| %s | %s | %s | %s | %s |' % (
            bl.fmt_size(s), cell(s, 'memcpy'),
            ' | '.join('%s | %s' % (cell(s, 'crc:' + i), cell(s, 'fused:' + i)) for i in impls),
            seq, slow))
    return L + ['']


def phases_section(outdir, cells):
    """Where msgrate's windows wait (run.py: every msgrate run of a config, its MPI twin and Open
    MPI's prints --phases; phases.csv): each node's ns a message in its posting loop, its wait and
    the rest of the window, median over rounds, at 8 B (the target's size) or the smallest size."""
    L = [PHASES_SECTION, '']
    rows = stage_rows(outdir, 'phases')
    if not rows:
        return L + ['Not measured in this run (no msgrate run printed its phases).', '']
    sizes = sorted({int(r['size']) for r in rows})
    size = 8 if 8 in sizes else sizes[0]
    series = list(dict.fromkeys(r['config'] for r in rows))
    val = {}
    for r in rows:
        if int(r['size']) == size:
            for k in ('post', 'wait', 'rest'):
                val.setdefault((r['config'], r['role'], k), {})[r['round']] = float(r[k])
    L += ['`msgrate --phases` at %s, in the rounds of the matrix (the MPI twins print the same): on '
          'each node, ns a message in its posting loop (*post*: `lc_isend` / `MPI_Isend`, or the '
          'receives), in its wait for the window (*wait*), and in the rest of the window (*rest*: the '
          'ack, the payload check), median over rounds [min max].  The sender\'s three make up the '
          'rate\'s time a message; its *post share* is the part of it spent posting -- near 1, the '
          'rate is the sender\'s posting loop; low, the sender waits for its receiver.  *post vs Open '
          'MPI*: the sender\'s post over Open MPI\'s in the same round.' % bl.fmt_size(size), '',
          '| series | rate | sender post | wait | rest | receiver post | wait | rest | post share | '
          'post vs Open MPI |', '|---|---|---|---|---|---|---|---|---|---|']

    def cell(t, role, k):
        x = bl.summarise(list(val.get((t, role, k), {}).values()))
        return 'n/a' if x is None else '%.1f [%.1f %.1f]' % (x['median'], x['min'], x['max'])

    for t in series:
        post = val.get((t, 'sender', 'post'), {})
        share = [post[rd] / (post[rd] + val[(t, 'sender', 'wait')][rd] + val[(t, 'sender', 'rest')][rd])
                 for rd in post if rd in val.get((t, 'sender', 'wait'), {}) and
                 rd in val.get((t, 'sender', 'rest'), {})]
        ref = val.get(('openmpi', 'sender', 'post'), {})
        vs = [post[rd] / ref[rd] for rd in post if ref.get(rd)]
        sh, rv = bl.summarise(share), bl.summarise(vs)
        rate = med(cells, t, 'msgrate', size)
        L.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            t, 'n/a' if rate is None else '%.2f M/s' % (rate / 1e6),
            cell(t, 'sender', 'post'), cell(t, 'sender', 'wait'), cell(t, 'sender', 'rest'),
            cell(t, 'receiver', 'post'), cell(t, 'receiver', 'wait'), cell(t, 'receiver', 'rest'),
            'n/a' if sh is None else '%.2f' % sh['median'],
            'n/a' if rv is None or t == 'openmpi' else '%.3f [%.3f %.3f]' % (rv['median'], rv['q1'], rv['q3'])))
    return L + ['']


def scale_section(outdir, meta):
    """Scaling with peers (run.py scale=1, scale.csv): per job, node 0's instructions per message
    and per poll, and the wall-time figures over rounds."""
    L = [SCALE_SECTION, '']
    rows = stage_rows(outdir, 'scale')
    if rows is None:
        return L + [NOT_MEASURED % ('scale', 'small'), '']
    jobs, vals, fails = [], {}, {}
    for r in rows:
        j = (int(r['nodes']), int(r['pairs']))
        if j not in jobs:
            jobs.append(j)
        if r['value'] not in ('', None):
            vals.setdefault((j, r['benchmark']), []).append(float(r['value']))
        else:
            fails[(j, r['benchmark'])] = r['status']
    cpus = meta.get('cpus') or 0
    L += ['`%s`, 8 B.  Nodes pair up as (0,1), (2,3), ...; "pairs" exchange at once, the other '
          'nodes idle in `lc_close`.  Instructions are node 0\'s (callgrind, one run each): '
          '`lc_send` per message (the whole send: request, Send Ring, doorbell, Net-Send), and '
          '`lc_progress_locked` per call (one poll of every engine and the Rx FIFO; its mean mixes '
          'idle and busy polls, so it falls as the idle ones grow).  Wall time: median over rounds '
          '[min max] of the pairs\' mean one-way latency and of their summed message rate '
          '(window 64).  A job of more nodes than the machine\'s %d CPUs is oversubscribed: its '
          'wall times measure the scheduler, not the library; the instruction counts do not depend '
          'on it.' % (meta.get('notes', {}).get('scale', '?'), cpus), '',
          '| nodes | pairs | `lc_send` Ir/msg | `lc_progress_locked` Ir/call | polls/msg | '
          'latency | message rate |', '|---|---|---|---|---|---|---|']

    def cell(j, b, fmt, unit='', scale=1.0):
        x = bl.summarise([v * scale for v in vals.get((j, b), [])])
        if x is None:
            return 'failed: %s' % fails.get((j, b), 'no figure')
        if x['n'] == 1:
            return fmt % x['median'] + unit
        return (fmt + unit + ' [' + fmt + ' ' + fmt + ']') % (x['median'], x['min'], x['max'])
    for j in jobs:
        over = ' (oversubscribed)' if cpus and j[0] > cpus else ''
        L.append('| %d%s | %d | %s | %s | %s | %s | %s |' % (
            j[0], over, j[1], cell(j, 'send_ir', '%.1f'), cell(j, 'poll_ir', '%.1f'),
            cell(j, 'polls', '%.1f'), cell(j, 'pingpong', '%.2f', ' us'),
            cell(j, 'msgrate', '%.2f', ' M/s', 1e-6)))
    L.append('')
    return L


def flat(d, prefix=''):
    out = {}
    for k, v in (d or {}).items():
        if isinstance(v, dict):
            out.update(flat(v, prefix + k + '.'))
        else:
            out[prefix + k] = v
    return out


def differs(cj, ref):
    """Keys of the resolved config that differ from the reference, protocol tables left out."""
    if not cj or not ref:
        return ['?']
    protos = set(p['name'] if isinstance(p, dict) else p for p in cj.get('active_protocols', []))
    protos |= set(p['name'] if isinstance(p, dict) else p for p in ref.get('active_protocols', []))
    a, b = flat(cj.get('config')), flat(ref.get('config'))
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k)
                  and k != 'protocols' and k.split('.')[0] not in protos)
    return keys


def med(cells, t, b, s):
    c = cells.get((t, b, s))
    return c['median'] if c else None


def fmt(v, unit=''):
    if v is None:
        return 'n/a'
    if abs(v) >= 1000:
        s = '%.0f' % v
    elif abs(v) >= 10:
        s = '%.1f' % v
    else:
        s = '%.2f' % v
    return s + (' ' + unit if unit else '')


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def fx(r):
    return 'n/a' if r is None else '%.3g×' % r


def peak(cells, t, bench):
    """(size of the peak, peak median, n½) of target t's bandwidth benchmark, or None."""
    pts = sorted((s, c['median']) for (tt, b, s), c in cells.items() if tt == t and b == bench)
    if not pts:
        return None
    ps, pv = max(pts, key=lambda x: x[1])
    return ps, pv, next(s for s, v in pts if v >= pv / 2)


def spread(xs):
    """'median, IQR q1–q3 [min max] (n)' of per-round ratios, or n/a."""
    x = bl.summarise(xs)
    return 'n/a' if not x else '%.3f×, IQR %.3f–%.3f [%.3f %.3f] (%d)' % (
        x['median'], x['q1'], x['q3'], x['min'], x['max'], x['n'])


def mpi_rows(rows, cells, configs):
    """The figures of the MPI section, one dict per config (check_outputs.py recomputes them)."""
    out = []
    for c in configs:
        m = bl.mpi_target(c)
        pk = {(t, b): peak(cells, t, b) for t in (c, m) for b in ('stream', 'bibw')}
        out.append(dict(
            config=c, native=med(cells, c, 'pingpong', MPI_SIZE),
            mpi=med(cells, m, 'pingpong', MPI_SIZE),
            ratios=bl.round_ratios(rows, m, c, 'pingpong', MPI_SIZE),
            openmpi=med(cells, 'openmpi', 'pingpong', MPI_SIZE),
            peaks={b: tuple(pk[(t, b)] and pk[(t, b)][1] for t in (m, c)) for b in ('stream', 'bibw')},
            ir_native=med(cells, c, bl.INSTR_API['name'], 8),
            ir_mpi=med(cells, m, bl.INSTR_API['name'], 8),
            ir_range={t: cells.get((t, bl.INSTR_API['name'], 8)) for t in (c, m)}))
    return out


def personality_rows(rows, cells, configs):
    """The figures of the personalities' section: one dict per (config, personality)."""
    out = []
    for c in configs:
        for p in bl.personalities():
            t = bl.personality_target(c, p)
            pk = {x: peak(cells, x, 'stream') for x in (t, c)}
            out.append(dict(config=c, p=p, native=med(cells, c, 'pingpong', MPI_SIZE),
                            lat=med(cells, t, 'pingpong', MPI_SIZE),
                            ratios=bl.round_ratios(rows, t, c, 'pingpong', MPI_SIZE),
                            peak=pk[t] and pk[t][1], native_peak=pk[c] and pk[c][1]))
    return out


def member_label(series, cj):
    """A series' name, with the members its config selects for a family personality (epos.*)."""
    fam = ((cj or {}).get('config') or {}).get(series)
    if not isinstance(fam, dict) or not fam:
        return series
    return '%s (%s)' % (series, ', '.join(str(fam[k]) for k in sorted(fam)))


def personality_section(rows, cells, configs, cjs=None):
    sz = bl.fmt_size(MPI_SIZE)
    progs = ', '.join(sorted({'`examples/%s/%s.c`' % (r['p'], r['program'])
                              for r in bl.PERSONALITY_BENCH}))
    envs = '; '.join(sorted({'`%s`: run with %s' % (r['series'], ' '.join(r['env']))
                             for r in bl.PERSONALITY_BENCH if r['env']}))
    L = [PERS_SECTION, '',
         'The seeds\' message-passing APIs as personalities of each config: their own ping-pong and '
         'stream programs (%s, the series `<config>+<personality>`), written for the API and run '
         'with the config\'s commrun in the same rounds as the native examples.  Ratio = '
         'personality / native %s latency of one round; median, IQR, [min max] (rounds).  '
         'Target: a median of at most %.2f×.  CSN\'s Tx returns once the receiver has the data '
         '(the seed\'s semantics: a synchronous send), so its ping-pong carries an ack the native '
         'one does not; the series with an eager Tx shows the personality\'s own cost (%s).'
         % (progs, sz, MPI_TARGET, envs or 'none'), '',
         '| config | personality | %s native | %s personality | personality / native, per round '
         '| target ≤ %.2f× | stream peak (× native) |' % (sz, sz, MPI_TARGET),
         '|---|---|---|---|---|---|---|']
    for r in personality_rows(rows, cells, configs):
        x = bl.summarise(r['ratios'])
        verdict = le_verdict(x, MPI_TARGET)
        L.append('| %s | %s | %s | %s | %s | %s | %s (%s) |' % (
            r['config'], member_label(r['p'], (cjs or {}).get(r['config'])), fmt(r['native'], 'us'),
            fmt(r['lat'], 'us'), spread(r['ratios']),
            verdict, fmt(r['peak'], 'MB/s'), fx(ratio(r['peak'], r['native_peak']))))
    L.append('')
    return L


def seed_section(cells, configs):
    L = [SEED_SECTION, '']
    at = 'atlas' if 'atlas' in bl.personalities() else None
    L += ['Seed 000, Table 1: the ATLAS message passing over SCI (2000) as published, beside the '
          'ATLAS personality of each config (`<config>+atlas`: bandwidth by streaming, latency = '
          'ping-pong / 2, medians over the rounds).  Theirs crossed a PCI SCI adapter and a '
          'switch; ours crosses the emulated NIC in shared memory: the comparison is of shape '
          '(where bandwidth saturates, how latency grows with size), not of hardware.', '']
    if not at:
        L += ['(no ATLAS personality series in this run)', '']
    else:
        L += ['| size | seed MB/s | seed us | ' + ' | '.join('%s MB/s | %s us' % (c, c) for c in configs)
              + ' |', '|---|---|---|' + '---|---|' * len(configs)]
        for size, bw, lat in SEED000_TABLE1:
            t = [bl.personality_target(c, at) for c in configs]
            L.append('| %s | %g | %g | %s |' % (bl.fmt_size(size), bw, lat, ' | '.join(
                '%s | %s' % (fmt(med(cells, x, 'stream', size)), fmt(med(cells, x, 'pingpong', size)))
                for x in t)))
        L.append('')
    sf = bl.SEED_FILTER
    L += ['Seed 001, Table 1: throughput of the CSN filter pipeline (source → filter → sink, three '
          'programs of one job, `examples/csn/`) by buffer size, with 1, 2 and 4 filter buffers '
          '(MaxFilterBuffers), %d MB per run, the sink\'s MB/s (10^6 B/s, every byte checked); '
          'median over the rounds.  The seed\'s own figures were published as an image only '
          '(a dual-core Opteron 175, sockets): no numbers to put beside ours.' % sf['mbytes'], '',
          '| config | size | ' + ' | '.join('%d buffer%s' % (b, 's' if b > 1 else '')
                                             for b in sf['buffers']) + ' |',
          '|---|---|' + '---|' * len(sf['buffers'])]
    any_row = False
    for c in configs:
        t = bl.personality_target(c, sf['personality'])
        for size in sorted({s for (tt, b, s) in cells if tt == t and b.startswith(sf['name'])}):
            any_row = True
            L.append('| %s | %s | %s |' % (c, bl.fmt_size(size), ' | '.join(
                fmt(med(cells, t, bl.seed_filter_bench(b), size), 'MB/s') for b in sf['buffers'])))
    if not any_row:
        L.append('| (not measured in this run) | | |' + ' |' * (len(sf['buffers']) - 1))
    L.append('')
    return L


def anchored(cells, anchors, config, bench, size, unit):
    """A cell of the distance table: config's median, then its ratio to each anchor measured."""
    v = med(cells, config, bench, size)
    if v is None:
        return 'n/a'
    return ', '.join([fmt(v, unit)] + ['%s %s' % (fx(ratio(v, med(cells, a, bench, size))), name)
                                       for a, name in (('shm', 'shm'), ('openmpi', 'MPI'))
                                       if a in anchors])


def write(outdir, csv_path, meta, cjs):
    rows = bl.load_csv(csv_path)
    cells = bl.cells(rows)
    configs = meta['configs']
    anchors = [a for a in bl.ANCHORS if meta['anchors'].get(a) is None]
    ref = 'baseline' if 'baseline' in configs else (configs[0] if configs else None)
    L = ['# libcomm benchmark report', '',
         'Every figure below is computed by `tools/bench/report.py` from `results.csv` in this '
         'folder (median over rounds; spread in `tables/` and `results.json`). Plots: `plots/`.', '']

    # ---- run
    L += [SECTIONS[0], '',
          '- %s, %d round(s)%s, sizes %s to %s, %d measurements (%d failed cells).'
          % (meta['timestamp'], meta['rounds'], ' (quick mode: a check, not a performance claim)'
             if meta['quick'] else '', bl.fmt_size(min(meta['sizes'])), bl.fmt_size(max(meta['sizes'])),
             len(rows), sum(1 for r in rows if r['status'] != 'ok')),
          '- Configurations: %s. Anchors: %s.' % (', '.join(configs) or 'none',
                                                 ', '.join(anchors) or 'none'),
          '- MPI series (the MPI twins built with each config\'s `bin/mpicc`): %s.'
          % (', '.join(bl.mpi_target(c) for c in configs) or 'none'),
          '- Machine: %s, %s CPUs; %s (`bind=%s`: commrun `--bind`, shm_pingpong `--bind`; '
          'Open MPI: `%s`).'
          % (meta['host'], meta['cpus'],
             'every process of a two-node job on a core of its own (the shm floor busy-polls); a job of more '
             'nodes than cores runs unbound' if meta.get('bind', 'none') == 'core' else
             'every process unpinned, placed by the scheduler',
             meta.get('bind', 'none'), meta['mpirun'])]
    if meta.get('wall_seconds') is not None:
        L.append('- Wall time of the run (build, rounds, callgrind, plots): %dm%02ds.'
                 % (meta['wall_seconds'] // 60, meta['wall_seconds'] % 60))
    if meta['notes'].get('rounds'):
        L.append('- Rounds %s.' % meta['notes']['rounds'])
    for k, why in sorted(meta['notes'].get('windows', {}).items()):
        L.append('- `%s`: %s.' % (k, why))
    for c, why in sorted(meta['skipped'].items()):
        L.append('- Skipped config `%s`: %s' % (c, why))
    for a, why in sorted(meta['anchors'].items()):
        if why:
            L.append('- Anchor `%s` not run: %s' % (a, why))
    L.append('')

    # ---- fastest per range
    L += [SECTIONS[1], '',
          'Geometric mean of the median over the sizes of the range that every configuration '
          'measured; the runner-up is given as a ratio to the winner.', '',
          '| sizes | lowest latency (pingpong) | runner-up | highest bandwidth (stream) | runner-up |',
          '|---|---|---|---|---|']
    for label, lo, hi in RANGES:
        cols = []
        for bench, better, unit in (('pingpong', 'low', 'us'), ('stream', 'high', 'MB/s')):
            sizes = sorted({s for (t, b, s) in cells if b == bench and lo <= s <= hi})
            common = [s for s in sizes if all(med(cells, c, bench, s) for c in configs)]
            scores = sorted(((bl.geomean([med(cells, c, bench, s) for s in common]), c)
                             for c in configs if common), reverse=(better == 'high'))
            scores = [x for x in scores if x[0] is not None]
            if not scores:
                cols += ['n/a', 'n/a']
                continue
            best = scores[0]
            cols.append('**%s** (%s)' % (best[1], fmt(best[0], unit)))
            if len(scores) > 1:
                nxt = scores[1]
                cols.append('%s (%s)' % (nxt[1], fx(ratio(nxt[0], best[0]))))
            else:
                cols.append('—')
        if cols != ['n/a'] * 4:
            L.append('| %s | %s |' % (label, ' | '.join(cols)))
    L.append('')

    # ---- cost vs baseline
    L += [SECTIONS[2], '',
          'Latency ratio = median latency of the config / median latency of `%s` at the same size '
          '(measured in the same rounds); instructions = callgrind Ir of lc_tx_frame + lc_rx_frame '
          '(inclusive, both nodes) per message.' % ref, '',
          '| config | protocols | differs from %s in | latency ×, 8 B | latency ×, 64 KiB | '
          'latency ×, geo-mean all sizes | Ir/msg 8 B | Ir/msg vs %s | Ir/msg 64 KiB |' % (ref, ref),
          '|---|---|---|---|---|---|---|---|---|']
    lat_sizes = sorted({s for (t, b, s) in cells if b == 'pingpong' and t == ref})
    for c in configs:
        protos = [p['name'] if isinstance(p, dict) else p
                  for p in (cjs.get(c) or {}).get('active_protocols', [])]
        diff = differs(cjs.get(c), cjs.get(ref))
        rs = [ratio(med(cells, c, 'pingpong', s), med(cells, ref, 'pingpong', s)) for s in lat_sizes]
        i8, i8r = med(cells, c, 'instr', 8), med(cells, ref, 'instr', 8)
        d = None if i8 is None or i8r is None else i8 - i8r
        L.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            c, ', '.join(protos) or '—',
            '(reference)' if c == ref else ', '.join(diff) or 'nothing (protocols only)',
            fx(ratio(med(cells, c, 'pingpong', 8), med(cells, ref, 'pingpong', 8))),
            fx(ratio(med(cells, c, 'pingpong', 65536), med(cells, ref, 'pingpong', 65536))),
            fx(bl.geomean(rs)), fmt(i8), 'n/a' if d is None else '%+.0f' % d,
            fmt(med(cells, c, 'instr', 65536))))
    L.append('')
    prot = [c for c in configs if c != ref and not differs(cjs.get(c), cjs.get(ref))]
    for c in prot:
        protos = [p['name'] for p in (cjs.get(c) or {}).get('active_protocols', [])]
        r8 = ratio(med(cells, c, 'pingpong', 8), med(cells, ref, 'pingpong', 8))
        i8, i8r = med(cells, c, 'instr', 8), med(cells, ref, 'instr', 8)
        if protos:
            L.append('- Protocol%s %s (config `%s`, otherwise identical to `%s`): 8 B latency %s '
                     'of %s, %s instructions per message (%s).'
                     % ('s' if len(protos) > 1 else '', ' + '.join(protos), c, ref, fx(r8), ref,
                        fmt(i8), 'n/a' if i8 is None or i8r is None else '%+.0f vs %s'
                        % (i8 - i8r, fmt(i8r))))
    if prot:
        L.append('')

    # ---- peak and n1/2
    L += [SECTIONS[3], '',
          'Peak = highest median bandwidth over the sizes; n½ = the smallest size whose median '
          'reaches half of that peak (NetPIPE/BIP convention).', '',
          '| config | stream peak | at | stream n½ | bibw peak | bibw n½ |', '|---|---|---|---|---|---|']
    for t in [x for c in configs for x in (c, bl.mpi_target(c))] + \
            [a for a in anchors if a == 'openmpi']:
        cols = []
        for bench in ('stream', 'bibw'):
            pk = peak(cells, t, bench)
            if not pk:
                cols += ['n/a'] * (3 if bench == 'stream' else 2)
                continue
            ps, pv, half = pk
            if bench == 'stream':
                cols += [fmt(pv, 'MB/s'), bl.fmt_size(ps), bl.fmt_size(half)]
            else:
                cols += [fmt(pv, 'MB/s'), bl.fmt_size(half)]
        if not (bl.is_mpi_target(t) and cols == ['n/a'] * 5):
            L.append('| %s | %s |' % (t, ' | '.join(cols)))
    L.append('')

    # ---- anchors
    L += [SECTIONS[4], '',
          'Ratios > 1: the config is slower than the anchor (latency) or has less bandwidth '
          'than it has (× Open MPI of bandwidth < 1).', '']
    head = ['config'] + ['%s latency' % bl.fmt_size(s) for s in LAT_POINTS]
    L += ['| %s | %s |' % (' | '.join(head), ' | '.join('stream %s' % bl.fmt_size(s)
                                                         for s in BW_POINTS) + ' | msgrate 8 B × Open MPI'),
          '|' + '---|' * (len(head) + len(BW_POINTS) + 1)]
    for c in configs:
        cols = [c]
        cols += [anchored(cells, anchors, c, 'pingpong', s, 'us') for s in LAT_POINTS]
        cols += [anchored(cells, anchors, c, 'stream', s, 'MB/s') for s in BW_POINTS]
        cols.append(fx(ratio(med(cells, c, 'msgrate', 8), med(cells, 'openmpi', 'msgrate', 8))))
        L.append('| %s |' % ' | '.join(cols))
    for a in anchors:
        L.append('| *%s* | %s | %s | |' % (a, ' | '.join(fmt(med(cells, a, 'pingpong', s), 'us')
                                                    for s in LAT_POINTS),
                                         ' | '.join(fmt(med(cells, a, 'stream', s), 'MB/s')
                                                    for s in BW_POINTS)))
    L.append('')

    # ---- the MPI personality
    sz = bl.fmt_size(MPI_SIZE)
    L += [MPI_SECTION, '',
          'The same MPI source (`tools/bench/mpi/*.c`) built with each config\'s `bin/mpicc` and run '
          'with its `bin/mpirun` (the series `<config>+mpi` in `results.csv`), in the same rounds '
          'as the config\'s native example and Open MPI.  Ratio = via MPI / native %s latency of '
          'one round; median over the rounds, their interquartile range, [min max] (rounds).  '
          'Target: a median of at most %.2f×.'
          % (sz, MPI_TARGET), '',
          '| config | %s native | %s via MPI | via MPI / native, per round | target ≤ %.2f× | '
          '%s Open MPI, same source | via MPI / Open MPI | stream peak via MPI (× native) | '
          'bibw peak via MPI (× native) |' % (sz, sz, MPI_TARGET, sz),
          '|---|---|---|---|---|---|---|---|---|']
    mrows = mpi_rows(rows, cells, configs)
    for r in mrows:
        x = bl.summarise(r['ratios'])
        verdict = le_verdict(x, MPI_TARGET)
        L.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            r['config'], fmt(r['native'], 'us'), fmt(r['mpi'], 'us'), spread(r['ratios']), verdict,
            fmt(r['openmpi'], 'us'), fx(ratio(r['mpi'], r['openmpi'])),
            *['%s (%s)' % (fmt(r['peaks'][b][0], 'MB/s'), fx(ratio(*r['peaks'][b])))
              for b in ('stream', 'bibw')]))
    L += ['', 'Instructions per 8 B message (callgrind, ping-pong, both nodes): the program\'s '
          'blocking send and receive calls (native `lc_send` + `lc_recv`, via MPI `MPI_Send` + '
          '`MPI_Recv`), collected only inside them, less the wait loop `lc_wait_held` (it polls for as long as the '
          'peer takes: timing, not work), plus the `lc_rx_frame` and `lc_finish` calls it makes '
          '(the frame received, the request finished); messages = calls of the send function; '
          'median of the repeats, [min max] in `tables/<target>.instr_api.txt`.  '
          'The NIC steps inside the wait are left out of both, so the ratio overstates the '
          'personality\'s share of the whole path.', '',
          '| config | Ir/msg native calls | Ir/msg via MPI | the personality\'s own Ir/msg | × native '
          '| repeats: native [min max], via MPI [min max] |',
          '|---|---|---|---|---|---|']
    for r in mrows:
        d = None if r['ir_native'] is None or r['ir_mpi'] is None else r['ir_mpi'] - r['ir_native']
        rng = ['n/a' if not x else '%d [%s %s]' % (x['n'], fmt(x['min']), fmt(x['max']))
               for x in (r['ir_range'][t] for t in (r['config'], bl.mpi_target(r['config'])))]
        L.append('| %s | %s | %s | %s | %s | %s |' % (
            r['config'], fmt(r['ir_native']), fmt(r['ir_mpi']), 'n/a' if d is None else '%+.0f' % d,
            fx(ratio(r['ir_mpi'], r['ir_native'])), ', '.join(rng)))
    for k, why in sorted((meta.get('mpi_twins') or {}).items()):
        if why:
            L.append('- `%s` not built: %s' % (k, why))
    L.append('')

    # ---- the small-message targets
    L += target_section(rows)
    L += phases_section(outdir, cells)
    L += scale_section(outdir, meta)
    L += crc_section(outdir)
    L += model_section(outdir, cells, configs, meta)
    L += advise_section(outdir, cells, configs, meta)
    L += large_section(rows, outdir)

    # ---- the seeds' personalities
    L += personality_section(rows, cells, configs, cjs)
    L += seed_section(cells, configs)

    # ---- failures
    L += [SECTIONS[5], '']
    fails = {}
    for r in rows:
        if r['status'] != 'ok':
            fails.setdefault((r['config'], r['benchmark'], r['status']), []).append((r['round'], r['size']))
    if not fails:
        L.append('None: every cell of every round produced a figure.')
    for (t, b, why), where in sorted(fails.items()):
        rounds = sorted({w[0] for w in where})
        sizes = sorted({w[1] for w in where})
        L.append('- `%s` %s, round(s) %s, size(s) %s: %s'
                 % (t, b, ','.join(map(str, rounds)), ', '.join(bl.fmt_size(s) for s in sizes),
                    why[len('failed: '):] if why.startswith('failed: ') else why))
    L.append('')

    # ---- fault sweep (only when it ran)
    frows = [r for r in rows if r['benchmark'] in bl.FAULT_BENCHES]
    if frows:
        L += ['## Fault sweep', '',
              'Stream goodput at 64 KiB and pingpong latency at 8 B under dropped frames '
              '(`commrun --faults drop=P`); the size column of these CSV rows is the drop rate '
              'in parts per thousand.', '',
              '| config | drop | goodput (MB/s) | × no drop | latency 8 B (us) | × no drop |',
              '|---|---|---|---|---|---|']
        fv = {(r['config'], r['benchmark'], r['size']): r['value'] for r in frows
              if r['status'] == 'ok'}
        for c in sorted({r['config'] for r in frows}):
            for ppt in sorted({r['size'] for r in frows if r['config'] == c}):
                g, lat = fv.get((c, 'fault_goodput', ppt)), fv.get((c, 'fault_latency', ppt))
                L.append('| %s | %g %% | %s | %s | %s | %s |' % (
                    c, ppt / 10.0, fmt(g), fx(ratio(g, fv.get((c, 'fault_goodput', 0)))),
                    fmt(lat), fx(ratio(lat, fv.get((c, 'fault_latency', 0))))))
        L.append('')

    # ---- not measured
    L += [SECTIONS[6], '']
    for c, why in sorted(meta['notes'].get('broadcast', {}).items()):
        L.append('- Broadcast latency, `%s`: %s' % (c, why))
    L.append('- Fault sweep: %s' % meta['notes'].get('faults', 'not requested'))
    L.append('')
    with open(os.path.join(outdir, 'report.md'), 'w') as f:
        f.write('\n'.join(L))
