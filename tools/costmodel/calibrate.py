#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Calibrate the cost model's `emulated` parameter set on this machine.

usage: tools/costmodel/calibrate.py [--configs baseline,checksum,...] [--rounds N] [--out FILE]

Writes build/costmodel/emulated.json (or --out):
  copy_ns_per_byte   a memcpy of one frame (8 KiB, in cache): tools/bench/crc_speed.c's memcpy
                     column, bytes per TSC tick at the TSC's frequency
  handoff_ns,        tools/bench/shm_pingpong (the matrix's floor, pinned, busy-polling): its
  xcore_ns_per_byte  8 B one-way time is one cross-core hand-off; its slope from 8 B to 64 KiB is
                     a local copy in and a cross-core copy out, less the local copy
  ir[cfg]            callgrind instruction counts of each config's 8 B ping-pong, per message,
                     the copies' own instructions taken out (the copy speed times them): the
                     send side (lc_isend_held and the MCP's send step it runs) and the receive
                     side (the rest of lc_send + lc_recv less their polling loop, lc_wait_held,
                     plus the calls that loop makes once per frame); per frame what the
                     functions that run once a frame take (lc_tx_frame, lc_net_put, ...;
                     lc_rx_frame, the Rx DMA's completion, ...), per message the rest
  host_ns_per_ir     the one fitted figure: baseline's measured 8 B one-way latency (median of
                     --rounds runs, pinned) less the hand-off and the copies, over its
                     instructions -- every other size and every other config is a prediction
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'tools', 'bench'))
import run as bench  # noqa: E402

sys.path.insert(0, HERE)
import costmodel as cm  # noqa: E402

OUT = os.path.join(ROOT, 'build', 'costmodel', 'emulated.json')
WORK = os.path.join(ROOT, 'build', 'costmodel', 'work')
COPY_FNS = ('__memcpy_avx_unaligned_erms', '__memmove_avx_unaligned_erms',
            '__memcpy_avx_unaligned', '__memmove_avx_unaligned', 'memcpy', 'memmove')
TX_FNS = ('lc_isend_held', 'lc_nic_step_send_held')
PUT_BACK = ('lc_rx_frame', 'lc_finish', 'lc_nic_step_send_held', 'lc_nic_rx_dma_complete', 'lc_nic_rx_release')
NIC_FNS = ('lc_nic_step_send_held', 'lc_nic_rx_dma_complete', 'lc_nic_rx_release')
TX_FRAME_FNS = ('lc_tx_frame', 'lc_net_put', 'lc_nic_tx_slot')
RX_FRAME_FNS = ('lc_rx_frame', 'lc_nic_rx_dma_complete', 'lc_nic_rx_release')


def say(msg):
    sys.stderr.write('calibrate: %s\n' % msg)


def copy_speed():
    """ns per byte of an 8 KiB memcpy in cache (crc_speed.c's memcpy column)."""
    path = os.path.join(WORK, 'crc.csv')
    note = bench.crc_stage(WORK, path, True)
    if note.startswith('failed'):
        sys.exit('calibrate: crc_speed ' + note)
    with open(path) as f:
        rows = [l.strip().split(',') for l in f][1:]
    for size, what, median, _, _, ghz in rows:
        if size == '8192' and what == 'memcpy':
            return 1.0 / (float(median) * float(ghz))
    sys.exit('calibrate: crc_speed printed no 8 KiB memcpy')


def shm_floor(rounds):
    """(one-way ns at 8 B, ns per byte from 8 B to 64 KiB), the least over rounds."""
    bench.build_anchors(WORK, False)
    lat8, lat64 = [], []
    for _ in range(rounds):
        got, err = bench.run_sweep([os.path.join(WORK, 'shm_pingpong'), '--bind', 'core', '-s',
                                    '8:65536', '-i', '20000', '-w', '1000'], [8, 65536], 1, 120,
                                   lambda s: None)
        if err:
            sys.exit('calibrate: shm_pingpong: ' + err)
        lat8.append(got[8] * 1000)
        lat64.append(got[65536] * 1000)
    # a floor: the least of the rounds (noise only adds to it)
    a, b = min(lat8), min(lat64)
    return a, (b - a) / (65536 - 8)


def latency(cfg, size, rounds):
    """Median one-way ns of cfg's pingpong at size, pinned."""
    b = bench.cfg_bin(cfg)
    vals = []
    for _ in range(rounds):
        got, err = bench.run_sweep([os.path.join(b, 'commrun'), '-n', '2', '--bind', 'core',
                                    os.path.join(b, 'pingpong'), '-s', '%d:%d' % (size, size),
                                    '-i', '20000', '-w', '1000'], [size], 1, 120, lambda s: None)
        if err:
            sys.exit('calibrate: %s pingpong: %s' % (cfg, err))
        vals.append(got[size] * 1000)
    return statistics.median(vals), min(vals), max(vals)


def counts(cfg, iters):
    """{tx_msg, tx_frame, rx_msg, rx_frame, nic} Ir of cfg's 8 B ping-pong, per message.

    Collected inside lc_send and lc_recv only; their polling loop (lc_wait_held) is left out,
    the calls it makes once per frame put back (PUT_BACK), and the copies' own instructions
    taken out.  Per frame: the functions that run once per frame (TX_FRAME_FNS, RX_FRAME_FNS);
    the rest is per message.  The send side is lc_isend_held and the MCP's send step it runs."""
    b = bench.cfg_bin(cfg)
    o, paths, err = bench.callgrind_job([os.path.join(b, 'commrun'), '-n', '2', '--timeout', '600'],
                                        os.path.join(b, 'pingpong'),
                                        ['-s', '8:8', '-i', str(iters), '-w', '10'],
                                        ['lc_send', 'lc_recv'], 'cal.%s' % cfg, WORK)
    if err:
        sys.exit('calibrate: %s: %s' % (cfg, err))
    acc = dict(tx=0, rx=0, txf=0, rxf=0, nic=0)
    msgs = 0
    for path in paths:
        total, calls, incl = bench.callgrind_file(path)
        for f in (bench.API_WAIT, 'lc_send') + TX_FRAME_FNS + RX_FRAME_FNS:
            if not calls.get(f):
                sys.exit('calibrate: %s: no call of %s in %s (inlined, or renamed?)' % (cfg, f, path))
        copies = sum(incl.get(f, 0) for f in COPY_FNS)
        work = total - incl[bench.API_WAIT] + sum(incl.get(f, 0) for f in PUT_BACK) - copies
        tx = sum(incl.get(f, 0) for f in TX_FNS)
        acc['tx'] += tx
        acc['rx'] += work - tx
        acc['txf'] += sum(incl[f] for f in TX_FRAME_FNS)
        acc['rxf'] += sum(incl[f] for f in RX_FRAME_FNS)
        acc['nic'] += sum(incl.get(f, 0) for f in NIC_FNS)
        msgs += calls['lc_send']
    v = {k: x / msgs for k, x in acc.items()}
    return dict(tx_frame=v['txf'], tx_msg=max(0.0, v['tx'] - v['txf']),
                rx_frame=v['rxf'], rx_msg=max(0.0, v['rx'] - v['rxf']),
                nic_share=v['nic'] / (v['tx'] + v['rx']))


def fit(cal, build, size, measured_ns):
    """ns per instruction that makes the model's one-way time of build's config at size the
    measured one: the model is linear in it (instructions x ns + copies + hand-off), so the fit
    is the model's own formula solved, never a second copy of it."""
    cfg = cm.Config(build)
    at = lambda h: cm.one_way(cfg, dict(cal, host_ns_per_ir=h), cal, 1, size)  # noqa: E731
    rest, per_ir = at(0.0), at(1.0) - at(0.0)
    if per_ir <= 0 or measured_ns <= rest:
        sys.exit('calibrate: cannot fit: %.0f ns measured, %.0f ns without instructions'
                 % (measured_ns, rest))
    return (measured_ns - rest) / per_ir


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--configs', default='baseline,checksum,reliable,rendezvous,all,myrinet2000')
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--out', default=OUT)
    a = ap.parse_args(argv)
    os.makedirs(WORK, exist_ok=True)
    cfgs = [c for c in a.configs.split(',') if c]
    if 'baseline' not in cfgs:
        cfgs.insert(0, 'baseline')
    say('copy speed (crc_speed)')
    copy = copy_speed()
    say('shm floor (shm_pingpong, %d rounds)' % a.rounds)
    handoff, slope = shm_floor(a.rounds)
    ir, nic_share = {}, {}
    for c in cfgs:
        cj = bench.config_json(c)
        if not cj:
            sys.exit('calibrate: build/%s is not built (scons config-%s)' % (c, c))
        say('callgrind %s: 8 B ping-pong' % c)
        ir[c] = counts(c, 1000)
        nic_share[c] = ir[c].pop('nic_share')
    say('baseline 8 B latency (%d rounds)' % a.rounds)
    lat, lo, hi = latency('baseline', 8, a.rounds)
    out = dict(name='emulated', kind='emulated',
               about='calibrated by tools/costmodel/calibrate.py on %s, %s' % (
                   platform.node(), datetime.datetime.now().strftime('%Y-%m-%d %H:%M')),
               copy_ns_per_byte=copy, xcore_ns_per_byte=max(0.0, slope - copy), handoff_ns=handoff,
               fitted_on=dict(config='baseline', size=8, latency_ns=lat, spread_ns=[lo, hi]),
               nic_share=statistics.median(nic_share.values()), ir=ir)
    out['host_ns_per_ir'] = fit(out, os.path.join(ROOT, 'build', 'baseline'), 8, lat)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, 'w') as f:
        json.dump(out, f, indent=2, sort_keys=True)
    print(json.dumps(out, indent=2, sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
