#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The cost model beside the benchmark matrix: every measured ping-pong latency and stream
bandwidth of a native config next to the model's prediction, with the error.

usage: tools/costmodel/validate.py [RESULTS.csv] [--calibration FILE] [--tolerance 0.15]

RESULTS.csv defaults to build/bench/latest/results.csv; the calibration to the one the bench
run wrote beside it (costmodel.json), else build/costmodel/emulated.json.  report.py prints the
same table (its section "The cost model beside the measurements").  The myrinet2000 set is
checked against the published GM figures its file cites.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, 'tools', 'bench'))
import benchlib as bl  # noqa: E402
import costmodel as cm  # noqa: E402

TOLERANCE = 0.15
BENCHES = (('pingpong', 'latency', 'us'), ('stream', 'bandwidth', 'MB/s'))


def predict(cfg, p, cal, bench, size):
    if bench == 'pingpong':
        return cm.one_way(cfg, p, cal, 1, size) / 1000.0
    return cm.stream_bw(cfg, p, cal, 1, size)


def compare(cells, configs, cal, build_of=lambda c: os.path.join(ROOT, 'build', c)):
    """[(config, bench, size, measured, model, error)] of every native cell the model covers
    (error = model / measured - 1); the hop count is the identity placement's 0 -> 1 (one
    switch on the default crossbar)."""
    p = dict(cal, kind='emulated')
    out = []
    for c in configs:
        if not os.path.isfile(os.path.join(build_of(c), 'config.json')):
            continue
        cfg = cm.Config(build_of(c))
        for bench, _, _ in BENCHES:
            for (t, b, s), v in sorted(cells.items()):
                if t != c or b != bench or (bench == 'stream' and s == 0):
                    continue
                m = predict(cfg, p, cal, bench, s)
                out.append((c, bench, s, v['median'], m, m / v['median'] - 1 if v['median'] else None))
    return out


def myrinet_check(cal, build):
    """(latency us at 8 B, peak stream MB/s, published dict) of baseline under myrinet2000."""
    p = cm.load_params('myrinet2000')
    cfg = cm.Config(build)
    lat = cm.one_way(cfg, p, cal, 1, 8) / 1000.0
    bw = max(cm.stream_bw(cfg, p, cal, 1, s) for s in (1 << 16, 1 << 20, 1 << 22))
    return lat, bw, p['published']


def myrinet_lines(cal):
    """The myrinet2000 set against GM's published figures: baseline, and -- GM delivers
    reliably and in order -- reliable (checksum + reliability) when it is built and calibrated."""
    L = []
    for c, why in (('baseline', ''), ('reliable', ", the like-for-like one: GM's delivery is reliable "
                                                  "and ordered, as with this config's protocols")):
        b = os.path.join(ROOT, 'build', c)
        if not os.path.isfile(os.path.join(b, 'config.json')) or c not in cal.get('ir', {}):
            continue
        lat, bw, pub = myrinet_check(cal, b)
        if not L:
            L += ['', 'Parameter set `myrinet2000` (tools/costmodel/myrinet2000.json: a LANai 9 and a '
                  'host of its time running these instruction counts) against GM on Myrinet-2000 (%.1f '
                  'us, %.0f MB/s published):' % (pub['latency_us'], pub['bandwidth_mb_s']), '']
        L.append('- %s%s: 8 B one-way %.2f us (%+.0f %%); peak stream %.0f MB/s (%+.0f %%).' % (
            c, why, lat, 100 * (lat / pub['latency_us'] - 1), bw, 100 * (bw / pub['bandwidth_mb_s'] - 1)))
    return L


def section(cells, configs, cal, tolerance=TOLERANCE):
    """The report's lines."""
    L = ['The model (`tools/costmodel/costmodel.py`, parameter set `emulated`, calibrated by '
         '`tools/costmodel/calibrate.py` on %s: two fitted figures, ns per instruction from '
         "baseline's 8 B latency and a Tx DMA request's start-up from its 1 KiB latency; the rest "
         'measured copy speeds and callgrind counts) predicts every cell below; error = model / '
         'measured − 1.' % cal.get('about', '?').split(' on ')[-1], '']
    rows = compare(cells, configs, cal)
    if not rows:
        return L + ['No native ping-pong or stream cell to compare.', '']
    L += ['| config | within %d %% (latency) | within %d %% (bandwidth) | worst |'
          % (tolerance * 100, tolerance * 100), '|---|---|---|---|']
    for c in configs:
        mine = [r for r in rows if r[0] == c]
        if not mine:
            continue
        cols = []
        for bench, _, _ in BENCHES:
            rs = [r for r in mine if r[1] == bench and r[5] is not None]
            ok = sum(1 for r in rs if abs(r[5]) <= tolerance)
            cols.append('%d of %d' % (ok, len(rs)) if rs else 'n/a')
        worst = max(mine, key=lambda r: abs(r[5] or 0))
        L.append('| %s | %s | %s | %s %s %+.0f %% |' % (c, cols[0], cols[1], worst[1],
                                                        bl.fmt_size(worst[2]), 100 * worst[5]))
    L += ['', '| config | benchmark | size | measured | model | error |', '|---|---|---|---|---|---|']
    for c, bench, s, meas, mod, err in rows:
        unit = dict((b, u) for b, _, u in BENCHES)[bench]
        L.append('| %s | %s | %s | %.4g %s | %.4g %s | %+.1f %% |' % (c, bench, bl.fmt_size(s), meas,
                                                                 unit, mod, unit, 100 * err))
    L += myrinet_lines(cal)
    return L + ['']


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('results', nargs='?', default=os.path.join(ROOT, 'build', 'bench', 'latest',
                                                               'results.csv'))
    ap.add_argument('--calibration')
    ap.add_argument('--tolerance', type=float, default=TOLERANCE)
    a = ap.parse_args(argv)
    calp = a.calibration or os.path.join(os.path.dirname(a.results), 'costmodel.json')
    if not os.path.isfile(calp):
        calp = cm.CALIBRATION
    with open(calp) as f:
        cal = json.load(f)
    cells = bl.cells(bl.load_csv(a.results))
    configs = sorted(set(t for t, _, _ in cells if os.path.isfile(
        os.path.join(ROOT, 'build', t, 'config.json'))))
    print('\n'.join(section(cells, configs, cal, a.tolerance)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
