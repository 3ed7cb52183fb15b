#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Rank the built configurations for a job's profile by the cost model's predicted time.

usage: tools/costmodel/advise.py PROFILE [--params emulated|FILE] [--configs a,b,...]
                                 [--pattern latency|stream] [--json]
       tools/costmodel/advise.py --check RESULTS.csv [--calibration FILE]

PROFILE is what `commrun --stats` printed for a run of the job (its message sizes, traffic
matrix, counters and injected faults), or a JSON profile:
    {"sizes": [[bytes, messages], ...], "loss": {"drop": 0.01, "corrupt": 0.0, ...},
     "needs": ["credits"], "pattern": "latency", "pairs": [[src, dst, messages], ...]}
A job's predicted time under a config is the sum over its messages of the model's one-way time
(pattern latency: each message waits for the one before) or of a message's time in a stream
(pattern stream).  A config is unsuitable when it lacks a capability the job needs (registry
`provides`, config.json): a link that loses, damages, duplicates or reorders frames needs
exactly_once.  Under loss, a config that provides it pays each lost frame again after its
retransmission timeout (latency) or a window of frames (stream, go-back-N).  Each row says
why: the needs it meets, what it composes the job does not need, and the components of the
model where it differs most from the fastest.

--check compares the advisor's ranking of the configs of a benchmark matrix with the measured
one, per benchmark program (its sizes, one message each) and per size.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, 'tools'))
sys.path.insert(0, os.path.join(ROOT, 'tools', 'bench'))
import costmodel as cm  # noqa: E402
import commstats  # noqa: E402

# a fault of the link -> the capability a config needs to deliver every message anyway
FAULT_NEEDS = {'drop': 'exactly_once', 'corrupt': 'exactly_once', 'dup': 'exactly_once',
               'reorder': 'exactly_once'}
# faults a go-back-N receiver answers by resending: a dropped or damaged frame, and one that
# arrives after a later one (the later one is dropped as out of order)
RESENT = ('drop', 'corrupt', 'reorder')
TIE = 0.05   # --check: a top choice within 5 % of the measured best counts as right


def die(msg):
    sys.stderr.write('advise.py: %s\n' % msg)
    sys.exit(2)


def profile_of_stats(t, path):
    """The profile of a `commrun --stats` run (commstats tables)."""
    if 'sizes' not in t:
        die('%s: no "# message sizes" table (a run of commrun --stats?)' % path)
    tx = t.get('counters', {}).get('tx_msgs', [])
    sizes = {}
    for node, rows in t['sizes'].items():
        sent = sum(m for _, _, m, _ in rows)
        # the histogram counts what Net-Send carried, retransmitted first frames too; the
        # host's tx_msgs is the number of messages the node sent
        scale = tx[node] / sent if node < len(tx) and tx[node] is not None and 0 < tx[node] < sent else 1.0
        for _, _, m, nb in rows:
            s = round(nb / m) if m else 0
            sizes[s] = sizes.get(s, 0) + m * scale
    frames = sum(v['frames'] for v in t.get('traffic', {}).values())
    loss = {}
    for v in t.get('faults', {}).values():
        for k, n in v.items():
            loss[k] = loss.get(k, 0) + n
    loss = {k: n / frames for k, n in loss.items() if n and frames and k in FAULT_NEEDS}
    pairs = [(s, d, v['msgs']) for (s, d), v in t.get('traffic', {}).items() if v['msgs']]
    return dict(sizes=sorted(sizes.items()), loss=loss, needs=[], pattern='latency', pairs=pairs)


def read_profile(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        die(str(e))
    if text.lstrip().startswith('{'):
        try:
            p = json.loads(text)
        except ValueError as e:
            die('%s: %s' % (path, e))
        for key, ok in (('sizes', lambda v: isinstance(v, list) and v and all(
                            isinstance(r, list) and len(r) == 2 and all(
                                isinstance(x, (int, float)) and x >= 0 for x in r) for r in v)),
                        ('loss', lambda v: isinstance(v, dict) and all(
                            k in FAULT_NEEDS and isinstance(x, (int, float)) and 0 <= x < 1
                            for k, x in v.items())),
                        ('needs', lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v)),
                        ('pattern', lambda v: v in ('latency', 'stream')),
                        ('pairs', lambda v: isinstance(v, list) and all(
                            isinstance(r, list) and len(r) == 3 for r in v))):
            if key == 'sizes' and key not in p:
                die('%s: key sizes: missing ([[bytes, messages], ...])' % path)
            if key in p and not ok(p[key]):
                die('%s: key %s: %s is not valid (see advise.py --help)' % (path, key, json.dumps(p[key])))
        unknown = set(p) - {'sizes', 'loss', 'needs', 'pattern', 'pairs', 'about'}
        if unknown:
            die('%s: unknown key %s' % (path, sorted(unknown)[0]))
        p.setdefault('loss', {})
        p.setdefault('needs', [])
        p.setdefault('pattern', 'latency')
        p.setdefault('pairs', [])
        p['sizes'] = [(int(s), m) for s, m in p['sizes']]
        return p
    try:
        return profile_of_stats(commstats.parse(text), path)
    except commstats.Error as e:
        no, why = e.args
        die('%s:%d: %s' % (path, no, why))


def capabilities(build):
    """{capability: protocol} of a built config (config.json)."""
    with open(os.path.join(build, 'config.json')) as f:
        cj = json.load(f)
    return {c: p['name'] for p in cj.get('active_protocols', []) for c in p.get('provides', [])}, \
        {p['name']: p.get('params', {}) for p in cj.get('active_protocols', [])}


def needs_of(prof):
    """{capability: why} the job needs."""
    out = {c: 'the profile asks for it' for c in prof['needs']}
    for k, rate in sorted(prof['loss'].items()):
        if rate > 0:
            why = out.get(FAULT_NEEDS[k], 'the link')
            out[FAULT_NEEDS[k]] = '%s %s %.2g %% of frames' % (
                why if why != 'the link' else 'the link', {'drop': 'drops', 'corrupt': 'damages',
                                                          'dup': 'duplicates', 'reorder': 'reorders'}[k],
                100 * rate)
    return out


def predict(cfg, p, cal, prof, hops_of, params):
    """(ns of the job, {component: ns}) under cfg."""
    total, comps = 0.0, {}
    pairs = prof['pairs'] or [(0, 1, 1)]
    weight = sum(m for _, _, m in pairs)
    resent = sum(prof['loss'].get(k, 0.0) for k in RESENT)
    rel = next((v for v in params.values() if 'timeout_us' in v), None)
    for size, msgs in prof['sizes']:
        for s, d, m in pairs:
            h = hops_of(s, d)
            share = msgs * m / weight
            ex = []
            if prof['pattern'] == 'stream':
                t = cm.stream_ns(cfg, p, cal, h, size)
                cm.one_way(cfg, p, cal, h, size, ex)
            else:
                t = cm.one_way(cfg, p, cal, h, size, ex)
            if resent and rel:
                f = len(cm.frames_of(cfg, size))
                frame = cm.one_way(cfg, p, cal, h, min(size, cfg.mtu))
                again = (rel.get('window', 1) * cm.stream_ns(cfg, p, cal, h, min(size, cfg.mtu))
                         if prof['pattern'] == 'stream' else rel['timeout_us'] * 1000.0 + frame)
                t += f * resent / (1 - resent) * again
                comps['retransmission'] = comps.get('retransmission', 0.0) + \
                    share * f * resent / (1 - resent) * again
            total += share * t
            for name, _, ns in ex:
                comps[name] = comps.get(name, 0.0) + share * ns
    return total, comps


def candidates(names):
    """Built configs: the named ones, else every configs/*.lua built with an untimed network
    (a timed config models another network, not this machine's)."""
    if names:
        out = names
    else:
        out = sorted(f[:-4] for f in os.listdir(os.path.join(ROOT, 'configs')) if f.endswith('.lua'))
    built = []
    for c in out:
        b = os.path.join(ROOT, 'build', c)
        if not os.path.isfile(os.path.join(b, 'config.json')):
            if names:
                die('build/%s is not built (scons config-%s)' % (c, c))
            continue
        if not names and cm.Config(b).link_mbps:
            continue
        built.append(c)
    return built


def rank(prof, configs, p, cal, routes=True, build_of=lambda c: os.path.join(ROOT, 'build', c)):
    """[dict(config, ns, ok, why, comps, note)] best first; unsuitable configs last."""
    import place
    need = needs_of(prof)
    nodes = max([max(s, d) + 1 for s, d, _ in prof['pairs']] + [2])
    rows = []
    for c in configs:
        b = build_of(c)
        cfg = cm.Config(b)
        caps, params = capabilities(b)
        if routes:
            r = place.read_routes(b, nodes)
            hops_of = lambda s, d, r=r: len(r.get((s, d), [None]))  # noqa: E731
        else:
            hops_of = lambda s, d: 1  # noqa: E731
        missing = [k for k in need if k not in caps]
        ns, comps = predict(cfg, p, cal, prof, hops_of, params)
        _, note = cm.instructions(cfg, cal)
        rows.append(dict(config=c, ns=ns, ok=not missing, comps=comps, note=note,
                         missing=missing, caps=caps, protos=sorted(cfg.protos)))
    rows.sort(key=lambda r: (not r['ok'], r['ns']))
    best = rows[0] if rows and rows[0]['ok'] else None
    for r in rows:
        why = []
        if r['missing']:
            why.append('unsuitable: no %s, %s' % (', '.join(r['missing']),
                                                 '; '.join(need[k] for k in r['missing'])))
        for k in need:
            if k in r['caps']:
                why.append('%s gives %s: %s' % (r['caps'][k], k, need[k]))
        used = set(r['caps'][k] for k in need if k in r['caps'])
        idle = [x for x in r['protos'] if x not in used]
        if idle:
            why.append('composes %s, which this job does not need' % ', '.join(idle))
        if best and r['ok'] and r is not best:
            d = sorted(((r['comps'].get(k, 0) - best['comps'].get(k, 0), k)
                        for k in set(r['comps']) | set(best['comps'])), key=lambda x: -abs(x[0]))
            why.append('against %s: %s' % (best['config'], ', '.join(
                '%s %+.0f %%' % (k, 100 * v / best['ns']) for v, k in d[:2] if abs(v) > 0.01 * best['ns'])
                or 'within 1 % in every component'))
        if r['note']:
            why.append(r['note'])
        r['why'] = '; '.join(why)
        r['vs_best'] = r['ns'] / best['ns'] - 1 if best else None
    return rows


def load_cal(path=None):
    path = path or cm.CALIBRATION
    if not os.path.isfile(path):
        die('%s is missing: run tools/costmodel/calibrate.py first' % path)
    with open(path) as f:
        return json.load(f)


def describe(prof):
    n = sum(m for _, m in prof['sizes'])
    lo, hi = min(s for s, _ in prof['sizes']), max(s for s, _ in prof['sizes'])
    loss = ', '.join('%s %.2g %%' % (k, 100 * v) for k, v in sorted(prof['loss'].items()) if v)
    return '%.0f messages of %d-%d B, pattern %s%s' % (n, lo, hi, prof['pattern'],
                                                     ', loss ' + loss if loss else '')


def kendall(a, b):
    """Kendall's tau of two orders of the same items."""
    pa, pb = {x: i for i, x in enumerate(a)}, {x: i for i, x in enumerate(b)}
    items, c, d = list(a), 0, 0
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            s = (pa[items[i]] - pa[items[j]]) * (pb[items[i]] - pb[items[j]])
            c, d = c + (s > 0), d + (s < 0)
    return (c - d) / (c + d) if c + d else 1.0


def check(cells, configs, cal):
    """[(benchmark, sizes, advised order, measured order, tau, top right)] of each benchmark
    program of the matrix, its profile one message of each size it measured, and per size."""
    p = dict(cal, kind='emulated')
    out = []
    for bench, pattern in (('pingpong', 'latency'), ('stream', 'stream')):
        have = [c for c in configs if os.path.isfile(os.path.join(ROOT, 'build', c, 'config.json'))]
        sizes = sorted(set(s for (c, b, s) in cells if b == bench and c in have and
                           (pattern == 'latency' or s > 0)))
        sizes = [s for s in sizes if all((c, bench, s) in cells for c in have)]
        if len(have) < 2 or not sizes:
            continue

        def measured(c, ss):
            # a message's time: the latency itself, or its bytes at the stream's bandwidth
            return sum(cells[(c, bench, s)]['median'] * 1000 if pattern == 'latency'
                       else s / cells[(c, bench, s)]['median'] * 1000 for s in ss)
        for label, ss in [('all sizes', sizes)] + [(str(s), [s]) for s in sizes]:
            prof = dict(sizes=[(s, 1) for s in ss], loss={}, needs=[], pattern=pattern, pairs=[])
            adv = [r['config'] for r in rank(prof, have, p, cal, routes=False)]
            meas = sorted(have, key=lambda c: measured(c, ss))
            best = measured(meas[0], ss)
            out.append((bench, label, adv, meas, kendall(adv, meas),
                        measured(adv[0], ss) <= (1 + TIE) * best))
    return out


def check_section(cells, configs, cal):
    """report.md's lines: the advisor against the matrix."""
    rows = check(cells, configs, cal)
    if not rows:
        return ['No benchmark program measured two built configs: nothing to rank.', '']
    L = ['The advisor (`tools/costmodel/advise.py`) ranks the run\'s configs for a job that sends '
         'one message of each size a benchmark program measured; beside it, the order measured. '
         'Kendall\'s tau is 1 for the same order; "top right": the advisor\'s first choice measured '
         'within %d %% of the fastest.' % (TIE * 100), '',
         '| benchmark | sizes | advised | measured | tau | top right |', '|---|---|---|---|---|---|']
    for bench, label, adv, meas, tau, top in rows:
        if label == 'all sizes':
            L.append('| %s | %s | %s | %s | %.2f | %s |' % (bench, label, ' < '.join(adv),
                                                           ' < '.join(meas), tau, 'yes' if top else 'no'))
    for bench in sorted(set(r[0] for r in rows)):
        per = [r for r in rows if r[0] == bench and r[1] != 'all sizes']
        L.append('')
        L.append('%s, each size alone: top choice right at %d of %d sizes, median tau %.2f.' % (
            bench, sum(1 for r in per if r[5]), len(per),
            sorted(r[4] for r in per)[len(per) // 2] if per else 0))
    return L + ['']


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('profile', nargs='?')
    ap.add_argument('--params', default='emulated')
    ap.add_argument('--calibration')
    ap.add_argument('--configs', default='')
    ap.add_argument('--pattern', choices=('latency', 'stream'))
    ap.add_argument('--json', action='store_true')
    ap.add_argument('--check', metavar='RESULTS.csv')
    ap.add_argument('--calibrate', action='store_true',
                    help='run tools/costmodel/calibrate.py first when the calibration lacks a config')
    a = ap.parse_args(argv)
    if a.calibrate and not a.check:
        want = candidates([c for c in a.configs.split(',') if c])
        have = {}
        if os.path.isfile(a.calibration or cm.CALIBRATION):
            have = load_cal(a.calibration).get('ir', {})
        if any(c not in have for c in want):
            import subprocess
            sys.stderr.write('advise.py: calibrating the cost model on %s\n' % ', '.join(want))
            if subprocess.call([sys.executable, os.path.join(HERE, 'calibrate.py'), '--configs',
                                ','.join(want), '--rounds', '3', '--out', a.calibration or cm.CALIBRATION],
                               stdout=subprocess.DEVNULL) != 0:
                die('calibrate.py failed')
    cal = load_cal(a.calibration)
    if a.check:
        import benchlib as bl
        cells = bl.cells(bl.load_csv(a.check))
        print('\n'.join(check_section(cells, sorted(set(c for c, _, _ in cells)), cal)))
        return 0
    if not a.profile:
        ap.error('a PROFILE (or --check RESULTS.csv) is needed')
    prof = read_profile(a.profile)
    if a.pattern:
        prof['pattern'] = a.pattern
    p = dict(cal, kind='emulated') if a.params == 'emulated' else cm.load_params(a.params)
    configs = candidates([c for c in a.configs.split(',') if c])
    if not configs:
        die('no built config to rank (scons builds them)')
    rows = rank(prof, configs, p, cal)
    if a.json:
        print(json.dumps([dict((k, r[k]) for k in ('config', 'ns', 'ok', 'vs_best', 'why'))
                          for r in rows], indent=1))
        return 0
    print('# advise: %s (%s), parameter set %s' % (a.profile, describe(prof), p.get('name', a.params)))
    print('%-4s  %-22s  %12s  %8s  %s' % ('rank', 'config', 'predicted', 'vs best', 'why'))
    for i, r in enumerate(rows, 1):
        print('%-4s  %-22s  %9.3f ms  %8s  %s' % (i if r['ok'] else '-', r['config'], r['ns'] / 1e6,
                                                  '%+.0f %%' % (100 * r['vs_best'])
                                                  if r['ok'] and r['vs_best'] is not None else 'n/a',
                                                  r['why']))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
