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


def in_run(cells, cal, build_of=lambda c: os.path.join(ROOT, 'build', c)):
    """The calibration as the run's own rounds saw the machine: the shm floor's ping-pong and
    stream curves (and the hand-off, its 8 B one-way) from the run's shm anchor medians, and
    the four fitted figures fitted again on the run's baseline medians (8 B, one frame above
    pio_threshold, 8 frames, the 8 B stream), so that floors and cells come from the same interleaved rounds.  This
    machine's phases move the floor by up to 2x within minutes: a calibration taken before the
    rounds predicted the same code 59 or 29 of 93 cells within 15 %, by the phase it fell in.
    The calibration unchanged when the run has no shm anchor or no baseline cells."""
    pp = sorted((s, v['median'] * 1000.0) for (t, b, s), v in cells.items()
                if t == 'shm' and b == 'pingpong' and s > 0 and v['median'] > 0)
    st = sorted((s, s / v['median'] * 1000.0) for (t, b, s), v in cells.items()
                if t == 'shm' and b == 'stream' and s > 0 and v['median'] > 0)
    base = build_of('baseline')
    if len(pp) < 2 or not os.path.isfile(os.path.join(base, 'config.json')):
        return cal
    import calibrate
    out = dict(cal, shm_curve=pp, handoff_ns=dict(pp).get(8, pp[0][1]))

    def refit(key, size, measured_ns):
        # the run's shm floor and its baseline cell in two placements (the floor's run slow, the
        # library's fast: a one-round run whose vCPUs moved between them) fit nothing: keep the
        # calibration's own figure
        try:
            return calibrate.fit(out, base, size, measured_ns, key)
        except calibrate.CannotFit as e:
            sys.stderr.write('validate: %s: the calibration\'s %s kept\n' % (e, key))
            return cal.get(key, 0.0)

    if len(st) >= 2:
        out['shm_stream_curve'] = st
    lat = cells.get(('baseline', 'pingpong', 8))
    if lat:
        out['host_ns_per_ir'] = refit('host_ns_per_ir', 8, lat['median'] * 1000.0)
        out['fitted_on'] = dict(out.get('fitted_on', {}), latency_ns=lat['median'] * 1000.0, run=True)
    dsize = calibrate.dma_fit_size(cm.Config(base))
    dlat = cells.get(('baseline', 'pingpong', dsize))
    if lat and dlat:
        out['dma_ns'] = refit('dma_ns', dsize, dlat['median'] * 1000.0)
    fsize = calibrate.further_fit_size(cm.Config(base))
    flat = cells.get(('baseline', 'pingpong', fsize))
    if lat and flat:
        out['further_ns'] = refit('further_ns', fsize, flat['median'] * 1000.0)
    srate = cells.get(('baseline', 'stream', 8))
    if srate and srate['median'] > 0:
        out['stream_ns_per_ir'] = calibrate.fit_stream(out, base, 8, srate['median'])
    out['about'] = cal.get('about', '?') + '; floors and fitted figures from this run\'s medians'
    return out


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


def myrinet_check(cal, build, variant=''):
    """(latency us at 8 B, peak stream MB/s, host CPU us per message, params) of a config under
    myrinet2000[:variant]; the host's share is its send and receive instructions (the
    components host_send and host_recv at 8 B)."""
    p = cm.load_params('myrinet2000' + (':' + variant if variant else ''))
    cfg = cm.Config(build)
    ex = []
    lat = cm.one_way(cfg, p, cal, 1, 8, ex) / 1000.0
    bw = max(cm.stream_bw(cfg, p, cal, 1, s) for s in (1 << 16, 1 << 20, 1 << 22))
    host = sum(ns for name, _, ns in ex if name in ('host_send', 'host_recv')) / 1000.0
    return lat, bw, host, p


def clock_split(lat_slow, lat_fast, mhz_slow, mhz_fast):
    """A latency measured on two cards that differ only in the NIC's clock, as (the part that
    runs at the NIC's clock, on the slower card; the rest): lat = nic + rest, nic scaling as
    1 / clock, so lat_slow - lat_fast = nic (1 - mhz_slow / mhz_fast)."""
    nic = (lat_slow - lat_fast) / (1.0 - float(mhz_slow) / mhz_fast)
    return nic, lat_slow - nic


def myrinet_lines(cal):
    """The myrinet2000 set against GM's published figures on the same two cards (PCI64B,
    PCI64C): baseline, and -- GM delivers reliably and in order -- reliable (checksum +
    reliability) when it is built and calibrated; then each latency split by the cards' clocks
    into the NIC's part and the rest, the model's and GM's, and the host's CPU per message."""
    L, split = [], []
    for c, why in (('baseline', ''), ('reliable', " (GM's delivery is reliable and ordered, as "
                                                  "with this config's protocols)")):
        b = os.path.join(ROOT, 'build', c)
        if not os.path.isfile(os.path.join(b, 'config.json')) or c not in cal.get('ir', {}):
            continue
        cards = {}
        for v in cm.load_params('myrinet2000')['variant_names']:
            cards[v] = myrinet_check(cal, b, v)
            lat, bw, host, p = cards[v]
            pub = p['published']
            if not L:
                L += ['', 'Parameter set `myrinet2000` (tools/costmodel/myrinet2000.json: a LANai 9 and '
                      'a host of its time running these instruction counts) against GM-1.6.4 on the same '
                      'two cards (%s):' % p['sources']['checked_against'].split(':')[0], '',
                      '| config | card | 8 B one-way: model | GM | error | peak stream: model | GM | '
                      'error |', '|---|---|---|---|---|---|---|---|']
            L.append('| %s%s | %s (%d MHz) | %.2f us | %.1f us | %+.0f %% | %.0f MB/s | %.0f MB/s | '
                     '%+.0f %% |' % (c, why, v, p['nic_mhz'], lat, pub['latency_us'],
                                     100 * (lat / pub['latency_us'] - 1), bw, pub['bandwidth_mb_s'],
                                     100 * (bw / pub['bandwidth_mb_s'] - 1)))
        if len(cards) == 2:
            (_, slow), (_, fast) = sorted(cards.items(), key=lambda kv: kv[1][3]['nic_mhz'])
            f0, f1 = slow[3]['nic_mhz'], fast[3]['nic_mhz']
            mn, mr = clock_split(slow[0], fast[0], f0, f1)
            gn, gr = clock_split(slow[3]['published']['latency_us'], fast[3]['published']['latency_us'],
                                 f0, f1)
            gh = slow[3]['published']['host_us_per_msg']
            split.append('- %s: at the NIC\'s clock %.2f us (GM %.2f), the rest -- host, PCI, link '
                         '-- %.2f us (GM %.2f); of it the host\'s CPU per message (send and receive '
                         'instructions) %.2f us (GM %.2f, %+.0f %%).' % (
                             c, mn, gn, mr, gr, slow[2], gh, 100 * (slow[2] / gh - 1)))
    if split:
        L += ['', 'Each 8 B latency split by the two cards\' clocks (a part that runs at the NIC\'s '
              'clock, scaling as 1 / clock, and the rest: solved from the two cards\' latencies, '
              'the model\'s as GM\'s; %d MHz card):' % f0, ''] + split
    return L


def section(cells, configs, cal, tolerance=TOLERANCE):
    """The report's lines."""
    L = ['The model (`tools/costmodel/costmodel.py`, parameter set `emulated`, calibrated by '
         '`tools/costmodel/calibrate.py` on %s: four fitted figures, ns per instruction from '
         "baseline's 8 B latency, a Tx DMA request's start-up from its 1 KiB latency, what a "
         "long message's further frames cost from its 64 KiB latency and ns per "
         "instruction in a stream from its 8 B stream, all fitted again on this run's medians, and the shm floor's curves taken from this run's "
         'shm anchor (`validate.in_run`: the floors of the same rounds as the cells); the rest '
         'measured copy speeds and callgrind counts) predicts every cell below; error = model / '
         'measured − 1.' % cal.get('about', '?').split(' on ')[-1].split(';')[0], '']
    cal = in_run(cells, cal)
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
