# SPDX-License-Identifier: MIT
# Shared pieces of the benchmark matrix: the benchmark table, the CSV schema, statistics over rounds.
import bisect
import csv
import math
import os
import statistics

# The one table of benchmarks (add a row to add a benchmark; see tools/bench/README.md).
# Columns: name, program (build/<cfg>/bin/<program>), kind, output column holding the figure,
#   unit, OSU header, arguments of a full run, arguments of a quick run, smallest size,
#   largest size (None: no cap), anchors that have a twin (shm, openmpi), better ("low"/"high"),
#   requests a node holds per window slot (0: not windowed; the window is WINDOW, or less when
#   the config's host.max_requests cannot hold it), nodes of the job, protocol the benchmark
#   needs active (None: runs everywhere; otherwise measured only in configs where it is active).
# The latency programs' loop (the native ping-pong, its MPI twin and the personalities'
# ping-pongs alike, so that their ratios compare the same loop): osu_latency's counts up to its
# large-message threshold, LAT_LOOP_SMALL 10000 timed after LAT_SKIP_SMALL 100 (the programs
# scale both down above 8 KiB, lc_ex_scaled).  1000 timed iterations made a size's figure 0.2-1
# ms long (round trips of 0.2-1 us), one hiccup of these vCPUs, and the first size of a sweep
# (0 B) carried its start: Open MPI's 0 B 0.378 us then, 0.398 us with 10000, 8 interleaved rounds.
LAT_ITERS, LAT_WARMUP = 10000, 100
LAT_FULL = ['-i', str(LAT_ITERS), '-w', str(LAT_WARMUP)]
LAT_QUICK = ['-i', '50', '-w', '5']

BENCHMARKS = [
    dict(name='pingpong', program='pingpong', kind='latency', column=1, unit='us',
         header='# Size  Latency (us)', full=LAT_FULL,
         quick=LAT_QUICK, min_size=0, max_size=None,
         anchors=('shm', 'nic', 'openmpi'), better='low', reqs=0, nodes=2, needs=None),
    # windowed programs: OSU's loop at small sizes (100 windows of 64 after 10 untimed; the
    # programs scale them down above 8 KiB); 20 windows and 2 of warm-up measured the first size
    # of a sweep (1 B) at about half its rate, a start the rounds did not outlast
    dict(name='stream', program='stream', kind='bandwidth', column=1, unit='MB/s',
         header='# Size  Bandwidth (MB/s)', full=['-i', '100', '-w', '10'],
         quick=['-i', '5', '-w', '1'], min_size=1, max_size=None,
         anchors=('shm', 'openmpi'), better='high', reqs=1, nodes=2, needs=None),
    dict(name='bibw', program='bibw', kind='bandwidth', column=1, unit='MB/s',
         header='# Size  Bandwidth (MB/s)', full=['-i', '100', '-w', '10'],
         quick=['-i', '5', '-w', '1'], min_size=1, max_size=None,
         anchors=('openmpi',), better='high', reqs=2, nodes=2, needs=None),
    # msgrate: osu_mbw_mr's counts up to its large-message threshold (8 KiB, msgrate's largest
    # size here): 100 windows of 64 after 10 untimed (ITERS_SMALL, WARMUP_ITERS_SMALL)
    dict(name='msgrate', program='msgrate', kind='rate', column=2, unit='msg/s',
         header='# Size  Messages/s', full=['-i', '100', '-w', '10'],
         quick=['-i', '10', '-w', '2'], min_size=0, max_size=8192,
         anchors=('nic', 'openmpi'), better='high', reqs=1, nodes=2, needs=None),
    dict(name='bcast', program='bcast', kind='latency', column=1, unit='us',
         header='# Size  Avg Latency(us)', full=['-i', '100', '-w', '10'],
         quick=['-i', '20', '-w', '2'], min_size=0, max_size=65536,
         anchors=(), better='low', reqs=0, nodes=4, needs='multicast'),
]
WINDOW = 64


def window_for(bench, max_requests, mpi=False):
    """The window of a windowed benchmark under a config allowing max_requests requests (None: any);
    mpi: through the MPI personality, whose rendezvous holds two libcomm requests a message."""
    if not bench['reqs']:
        return None
    if not max_requests:
        return WINDOW
    per_slot = bench['reqs'] * (2 if mpi else 1)
    return max(1, min(WINDOW, (int(max_requests) - 2) // per_slot))
BENCH = {b['name']: b for b in BENCHMARKS}

# Anchors: the raw shared-memory floor, the NIC model's own floor (tools/bench/nic_floor.c: the
# emulated NIC of the first config alone, no framework) and Open MPI, run in the same rounds.
ANCHORS = ['shm', 'nic', 'openmpi']
# The largest size an anchor is measured at (None: the benchmark's own limit).  nic_floor (its
# ping-pong, and msgrate's windows with --rate) is a floor for small messages only: above a few
# frames it is a plain loop of frames, not a floor.
ANCHOR_MAX_SIZE = {'nic': 4096}

# The MPI series.  A benchmark with the openmpi anchor has an MPI twin, tools/bench/mpi/<program>.c;
# the same source is also built with each config's bin/mpicc (the MPI personality over that
# config's libcomm) and run with its bin/mpirun.  Its rows carry the target name <config>+mpi in
# the config column (as the anchors carry theirs): the config column names what was measured.
MPI_SUFFIX = '+mpi'


def has_twin(bench):
    return 'openmpi' in bench['anchors']


def mpi_target(config):
    return config + MPI_SUFFIX


def is_mpi_target(target):
    return target.endswith(MPI_SUFFIX)


def config_of(target):
    """The config a target runs on: '<config>+mpi' or '<config>+<personality>' -> '<config>';
    a config or an anchor as is."""
    return target.split('+', 1)[0]


# The personality series: a personality's own ping-pong and stream, programs written for its
# API (examples/<p>/<program>.c, built for every config into build/<cfg>/examples/<p>/), run
# with the config's commrun; their rows carry the target <config>+<series> (the series is the
# personality's name unless given).  Columns: personality, series, environment of the run,
# benchmark it stands beside, program, its arguments for the sizes lo..hi (quick: a short run),
# smallest and largest size it is run at (the APIs take no empty message; the seeds' own
# tables stop at 8 KiB, above it the native series says it all).  Each program prints '#'
# header lines, then "size value" rows.
_CSN_PP = lambda lo, hi, quick: [str(lo), str(hi), '100' if quick else str(LAT_ITERS)]
_CSN_ST = lambda lo, hi, quick: [str(lo), str(hi), '16', '2' if quick else '16']
# the option-style ping-pongs (-s, -i, -w): the native loop in a full run, short in a quick one
_LAT_OPTS = lambda lo, hi, quick, short: ['-s', '%d:%d' % (lo, hi)] + (short if quick else LAT_FULL)
PERSONALITY_BENCH = [
    dict(p='csn', bench='pingpong', program='csn_pingpong', min_size=1, max_size=65536,
         env=[], args=_CSN_PP),
    dict(p='csn', bench='stream', program='csn_stream', min_size=1, max_size=65536,
         env=[], args=_CSN_ST),
    # the same programs with CSN's eager Tx (csn.h, CSN_TX=eager): the personality's own cost,
    # without the synchronous Tx's acknowledgement that the seed's semantics ask for
    dict(p='csn', series='csn_eager', bench='pingpong', program='csn_pingpong', min_size=1,
         max_size=65536, env=['CSN_TX=eager'], args=_CSN_PP),
    dict(p='csn', series='csn_eager', bench='stream', program='csn_stream', min_size=1,
         max_size=65536, env=['CSN_TX=eager'], args=_CSN_ST),
    dict(p='atlas', bench='pingpong', program='atlas_pingpong', min_size=1, max_size=65536,
         env=[], args=lambda lo, hi, quick: _LAT_OPTS(lo, hi, quick, ['-i', '100'])),
    dict(p='atlas', bench='stream', program='atlas_stream', min_size=1, max_size=65536,
         env=[], args=lambda lo, hi, quick: ['-s', '%d:%d' % (lo, hi), '-i', '200' if quick else '2000']),
    # EPOS (seed 004): the config's Communicator and Channel members (link+datagram by default)
    dict(p='epos', bench='pingpong', program='epos_pingpong', min_size=1, max_size=65536,
         env=[], args=lambda lo, hi, quick: _LAT_OPTS(lo, hi, quick, ['-i', '100'])),
    # VIPL (seed 003): a VIA-era ping-pong through the CQ, every message from one data segment
    # (the native ping-pong's one buffer: the API's own cost), and with odd iterations gathering
    # from two (the paths alternate, as a program mixing descriptor shapes would)
    dict(p='vipl', bench='pingpong', program='pingpong', min_size=0, max_size=65536, env=[],
         args=lambda lo, hi, quick: _LAT_OPTS(lo, hi, quick, LAT_QUICK) + ['--gather', 'none']),
    dict(p='vipl', series='vipl_gather', bench='pingpong', program='pingpong', min_size=0,
         max_size=65536, env=[],
         args=lambda lo, hi, quick: _LAT_OPTS(lo, hi, quick, LAT_QUICK) + ['--gather', 'odd']),
]
for _r in PERSONALITY_BENCH:
    _r.setdefault('series', _r['p'])


# Seed 001's Table 1, the seed's own experiment: the CSN filter pipeline (source -> filter ->
# sink, three programs of one commrun job; examples/csn/) delivering MBYTES at each buffer size,
# with 1, 2 and 4 filter buffers; the sink's MB/s (10^6 B/s, every byte checked).  Rows:
# config <config>+csn, benchmark csn_filter_<buffers>.  Run in every round, after the benchmarks.
SEED_FILTER = dict(name='csn_filter', buffers=(1, 2, 4), sizes=(512, 4096, 32768, 131072),
                   quick_sizes=(4096,), mbytes=4, unit='MB/s', personality='csn',
                   programs=('source', 'filter', 'sink'))
SEED_PROGRAMS = ['%s/%s' % (SEED_FILTER['personality'], x) for x in SEED_FILTER['programs']]


def seed_filter_bench(buffers):
    return '%s_%d' % (SEED_FILTER['name'], buffers)


def personality_target(config, p):
    return '%s+%s' % (config, p)


def personality_of(target):
    """'<config>+<p>' -> the PERSONALITY_BENCH personality p (not mpi); None otherwise."""
    p = target.split('+', 1)[1] if '+' in target else None
    return p if p and p != MPI_SUFFIX[1:] else None


def personality_bench(target, bench_name):
    """The PERSONALITY_BENCH row of a personality target's benchmark, or None."""
    p = personality_of(target)
    return next((r for r in PERSONALITY_BENCH if r['series'] == p and r['bench'] == bench_name),
                None)


def personalities():
    """The personality series, in table order."""
    out = []
    for r in PERSONALITY_BENCH:
        if r['series'] not in out:
            out.append(r['series'])
    return out


def personality_dirs():
    """The personalities (examples/<p>/ folders) the series run programs of."""
    return sorted({r['p'] for r in PERSONALITY_BENCH})


def sizes_of(bench, target, sizes):
    """The sizes of `sizes` that target is run at in benchmark bench."""
    pb = personality_bench(target, bench['name'])
    lo = max(bench['min_size'], pb['min_size']) if pb else bench['min_size']
    hi = pb['max_size'] if pb else ANCHOR_MAX_SIZE.get(target, bench['max_size'])
    return [s for s in sizes if s >= lo and (hi is None or s <= hi)]


def targets_of(bench, configs, anchors):
    """The targets of one benchmark in run order: each config then its MPI series and its
    personality series, then the anchors."""
    out = []
    for c in configs:
        out.append(c)
        if has_twin(bench):
            out.append(mpi_target(c))
        out += [personality_target(c, r['series']) for r in PERSONALITY_BENCH
                if r['bench'] == bench['name']]
    return out + [a for a in anchors if a in bench['anchors']]


# Pseudo-benchmarks recorded in the same CSV.
INSTR = dict(name='instr', unit='Ir/msg')          # callgrind, once per config
# callgrind, once per config and per MPI series, at 8 B: the program's blocking send and receive
# calls per message, outside the wait loop's polling (lc_wait_held) (run.py, callgrind_api)
INSTR_API = dict(name='instr_api', unit='Ir/msg')
FAULT_BENCHES = ['fault_goodput', 'fault_latency']  # the fault sweep

CSV_COLUMNS = ['config', 'benchmark', 'size', 'round', 'value', 'unit', 'status']


def fmt_size(n):
    n = int(n)
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return '%d MiB' % (n >> 20)
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return '%d KiB' % (n >> 10)
    return '%d B' % n


def parse_size(text):
    text = text.strip()
    mult = 1
    if text[-1:] in 'kK':
        mult, text = 1 << 10, text[:-1]
    elif text[-1:] in 'mM':
        mult, text = 1 << 20, text[:-1]
    return int(text) * mult


def default_sizes():
    return [0] + [1 << k for k in range(0, 23)]


def summarise(values):
    """median, min, max, q1, q3 of a list of floats (None when empty)."""
    if not values:
        return None
    v = sorted(values)
    if len(v) >= 2:
        q = statistics.quantiles(v, n=4, method='inclusive')
        q1, q3 = q[0], q[2]
    else:
        q1 = q3 = v[0]
    return dict(median=statistics.median(v), min=v[0], max=v[-1], q1=q1, q3=q3, n=len(v))


def load_csv(path):
    """The rows of results.csv at path, each with its run's placement (attach_places) when the
    run probed it (placement.csv beside it)."""
    with open(path, newline='') as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r['size'] = int(r['size'])
        r['round'] = int(r['round'])
        r['value'] = float(r['value']) if r['value'] not in ('', None) else None
    attach_places(rows, os.path.join(os.path.dirname(path), PLACE_CSV))
    return rows


def cells(rows, benchmark=None):
    """{(config, benchmark, size): summary} over the ok rows."""
    acc = {}
    for r in rows:
        if r['status'] != 'ok' or r['value'] is None:
            continue
        if benchmark and r['benchmark'] != benchmark:
            continue
        acc.setdefault((r['config'], r['benchmark'], r['size']), []).append(r['value'])
    return {k: summarise(v) for k, v in acc.items()}


# The placement of a round.  A 2-node job runs on the machine's two vCPUs, and the host places
# them, and moves them between rounds, so that a cache line crosses from one to the other fast or
# slowly: the raw shared-memory floor's 8 B one-way time (anchor `shm`, measured in every round)
# was 0.06-0.10 us in some hours and 0.24-0.50 us in others on the same machine, and every series
# moves with it, not in the same proportion (docs/internals.md, "The message rate by placement").
# Rounds whose floors form two groups at least PLACE_GAP x apart are judged in each group too.
PLACE_GAP = 1.8
# Rounds each group has at least: one round off by itself is a disturbed round (a first round at
# 6.31 us against 0.07-0.46 us, /tmp/bench90), not a placement.
PLACE_MIN_ROUNDS = 2
# A probe with fewer than one in PLACE_LONE of all probes within PLACE_NEAR x of it is a lone one
# (lone_values): no placement, left out of the grouping.
PLACE_LONE = 200
PLACE_NEAR = 1.15


# The placement of each program's run, probed (run.py): the shm floor's 8 B one-way time just
# before it and just after it, in PLACE_CSV beside results.csv.  Between two runs of one round the
# host moved the vCPUs in 6 of 15 rounds of one small-message run (round 7: `baseline` 0.126 us, Open MPI
# 0.362 us in the same round), and a per-round ratio of two programs run in different placements
# measured the placement: such pairs are left out of every per-round ratio, and each run is judged
# in its own placement, not in its round's.
PLACE_CSV = 'placement.csv'
PLACE_COLUMNS = ['round', 'config', 'benchmark', 'before', 'after']


def lone_values(xs):
    """The values of xs (sorted) with fewer than len(xs) // PLACE_LONE neighbours within
    PLACE_NEAR x of them: a probe taken while the host moved the vCPUs lands between the two
    placements, by itself (0.12 us among 1770 probes at 0.034-0.069 and 0.196-0.325, /tmp/bench11),
    and splits their gap in two, each under PLACE_GAP.  Empty when xs are too few to tell."""
    need = len(xs) // PLACE_LONE
    if need == 0:
        return set()
    return {x for x in xs if bisect.bisect_right(xs, x * PLACE_NEAR) -
            bisect.bisect_left(xs, x / PLACE_NEAR) - 1 < need}


def two_groups(xs):
    """(lo, hi): the largest gap between the sorted values xs, lone values (lone_values) left
    out, that leaves PLACE_MIN_ROUNDS or more on either side, when it is PLACE_GAP x or more (lo:
    the largest value below it, hi: the smallest above; a value between them is of neither
    group); None when xs form one group."""
    xs = sorted(xs)
    lone = lone_values(xs)
    xs = [x for x in xs if x not in lone]
    cuts = range(PLACE_MIN_ROUNDS - 1, len(xs) - PLACE_MIN_ROUNDS)
    if not cuts:
        return None
    gap, i = max((xs[k + 1] / xs[k], k) for k in cuts)
    return (xs[i], xs[i + 1]) if gap >= PLACE_GAP else None


def attach_places(rows, path):
    """Mark each row of a probed run (path: PLACE_CSV) with r['place']: 'fast' or 'slow' when both
    probes of its run fall in that group of two_groups over every probe, 'mixed' when they do not
    (the host moved the vCPUs during the run), 'one' when the probes form one group; r['bounds']:
    that (lo, hi).  Rows of a run not probed get neither."""
    if not os.path.isfile(path):
        return
    with open(path, newline='') as f:
        probes = {}
        for p in csv.DictReader(f):
            try:
                probes[(int(p['round']), p['config'], p['benchmark'])] = (float(p['before']),
                                                                          float(p['after']))
            except (TypeError, ValueError):
                continue        # a probe that failed: the run's placement is not known
    bounds = two_groups([x for pair in probes.values() for x in pair])

    def group(x):
        return 'fast' if x <= bounds[0] else 'slow' if x >= bounds[1] else None

    for r in rows:
        pair = probes.get((r['round'], r['config'], r['benchmark']))
        if pair is None:
            continue
        r['bounds'] = bounds
        if bounds is None:
            r['place'] = 'one'
        else:
            g = {group(x) for x in pair}
            r['place'] = g.pop() if len(g) == 1 and None not in g else 'mixed'


def placements(rows):
    """(place, (lo, hi), how): place(row) is 'fast' or 'slow' (or None: neither) when the
    placements fall into two groups with at least PLACE_GAP x between the largest shm floor of
    the fast group (lo) and the smallest of the slow one (hi); how says what was grouped: 'runs'
    (each run's probes, attach_places) or 'rounds' (each round's shm floor at 8 B, ping-pong,
    when the run did not probe).  (None, None, None) when they form one group or too few were
    measured."""
    probed = [r for r in rows if 'place' in r]
    if probed:
        bounds = probed[0]['bounds']
        if bounds is None:
            return None, None, None
        return (lambda r: r.get('place') if r.get('place') in ('fast', 'slow') else None), bounds, 'runs'
    v = {r['round']: r['value'] for r in rows
         if r['config'] == 'shm' and r['benchmark'] == 'pingpong' and r['size'] == 8 and
         r['status'] == 'ok' and r['value']}
    bounds = two_groups(v.values())
    if bounds is None:
        return None, None, None
    classes = {rnd: 'fast' if x <= bounds[0] else 'slow' if x >= bounds[1] else None
               for rnd, x in v.items()}
    return (lambda r: classes.get(r['round'])), bounds, 'rounds'


def same_place(p, q):
    """Whether two runs of one round (their r.get('place')) ran in the same placement: both in one
    group, or either not probed (nothing says otherwise); never a run the host moved ('mixed')."""
    if p is None or q is None:
        return True
    return p == q and p != 'mixed'


def round_pairs(rows, a, b, benchmark, size):
    """{round: (row of a, row of b)} of one cell, over the rounds where both are ok."""
    got = {}
    for r in rows:
        if r['benchmark'] == benchmark and r['size'] == size and r['status'] == 'ok' \
                and r['value'] is not None and r['config'] in (a, b):
            got.setdefault(r['round'], {})[r['config']] = r
    return {k: (v[a], v[b]) for k, v in sorted(got.items()) if len(v) == 2}


def unpaired_rounds(rows, a, b, benchmark, size):
    """The rounds where a and b both measured the cell but in different placements (same_place):
    why round_ratios has no ratio for them."""
    return [k for k, (ra, rb) in round_pairs(rows, a, b, benchmark, size).items()
            if not same_place(ra.get('place'), rb.get('place'))]


def round_ratios(rows, a, b, benchmark, size):
    """Per-round ratios value(a) / value(b) of one cell, over the rounds where both are ok and
    both runs were in the same placement (same_place)."""
    return [ra['value'] / rb['value'] for ra, rb in round_pairs(rows, a, b, benchmark, size).values()
            if rb['value'] > 0 and same_place(ra.get('place'), rb.get('place'))]


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    if not xs:
        return None
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def applies(bench, active):
    """Whether bench runs on a config whose active protocols are `active`."""
    return bench['needs'] is None or bench['needs'] in active
