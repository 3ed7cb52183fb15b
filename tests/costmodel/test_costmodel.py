#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The cost model's formulas: prints "N passed, M failed" (tools/run_tests.py).

usage: tests/costmodel/test_costmodel.py BUILD_DIR   (any config: its commrun gives the routes)

Checked against hand computations, not against the model itself: seed 002's remote write with
its constants verbatim; the network alone as hops x hop_ns + bytes at the link's rate; the
frames of a message overlapping in the stages (never slower than one after the other, never
faster than its slowest stage); a rendezvous message paying its handshake and no copy out; the
calibration's fit reproducing the latency it was fitted on; the command line on a real build.
"""
import os
import subprocess
import sys
from types import SimpleNamespace

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
sys.path.insert(0, os.path.join(ROOT, 'tools', 'costmodel'))
import costmodel as cm  # noqa: E402
import calibrate  # noqa: E402
import advise  # noqa: E402
import validate  # noqa: E402
sys.path.insert(0, os.path.join(HERE, '..'))
from pychecks import check, finish, skip  # noqa: E402



def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def config(**kw):
    c = dict(build='', name='test', mtu=8192, hdr=32, pio_threshold=256, protos=set(), rndv=None,
             link_mbps=0, hop_ns=0, inline_mcp=True, staging_slots=1, recv_word=8)
    c.update(kw)
    return SimpleNamespace(**c)


CAL = dict(name='emulated', kind='emulated', copy_ns_per_byte=0.05, xcore_ns_per_byte=0.2,
           handoff_ns=300.0, host_ns_per_ir=0.4, nic_share=0.2,
           ir={'test': dict(tx_msg=600, tx_frame=350, rx_msg=270, rx_frame=250)})


def seed002():
    """A 2 KiB remote write through one node of the ring, by seed 002's B.1 formulas."""
    p = cm.load_params('sci')
    cfg = config()
    size, hdr = 2048, 32
    M, P, B, S = 10.0, 1000.0 / 33, 1.0, 2.0
    mem = lambda n: 14 * M * n / 8          # noqa: E731
    pci = lambda n: 3 * P * n / 4           # noqa: E731
    want = (mem(size) + pci(size) + 12 * B * (size + hdr) / 64 + 200 * (size + hdr) / 64 +
            (4 * S + 25) + 8 * B * (size + hdr) / 64 + pci(size) + mem(size))
    got = cm.one_way(cfg, p, None, 1, size)
    check(close(got, want, 1e-3), 'sci, 2 KiB over one node: %.1f ns, seed 002 gives %.1f' % (got, want))
    two = cm.one_way(cfg, p, None, 3, size)
    check(close(two - got, 2 * (4 * S + 25), 1e-6), 'sci: each further node adds T_pass_node')


def network():
    p = cm.network(2000, 500)
    cfg = config()
    for hops, size in ((1, 0), (1, 8), (3, 8192), (3, 100000)):
        frames = max(1, -(-size // 8192))
        want = hops * 500 + (size + frames * 32) * 4.0
        got = cm.one_way(cfg, p, None, hops, size)
        check(close(got, want), 'network, %d hops, %d B: %.1f ns, want %.1f' % (hops, size, got, want))
    bw = cm.stream_bw(cfg, p, None, 1, 1 << 20)
    check(close(bw, (1 << 20) / ((1 << 20) + 128 * 32) * 250.0, 1e-9),
          'network: a stream runs at the link rate less the headers (%.2f MB/s)' % bw)


def pipeline():
    cfg = config()
    one = cm.one_way(cfg, CAL, CAL, 1, 8192)
    eight = cm.one_way(cfg, CAL, CAL, 1, 8 * 8192)
    check(eight < 8 * one, '8 frames overlap: %.0f ns against 8 x %.0f' % (eight, one))
    # by hand: the first frame through everything, then each further frame at the pace of the
    # slower side (the send side: its instructions, copy in, Net-Send's copy with the header;
    # the receive side: the cross-core read of frame and header, its instructions, copy out)
    h, c, x, ir = CAL['host_ns_per_ir'], CAL['copy_ns_per_byte'], CAL['xcore_ns_per_byte'], CAL['ir']['test']
    tx = ir['tx_frame'] * h + 8192 * c + 8224 * c
    rx = ir['rx_frame'] * h + 8224 * x + 8192 * c
    check(close(eight, one + 7 * max(tx, rx)), '8 frames: %.1f ns, by hand %.1f' % (eight, one + 7 * max(tx, rx)))
    # the slowest stage carries every frame: the receive side here (a cross-core read a byte)
    rx = 8 * (8192 + 32) * CAL['xcore_ns_per_byte'] + 8 * 8192 * CAL['copy_ns_per_byte']
    check(eight > rx, '8 frames take at least their slowest stage: %.0f > %.0f' % (eight, rx))
    pio, dma = cm.one_way(cfg, CAL, CAL, 1, 256), cm.one_way(cfg, CAL, CAL, 1, 257)
    check(dma >= pio, 'one byte more never costs less (%.1f, %.1f)' % (pio, dma))
    lats = [cm.one_way(cfg, CAL, CAL, 1, s) for s in range(0, 70000, 997)]
    check(all(b >= a for a, b in zip(lats, lats[1:])), 'latency grows with the size')
    timed = config(link_mbps=2000, hop_ns=500)
    d = cm.one_way(timed, CAL, CAL, 3, 8) - cm.one_way(timed, CAL, CAL, 1, 8)
    check(close(d, 1000.0), 'emulated, timed: two more hops add 2 x hop_ns (%.1f)' % d)
    bw = cm.stream_bw(timed, CAL, CAL, 1, 1 << 20)
    check(bw <= 250.0, 'a timed stream never beats its link (%.1f MB/s)' % bw)
    # a measured shm floor: a frame alone (or a message's first) costs the floor's copy of its
    # size, a message's further frames the floor's slope about the message's size
    curve = dict(CAL, shm_curve=[[8, 100.0], [8192, 1100.0], [65536, 4100.0]])
    del curve['xcore_ns_per_byte']
    c = curve['copy_ns_per_byte']
    s1, s2 = 1000.0 / 8184 - c, 3000.0 / 57344 - c
    check(close(cm.shm_slope(curve, 8192), s1) and close(cm.shm_slope(curve, 65536), s2) and
          close(cm.shm_slope(curve, 1 << 20), s2), 'the slope of the floor between and beyond its sizes')
    for size, slope in ((8192, s1), (65536, s2)):
        ex = []
        cm.one_way(cfg, curve, CAL, 1, size, ex)
        got = dict((n, t) for n, _, t in ex)['rx_dma']
        want = cm.shm_read(curve)(8224) + slope * (size // 8192 - 1) * 8224
        check(close(got, want), 'the Rx DMA of %d B: %.1f ns, by hand %.1f' % (size, got, want))


def stream_floor(build):
    """Frames that follow one another cross at the floor's own stream pace; a stream pays the
    instructions counted on a stream."""
    cfg = config()
    flow_pts = [[8, 50.0], [8192, 450.0], [65536, 2450.0]]
    cal = dict(CAL, shm_curve=[[8, 100.0], [8192, 1100.0], [65536, 4100.0]], shm_stream_curve=flow_pts)
    del cal['xcore_ns_per_byte']
    flow = cm.shm_flow(cal)
    check(close(flow(8), 50.0) and close(flow(1), 50.0) and close(flow(4100), 50.0 + 400.0 * 4092 / 8184)
          and close(flow(131072), 2450.0 + 2000.0 * 65536 / 57344),
          'the floor\'s stream at, between, below and beyond its sizes')
    # a message's first frame as the floor's ping-pong reads it, each further one at the stream's pace
    for size in (8192, 65536):
        ex = []
        cm.one_way(cfg, cal, cal, 1, size, ex)
        got = dict((n, t) for n, _, t in ex)['rx_dma']
        want = cm.shm_read(cal)(8224) + (size // 8192 - 1) * flow(8224)
        check(close(got, want), 'the Rx DMA of %d B, frames in a row: %.1f ns, by hand %.1f' % (size, got, want))
        got = dict((n, t) for n, _, t in ex)['net_send']
        want = cal['copy_ns_per_byte'] * 8224 + (size // 8192 - 1) * flow(8224)
        check(close(got, want), 'Net-Send of %d B: the first frame local, the rest at the stream\'s pace '
              '(%.1f ns, by hand %.1f)' % (size, got, want))
    # a stream of 8 B messages by hand: each side's instructions as counted on a stream, the
    # receiver's frame handed over at the floor's stream pace (no ping-pong hand-off), copies
    h, c = cal['host_ns_per_ir'], cal['copy_ns_per_byte']
    sir = dict(tx=900.0, rx=1300.0)
    cals = dict(cal, stream_ir={'test': sir})
    # (Net-Send's write into the receiver's ring at the floor's stream pace, as the floor's writer)
    tx = sir['tx'] * h + 8 * c + flow(40)
    rx = sir['rx'] * h + flow(40) + 8 * c
    got = cm.stream_ns(cfg, cals, cals, 1, 8)
    check(close(got, max(tx, rx)), 'an 8 B stream: %.1f ns a message, by hand %.1f' % (got, max(tx, rx)))
    ir = cal['ir']['test']
    tx2 = (ir['tx_msg'] + ir['tx_frame']) * h + 8 * c + flow(40)
    rx2 = (ir['rx_msg'] + ir['rx_frame']) * h + flow(40) + 8 * c
    got = cm.stream_ns(cfg, cal, cal, 1, 8)
    check(close(got, max(tx2, rx2)), 'without stream counts a stream takes the ping-pong\'s (%.1f, %.1f)'
          % (got, max(tx2, rx2)))
    # a frame past its slot's second line (word 8 + header 32 + payload > 128 B) fetches one more
    # line across after the word: half a hand-off where the floor's read of that size shows
    # less; a two-line frame's second line crosses with the word's (Net-Recv asks for it)
    flat = dict(cal, shm_curve=[[8, 100.0], [512, 100.0 + 504 * cal['copy_ns_per_byte']], [8192, 1100.0]])

    def step_at(n):
        return cm.one_way(cfg, flat, flat, 1, n + 1) - cm.one_way(cfg, flat, flat, 1, n)
    small = step_at(87)
    check(close(step_at(88) - small, flat['handoff_ns'] / 2, 1e-6),
          'a frame one byte past the second line: +%.1f ns against +%.1f for the byte before'
          % (step_at(88), small))
    check(close(step_at(24), step_at(23), 1e-6),
          'a frame one byte past the first line: no further line (+%.1f ns against +%.1f)'
          % (step_at(24), step_at(23)))
    # copies at the speed of their footprint: the program's buffers (a message; a stream's
    # window of them) for the copy in, the larger of those and staging's frames for the copy out
    curve = [[8192, 0.01], [1 << 20, 0.02], [64 << 20, 0.05]]
    calc = dict(cal, copy_curve=curve)
    check(close(cm.copy_cost(calc, 4096), 0.01) and close(cm.copy_cost(calc, 1 << 30), 0.05) and
          close(cm.copy_cost(calc, (1 << 20) + ((64 << 20) - (1 << 20)) // 3), 0.03) and
          close(cm.copy_cost(cal, 1 << 20), cal['copy_ns_per_byte']),
          'copy speed below, beyond and between the footprints measured, and without them')
    big = config(staging_slots=256)
    for stream, user in ((False, 1 << 20), (True, cm.STREAM_WINDOW << 20)):
        comps = dict((c[0], c) for c in cm.components(big, calc, calc, 1, 1 << 20, stream))
        staged = 256 * (8192 + 32)
        check(close(comps['copy_in'][4], cm.copy_cost(calc, user)) and
              close(comps['copy_out'][4], cm.copy_cost(calc, max(user, staged))),
              '1 MiB %s: copy in %.4f ns/B, copy out %.4f' % (
                  'stream' if stream else 'ping-pong', comps['copy_in'][4], comps['copy_out'][4]))
    # the wrapper commrun runs on every node: callgrind on the named node only, the program
    # itself on the others (the counted side must be the slower one)
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'cg.out')
        runs = {}
        for node in ('0', '1'):
            r = subprocess.run(['sh', '-c', calibrate.ONE_NODE, 'sh', '1', out, 'sh', '-c', 'echo ran $0', 'x'],
                               capture_output=True, text=True, env=dict(os.environ, LC_NODE=node))
            runs[node] = (r.returncode, r.stdout.strip(), os.path.isfile(out))
        check(runs['0'] == (0, 'ran x', False) and runs['1'][:2] == (0, 'ran x') and runs['1'][2],
              'the one-node wrapper: node 0 runs the program natively, node 1 under callgrind (%s)' % runs)
    # least_settled: the least total stands only once another run met it
    check(calibrate.least_settled([1000, 1000]) == 1000
          and calibrate.least_settled([5000, 1000, 1000 * (1 + calibrate.STREAM_AGREE)]) == 1000
          and calibrate.least_settled([1000]) is None
          and calibrate.least_settled([5000, 5000, 1000]) is None,
          'a window\'s total stands only when its least is met again (a stall repeats above it)')
    # on the real build (a release one: callgrind cannot run a sanitized build), a count a
    # message of each side: each window's least total once another run met it, however loaded
    # the machine (stream_counts); a machine that stalled every run is a skip, with the runs it took
    import json
    with open(os.path.join(build, 'config.json')) as f:
        name = json.load(f)['name']
    rel = os.path.join(os.path.dirname(build), name)
    if not os.path.isfile(os.path.join(rel, 'bin', 'stream')):
        skip('a stream\'s count a message: no release build of %s (%s; callgrind cannot run a '
             'sanitized one): scons config-%s' % (name, rel, name))
        return
    os.makedirs(calibrate.WORK, exist_ok=True)
    a = calibrate.stream_counts(name, os.path.join(rel, 'bin'))
    if a['tx'] is None or a['rx'] is None:
        skip('a stream\'s count a message: the machine\'s load stalled the native peer in every '
             'run (%d and %d runs of each window)' % (a['tx_runs'], a['rx_runs']))
        return
    check(all(300 < a[k] < 1e5 for k in ('tx', 'rx')),
          'a stream\'s count a message, each side alone: tx %.0f, rx %.0f (%d and %d runs of each '
          'window)' % (a['tx'], a['rx'], a['tx_runs'], a['rx_runs']))


def rendezvous():
    plain = config()
    rndv = config(protos={'rendezvous'}, rndv=32768)
    below = cm.one_way(rndv, CAL, CAL, 1, 32767) - cm.one_way(plain, CAL, CAL, 1, 32767)
    check(close(below, 0.0), 'below the threshold rendezvous changes nothing (%.1f ns)' % below)
    ex = []
    got = cm.one_way(rndv, CAL, CAL, 1, 65536, ex)
    check('copy_out' not in [e[0] for e in ex], 'rendezvous lands in the user\'s buffer: no copy out')
    base = cm.one_way(plain, CAL, CAL, 1, 65536) - 65536 * CAL['copy_ns_per_byte']
    hand = 2 * cm.one_way(rndv, CAL, CAL, 1, 0)
    check(close(got, base + hand, 1e-6), 'rendezvous = the data without its copy out + RTS + CTS '
          '(%.1f, want %.1f)' % (got, base + hand))


def fit(build):
    import json
    with open(os.path.join(build, 'config.json')) as f:
        name = json.load(f)['name']
    cal = dict(CAL, ir={name: CAL['ir']['test']})
    cfg = cm.Config(build)
    # 1.5 us above what the copies, the hand-off and the build's network take
    want = cm.one_way(cfg, dict(cal, host_ns_per_ir=0.0), cal, 1, 8) + 1500.0
    h = calibrate.fit(cal, build, 8, want)
    got = cm.one_way(cfg, dict(cal, host_ns_per_ir=h), cal, 1, 8)
    check(close(got, want, 1e-9), 'the fit reproduces the latency it was fitted on (%.3f, %.3f)'
          % (got, want))
    # a DMA start-up the other terms already exceed (a noisy round) is 0, not an error
    calh = dict(cal, host_ns_per_ir=h)
    below = cm.one_way(cfg, dict(calh, dma_ns=0.0), calh, 1, 1024) * 0.9
    check(calibrate.fit(calh, build, 1024, below, 'dma_ns') == 0.0,
          'dma_ns fitted below the other terms is 0')
    # the further frames' cost: fitted at 8 frames it reproduces that latency, adds
    # (frames - 1) x further_ns to a longer ping-pong, nothing to one frame, nothing to a stream
    fs = calibrate.further_fit_size(cfg)
    want8 = cm.one_way(cfg, calh, calh, 1, fs) + 7 * 300.0
    fn = calibrate.fit(calh, build, fs, want8, 'further_ns')
    calf = dict(calh, further_ns=fn)
    check(close(fn, 300.0, 1e-6) and close(cm.one_way(cfg, calf, calf, 1, fs), want8, 1e-9),
          'further_ns fitted at %d B: %.3f ns a frame (300)' % (fs, fn))
    n16 = 16 * cfg.mtu
    check(close(cm.one_way(cfg, calf, calf, 1, n16) - cm.one_way(cfg, calh, calh, 1, n16), 15 * 300.0, 1e-9)
          and cm.one_way(cfg, calf, calf, 1, cfg.mtu) == cm.one_way(cfg, calh, calh, 1, cfg.mtu)
          and cm.stream_bw(cfg, calf, calf, 1, n16) == cm.stream_bw(cfg, calh, calh, 1, n16),
          'further_ns: 15 x 300 ns more at 16 frames, none at one frame or in a stream')
    # a stream's ns per instruction: the model's stream bandwidth at 8 B comes out as measured
    cals = dict(calh, stream_ir={name: dict(tx=900.0, rx=1000.0)})
    hs = calibrate.fit_stream(cals, build, 8, 10.0)
    got = cm.stream_bw(cfg, dict(cals, stream_ns_per_ir=hs), cals, 1, 8)
    check(close(got, 10.0, 1e-6) and hs > 0, 'the stream fit reproduces its bandwidth (%.4f MB/s, '
          '%.4f ns/Ir)' % (got, hs))
    # a stream faster than the model with no stream instructions (a ping-pong fitted in the slow
    # placement): no ns per instruction fits, none is kept, the calibration goes on
    top = cm.stream_bw(cfg, dict(cals, stream_ns_per_ir=0.0), cals, 1, 8)
    check(calibrate.fit_stream(cals, build, 8, 1.5 * top) == 0.0,
          'a stream above the model\'s no-instruction %.3f MB/s: stream_ns_per_ir 0' % top)
    # the run's own floors and medians (validate.in_run): the floors of the same rounds, the
    # fitted figures fitted again on the run's medians
    cells = {('shm', 'pingpong', 8): dict(median=0.2), ('shm', 'pingpong', 4096): dict(median=1.0),
             ('shm', 'stream', 8): dict(median=100.0), ('shm', 'stream', 4096): dict(median=8000.0),
             ('baseline', 'pingpong', 8): dict(median=0.9), ('baseline', 'stream', 8): dict(median=25.0)}
    r = validate.in_run(cells, cals, build_of=lambda c: build)
    lat = cm.one_way(cfg, r, r, 1, 8)
    bw = cm.stream_bw(cfg, r, r, 1, 8)
    check(r['handoff_ns'] == 200.0 and close(r['shm_stream_curve'][0][1], 80.0) and close(lat, 900.0, 1e-6)
          and close(bw, 25.0, 1e-6), 'the run\'s floors and medians: hand-off %.0f ns, 8 B %.1f ns, '
          '%.3f MB/s' % (r['handoff_ns'], lat, bw))
    # the run's shm floor above its baseline cell (a one-round run, the two in two placements):
    # no ns per instruction fits, the calibration's own is kept, nothing stops
    slow = dict(cells)
    slow[('shm', 'pingpong', 8)] = dict(median=2.0)
    r = validate.in_run(slow, cals, build_of=lambda c: build)
    check(r['host_ns_per_ir'] == cals['host_ns_per_ir'] and r['handoff_ns'] == 2000.0,
          'a floor above the cell: host_ns_per_ir kept (%r)' % r['host_ns_per_ir'])


def disturbed_floor(build):
    """calibrate.floor_fits: a floor measured above the library's own figure (a busy poll that
    lost its core) is measured again with the library, kept at its least, at most FLOOR_TRIES
    times."""
    import json
    with open(os.path.join(build, 'config.json')) as f:
        name = json.load(f)['name']
    cal = dict(CAL, ir={name: CAL['ir']['test']}, stream_ir={name: dict(tx=900.0, rx=1000.0)})
    fits = calibrate.below_library(cal, build)
    calibrate.FLOOR_PAUSE_S = 0.0       # the tries' pause is for a real machine's disturbance
    good = ([(8, 200.0), (4096, 1000.0)], [(8, 80.0), (4096, 500.0)])
    bad = ([(8, 37900.0), (4096, 900.0)], [(8, 80.0), (4096, 500.0)])
    slow_stream = ([(8, 200.0), (4096, 1000.0)], [(8, 9000.0), (4096, 500.0)])
    lib = ((1300.0, 1200.0, 1400.0), (20.0, 18.0, 22.0))
    check(fits(good, lib) and not fits(bad, lib) and not fits(slow_stream, lib),
          'below_library: a 200 ns hand-off fits a 1.3 us library, 37.9 us does not, nor a stream '
          'floor slower than the library\'s stream')
    floors, libs = [bad, good], [lib, lib]
    got = calibrate.floor_fits('test', lambda: floors.pop(0), lambda: libs.pop(0), fits)
    least = ([(8, 200.0), (4096, 900.0)], good[1])
    check(got == (least, lib) and not floors and not libs,
          'a disturbed floor is measured again with the library, kept at each size\'s least: %r'
          % (got,))
    n = []
    got = calibrate.floor_fits('test', lambda: n.append(1) or bad, lambda: lib, fits)
    check(len(n) == calibrate.FLOOR_TRIES and got[0] == bad,
          'a floor that never fits: %d tries (FLOOR_TRIES %d), then the fit reports it'
          % (len(n), calibrate.FLOOR_TRIES))
    n = []
    calibrate.floor_fits('test', lambda: n.append(1) or good, lambda: lib, fits)
    check(len(n) == 1, 'a floor that fits is measured once (%d)' % len(n))
    check(calibrate.least_of(([(8, 5.0), (64, 9.0)],), ([(8, 7.0), (64, 3.0)],)) == ([(8, 5.0), (64, 3.0)],),
          'least_of keeps each size\'s least')


def cli(build):
    r = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'costmodel', 'costmodel.py'),
                        '--build', build, '--params', 'sci', '-s', '8:64K'], capture_output=True,
                       text=True)
    rows = [l.split() for l in r.stdout.splitlines() if l and not l.startswith('#')]
    check(r.returncode == 0 and len(rows) == 14, 'costmodel.py -s 8:64K: %d rows, exit %d %s'
          % (len(rows), r.returncode, r.stderr))
    r = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'costmodel', 'costmodel.py'),
                        '--build', build, '--params', 'nosuchset'], capture_output=True, text=True)
    check(r.returncode == 2 and 'no parameter set nosuchset' in r.stderr, 'an unknown set: %s'
          % r.stderr.strip())


def advisor(build):
    """tools/costmodel/advise.py: a job's time as the sum of its messages' modelled times; a
    lossy link makes a config without exactly_once unsuitable and one with it pay each lost
    frame's timeout; a real run's --stats read as a profile; a malformed profile refused."""
    import json
    import tempfile
    with open(os.path.join(build, 'config.json')) as f:
        name = json.load(f)['name']
    cal = dict(CAL, ir={name: CAL['ir']['test']})
    p, cfg = dict(cal, kind='emulated'), cm.Config(build)
    at = lambda c: build  # noqa: E731
    prof = dict(sizes=[(8, 10), (20000, 2)], loss={}, needs=[], pattern='latency', pairs=[])
    r = advise.rank(prof, [name], p, cal, routes=False, build_of=at)[0]
    want = 10 * cm.one_way(cfg, p, cal, 1, 8) + 2 * cm.one_way(cfg, p, cal, 1, 20000)
    check(r['ok'] and close(r['ns'], want), 'lossless: %.1f ns, by hand %.1f' % (r['ns'], want))
    caps, params = advise.capabilities(build)
    lossy = advise.rank(dict(prof, loss={'drop': 0.01}), [name], p, cal, routes=False, build_of=at)[0]
    if 'exactly_once' in caps:
        rel = next(v for v in params.values() if 'timeout_us' in v)
        extra = sum(m * len(cm.frames_of(cfg, s)) * 0.01 / 0.99 *
                    (rel['timeout_us'] * 1000.0 + cm.one_way(cfg, p, cal, 1, min(s, cfg.mtu)))
                    for s, m in prof['sizes'])
        check(lossy['ok'] and close(lossy['ns'] - r['ns'], extra, 1e-6),
              'a 1 %% drop adds %.1f ns, by hand %.1f' % (lossy['ns'] - r['ns'], extra))
    else:
        check(not lossy['ok'] and 'unsuitable: no exactly_once' in lossy['why'],
              'without exactly_once a lossy link is unsuitable: %s' % lossy['why'])
    check(advise.kendall('abc', 'abc') == 1.0 and advise.kendall('abc', 'cba') == -1.0 and
          close(advise.kendall('abc', 'bac'), 1.0 / 3), 'Kendall tau of 3 items')
    with tempfile.TemporaryDirectory() as d:
        stats = os.path.join(d, 'stats.txt')
        with open(stats, 'w') as f:
            rc = subprocess.run([os.path.join(build, 'bin', 'commrun'), '--stats', '-n', '2',
                                 os.path.join(build, 'bin', 'pingpong'), '-s', '8:1K', '-i', '5', '-w', '0'],
                                stdout=f, stderr=subprocess.PIPE, timeout=300).returncode
        check(rc == 0, 'commrun --stats pingpong exit %d' % rc)
        got = advise.read_profile(stats)
        # (a config with retransmissions counts first frames again; the profile scales each
        # node's histogram to the messages its host sent)
        check([s for s, _ in got['sizes']] == [1 << i for i in range(3, 11)] and
              close(sum(m for _, m in got['sizes']), 80) and not got['loss'] and
              got['pairs'] and all(m for _, _, m in got['pairs']),
              'the profile of 2 x 5 messages of each size 8 B - 1 KiB: %s' % got)
        bad = os.path.join(d, 'bad.json')
        with open(bad, 'w') as f:
            f.write('{"sizes": [[8, 100]], "loss": {"drop": 2}}')
        res = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'costmodel', 'advise.py'), bad,
                              '--calibration', os.path.join(d, 'none.json')], capture_output=True, text=True)
        check(res.returncode == 2 and 'none.json is missing' in res.stderr and not res.stdout,
              'no calibration: %s' % res.stderr.strip())
        calp = os.path.join(d, 'cal.json')
        with open(calp, 'w') as f:
            json.dump(cal, f)
        res = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'costmodel', 'advise.py'), bad,
                              '--calibration', calp], capture_output=True, text=True)
        check(res.returncode == 2 and bad in res.stderr and 'key loss' in res.stderr and not res.stdout,
              'a loss of 200 %%: exit %d, %s' % (res.returncode, res.stderr.strip()))


def myrinet_cards(build):
    """myrinet2000's two cards: a variant's keys over the set's, an unknown variant refused;
    the clock split by hand (8.5 and 6.7 us at 133 and 200 MHz: 5.37 us at the clock), and the
    model's own split gives back exactly its components that run at the NIC's clock."""
    b, c = cm.load_params('myrinet2000:PCI64B'), cm.load_params('myrinet2000:PCI64C')
    base = cm.load_params('myrinet2000')
    check(b['nic_mhz'] == base['nic_mhz'] == 133 and c['nic_mhz'] == 200 and
          c['kind'] == 'myrinet2000' and c['name'] == 'myrinet2000:PCI64C' and
          c['link_mbps'] == base['link_mbps'] and c['published']['latency_us'] < b['published']['latency_us']
          and base['variant_names'] == ['PCI64B', 'PCI64C'],
          'myrinet2000:PCI64C: its clock and published figures over the set: %s' % c)
    r = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'costmodel', 'costmodel.py'),
                        '--build', build, '--params', 'myrinet2000:PCI99'], capture_output=True, text=True)
    check(r.returncode == 2 and 'no variant PCI99 (it has: PCI64B, PCI64C)' in r.stderr,
          'an unknown variant: %s' % r.stderr.strip())
    nic, rest = validate.clock_split(8.5, 6.7, 133, 200)
    check(close(nic, 1.8 * 200 / 67) and close(nic + rest, 8.5) and close(nic * 133 / 200 + rest, 6.7),
          'GM split: %.3f at 133 MHz + %.3f' % (nic, rest))
    cfg = config()
    lat = {}
    for p in (b, c):
        ex = []
        lat[p['nic_mhz']] = cm.one_way(cfg, p, CAL, 1, 8, ex)
        if p is b:
            want = sum(ns for _, stage, ns in ex if stage in ('tx nic', 'rx nic'))
    nic, rest = validate.clock_split(lat[133], lat[200], 133, 200)
    check(want > 0 and close(nic, want, 1e-6),
          'the model split by the clocks: %.1f ns, its tx/rx nic components %.1f' % (nic, want))


def main():
    build = os.path.abspath(sys.argv[1])
    seed002()
    network()
    pipeline()
    rendezvous()
    stream_floor(build)
    fit(build)
    disturbed_floor(build)
    cli(build)
    myrinet_cards(build)
    advisor(build)
    return finish()


if __name__ == '__main__':
    sys.exit(main())
