#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The cost model: a message's time between two nodes as a sum of per-component costs.

usage: tools/costmodel/costmodel.py --build build/<cfg> [--params emulated|myrinet2000|sci|FILE]
                                    [-s SIZES] [--src N --dst N] [--nodes N] [--explain]

In the spirit of seed 002's formulas (OptiSCI, section III.B.1: a remote write is the sum of
memory access, bus crossing, packet preparation, insertion, one pass per node on the route,
reception, and the same steps back into memory), a message of S bytes in F frames
(F = ceil(S / mtu), at least one) costs

    component            where        per message / per frame / per byte
    host_send            tx host      instructions of lc_send's path (per message, per frame)
    copy_in              tx host/nic  PIO into the Send Ring (S <= pio_threshold) or Tx DMA
    mcp_tx               tx nic       the doorbell and the MCP's send steps (instructions)
    net_send             tx nic       the frame (payload + header) onto the link
    wire                 network      hops * hop_ns + a frame's bytes at link_mbps (timed
                                      networks); the cross-core hand-off (emulated)
    mcp_rx, rx_dma       rx nic       Net-Recv, the Rx DMA into host staging (or, with
                                      rendezvous above its threshold, the user's buffer)
    copy_out             rx host      staging -> the receive buffer (none with rendezvous)
    host_recv            rx host      instructions of lc_recv's path, protocols' included

Every component belongs to a stage (tx host, tx nic, wire, rx nic, rx host; a parameter set may
merge stages that share one processor, as the emulation's inline MCP does).  The stages work
on different frames at once, so the one-way time of a message is

    sum of every component's per-message cost + the first frame through every stage
    + (F - 1) * the slowest stage's time for one more frame

and a stream of messages runs at S / (the slowest stage's time for a whole message).  A
rendezvous message (the protocol composed, S >= its threshold) pays a request-to-send and a
clear-to-send first: two 0-byte one-way times.  The routes are commrun's own (`commrun -n N
--routes`, through tools/place.py): no routing code is copied here.

Parameter sets: `emulated` (this machine, build/costmodel/emulated.json, written by
tools/costmodel/calibrate.py from callgrind instruction counts and measured copy speeds),
`myrinet2000` (tools/costmodel/myrinet2000.json: the same instruction counts on a LANai 9 and
a host of its time, PCI and link figures as published; variants PCI64B and PCI64C, the two cards
Myricom measured GM on: myrinet2000:PCI64C), `sci` (tools/costmodel/sci.json: seed
002's constants, verbatim; hardware only).
"""
import argparse
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'tools'))

STAGES = ('tx host', 'tx dma', 'tx nic', 'wire', 'rx nic', 'rx dma', 'rx host')
CALIBRATION = os.path.join(ROOT, 'build', 'costmodel', 'emulated.json')


def die(msg):
    sys.stderr.write('costmodel.py: %s\n' % msg)
    sys.exit(2)


class Config:
    """What the model reads of build/<cfg>/config.json."""

    def __init__(self, build):
        path = os.path.join(build, 'config.json')
        try:
            with open(path) as f:
                cj = json.load(f)
        except (OSError, ValueError) as e:
            die('%s: %s' % (path, e))
        c = cj['config']
        self.build, self.name = build, cj.get('name', os.path.basename(build))
        self.mtu, self.hdr = c['mtu'], cj['frame_header']['bytes']
        self.pio_threshold = c['pio_threshold']
        self.protos = set(p['name'] if isinstance(p, dict) else p
                          for p in cj.get('active_protocols', []))
        self.rndv = c.get('rendezvous', {}).get('threshold') if 'rendezvous' in self.protos else None
        net = c.get('network', {})
        self.link_mbps, self.hop_ns = net.get('link_mbps', 0), net.get('hop_ns', 0)
        self.inline_mcp = c['nic']['mcp'] == 'inline'
        self.staging_slots = cj.get('host', {}).get('staging_slots', 1)
        # a Receive Ring slot: its publication word (LC_NIC_RECV_WORD_BYTES), then the frame
        self.recv_word = cj.get('sram', {}).get('recv_word_bytes', 8)


def load_params(name):
    """A parameter set by name (emulated, myrinet2000, sci) or a JSON file; NAME:VARIANT picks
    one of the set's variants (myrinet2000:PCI64C), its keys over the set's own."""
    name, _, variant = name.partition(':')
    if name == 'emulated':
        path = CALIBRATION
        if not os.path.isfile(path):
            die('%s is missing: run tools/costmodel/calibrate.py first' % path)
    elif os.path.isfile(name):
        path = name
    else:
        path = os.path.join(HERE, name + '.json')
        if not os.path.isfile(path):
            die('no parameter set %s (emulated, myrinet2000, sci, or a JSON file)' % name)
    with open(path) as f:
        p = json.load(f)
    p.setdefault('name', name)
    variants = p.pop('variants', {})
    if variant:
        if variant not in variants:
            die('parameter set %s has no variant %s (it has: %s)' % (
                name, variant, ', '.join(sorted(variants)) or 'none'))
        p.update(variants[variant])
        p.setdefault('kind', p['name'])     # components() keys on the set, not the variant
        p['name'] = '%s:%s' % (p['name'], variant)
    p['variant_names'] = sorted(variants)
    return p


def instructions(cfg, cal):
    """The config's instruction counts (Ir) from the calibration: {tx_msg, tx_frame, rx_msg,
    rx_frame}; a config not calibrated takes the baseline's and says so."""
    counts = (cal or {}).get('ir', {})
    if cfg.name in counts:
        return counts[cfg.name], None
    if 'baseline' in counts:
        return counts['baseline'], 'instructions of baseline (%s not calibrated)' % cfg.name
    return dict(tx_msg=0, tx_frame=0, rx_msg=0, rx_frame=0), 'no instruction counts calibrated'


def stream_instructions(cfg, cal, ir):
    """The config's instructions per message of a stream (Ir, {tx, rx}: calibrate.py counts
    the stream program itself, each side alone: stream_counts), as per-message counts
    beside ir's per-frame ones, so that a one-frame message costs what was counted; None when
    the calibration has none (the ping-pong's counts then stand for a stream's too)."""
    counts = (cal or {}).get('stream_ir', {})
    s = counts.get(cfg.name, counts.get('baseline'))
    if not s:
        return None
    return dict(ir, tx_msg=max(0.0, s['tx'] - ir['tx_frame']), rx_msg=max(0.0, s['rx'] - ir['rx_frame']))


# A cache line (LC_LINE): a Receive Ring slot's word and frame cross in lines of it.
LINE = 64
# The messages of a stream in flight at once, each in a buffer of its own (the matrix's stream,
# msgrate and their MPI twins, OSU convention): the footprint of a stream's user buffers.
STREAM_WINDOW = 64


def copy_cost(p, footprint):
    """ns a byte of a host copy whose buffers walk footprint bytes: the copy speeds measured
    out of the cache (calibrate.py: crc_speed -f, 8 KiB blocks walking two rings of each
    footprint), linear between the footprints measured, the nearest beyond; copy_ns_per_byte
    (in cache) without them."""
    pts = sorted((int(f), float(v)) for f, v in p.get('copy_curve', []))
    if not pts:
        return p['copy_ns_per_byte']
    return piecewise(pts, min(max(footprint, pts[0][0]), pts[-1][0]))


def components(cfg, p, cal, hops, size, stream=False):
    """[(name, stage, per-message ns, per-frame ns, per-byte ns, bytes include the header)];
    stream: the costs of a message among back-to-back ones (stream_ns)."""
    kind = p.get('kind', p['name'])
    rndv = cfg.rndv is not None and size >= cfg.rndv
    pio = size <= cfg.pio_threshold
    out = []
    if kind == 'network':
        # the network alone (tools/place.py's default): a route's switches and its links
        return [('wire', 'wire', hops * p['hop_ns'], 0,
                 8.0 / p['link_mbps'] * 1000 if p['link_mbps'] else 0.0, True)]
    if kind == 'sci':
        k = p['clocks_ns']
        per_b = lambda cyc, n, unit: k[cyc] * n / unit  # noqa: E731  cycles per unit of bytes
        mem = per_b('MCycle', 14, 8)
        pci = per_b('PCycle', 3, 4)
        out += [('copy_in', 'tx host', 0, 0, mem + pci, False),
                ('net_send', 'tx nic', 0, 0, per_b('BCycle', 12, 64) + 200.0 / 64, True),
                ('wire', 'wire', hops * (4 * k['SCycle'] + 25), 0, 0, True),
                ('rx_dma', 'rx nic', 0, 0, per_b('BCycle', 8, 64), True),
                ('copy_out', 'rx host', 0, 0, pci + mem, False)]
        return out
    ir, _ = instructions(cfg, cal)
    if stream and kind == 'emulated':
        ir = stream_instructions(cfg, cal, ir) or ir
    h = p['host_ns_per_ir']
    if stream and kind == 'emulated':
        # a stream's instructions run at their own rate (calibrate.py fits it on baseline's
        # 8 B stream: both cores busy, buffers and requests cycling, 0.15-0.19 ns/Ir here
        # against a ping-pong's 0.10-0.14)
        h = p.get('stream_ns_per_ir', h)
    # the NIC's processor: its clock at one instruction a cycle, else as fast as the host
    n = 1000.0 / p['nic_mhz'] if 'nic_mhz' in p else p.get('nic_ns_per_ir', h)
    if kind == 'emulated':
        local = p['copy_ns_per_byte']
        # the copies at the speed of what their buffers walk: the copy in reads the program's
        # buffers (one message's, a stream's window of them), the copy out reads host staging,
        # whose slots every frame takes in turn (as many bytes of each as a frame fills)
        first = frames_of(cfg, size)[0] + cfg.hdr
        user = size * (STREAM_WINDOW if stream else 1)
        copy_in = copy_cost(p, user)
        copy_out = copy_cost(p, max(user, cfg.staging_slots * first))
        # the Rx DMA's cross-core read: a frame alone (or a message's first) costs what the
        # shm floor's copy of its size costs; each further frame at the floor's stream pace,
        # or, with only the floor's ping-pong calibrated, at that curve's slope about the
        # message's size
        xcore, cold, handoff = p.get('xcore_ns_per_byte', 0.0), 0.0, p['handoff_ns']
        if 'shm_stream_curve' in p:
            # frames that follow one another cross as the floor's own stream does
            # (shm_pingpong --stream: a frame's bytes handed over and read, pipelined with
            # the frames about it); a message alone, or a ping-pong's first frame, as the
            # floor's ping-pong (its hand-off, then its read)
            xcore = shm_flow(p)
            if stream:
                handoff = 0.0
            else:
                # a frame that reaches past its slot's second line costs at least one more
                # line fetched across after the word (half a hand-off: the writer took the
                # lines before the word), where the floor, whose data shares the word's
                # 128-byte pair, shows none.  A two-line frame's second line crosses with
                # the word's: Net-Recv asks for it while it waits when the last frame took
                # two lines, as every frame of a ping-pong of one size does (nic/nic.c;
                # 16 -> 32 B measured +0.07-0.10 us before it, 0.00-0.01 after)
                further = handoff / 2 if cfg.recv_word + first > 2 * LINE else 0.0
                cold = max(shm_read(p)(first), further) - xcore(first)
        elif 'shm_curve' in p:
            xcore = shm_slope(p, size)
            # may be negative (a first frame cheaper than the slope says): the message's
            # read stays read(first) + slope x the rest, never below 0
            cold = shm_read(p)(first) - xcore * first
        ns_first, ns_byte = 0.0, local
        if callable(xcore):
            ns_byte = xcore
            if not stream:
                ns_first = local * first - xcore(first)
        link = 8.0 / cfg.link_mbps * 1000 if cfg.link_mbps else 0.0
        # a message by Tx DMA (above pio_threshold) waits for the request's start-up once: a
        # delay, not work of a stage (a stream overlaps it), the one figure of the DMA path
        # fitted (calibrate.py)
        # a ping-pong's long message: each frame after the first costs further_ns more than
        # its stages' overlap gives (fitted on baseline's 8-frame ping-pong, calibrate.py): the
        # copies inside the pipeline run slower than alone (the sender's Tx DMA and Net-Send
        # stamped at 380-400 and 410-490 ns an 8 KiB frame against 160 and 540 modelled); a
        # delay, not a stage's work, and not in a stream, whose pace the model gets already
        further = 0.0 if stream else (len(frames_of(cfg, size)) - 1) * p.get('further_ns', 0.0)
        out += [('host_send', 'tx host', ir['tx_msg'] * h, ir['tx_frame'] * h, 0, False),
                ('dma_start', 'wire', 0.0 if pio else p.get('dma_ns', 0.0), 0, 0, False),
                ('further_frames', 'wire', further, 0, 0, False),
                ('copy_in', 'tx host', 0, 0, copy_in, False),
                # Net-Send writes a frame into lines its receiver read last time round the ring:
                # a message's first frame as a local copy (its crossing is the hand-off), the
                # frames after it -- a long message's, a stream's -- at the floor's stream pace,
                # whose writer does the same
                ('net_send', 'tx host', ns_first, 0, ns_byte, True),
                ('wire', 'wire', hops * cfg.hop_ns, 0, link, True),
                # a message's first Receive Ring word crosses from the sender's core to the
                # receiver's: a hand-off the receiver waits out, message after message (in a
                # stream too: it occupies the receiving side); a message's further frames
                # follow the first while the receiver works, their words already on the way
                ('handoff', 'rx host', handoff, 0, 0, False),
                ('rx_dma', 'rx host', cold, 0, xcore, True),
                ('host_recv', 'rx host', ir['rx_msg'] * h, ir['rx_frame'] * h, 0, False)]
        if not rndv:
            out.append(('copy_out', 'rx host', 0, 0, copy_out, False))
        return out
    # a NIC of its own (myrinet2000): the host runs the framework's instructions, the LANai
    # the MCP's, PIO and DMA cross the PCI bus
    pci = 1000.0 / p['pci_mb_s']
    copy = 1000.0 / p['host_copy_mb_s']
    share = p.get('nic_share', cal.get('nic_share', 0.4) if cal else 0.4)
    link = 8000.0 / (cfg.link_mbps or p['link_mbps'])
    hop_ns = cfg.hop_ns or p['hop_ns']
    t = p['pci_transaction_ns']
    # the LANai's three engines work at once: its CPU (the MCP), the host DMA engine (PCI), the
    # link's send and receive DMA; the link carries one frame at a time
    out += [('host_send', 'tx host', ir['tx_msg'] * h * (1 - share), ir['tx_frame'] * h * (1 - share),
             0, False),
            ('copy_in', 'tx host' if pio else 'tx dma', t, 0 if pio else t, pci, False),
            ('mcp_tx', 'tx nic', ir['tx_msg'] * n * share, ir['tx_frame'] * n * share, 0, False),
            ('net_send', 'wire', 0, 0, link, True),
            ('wire', 'wire', max(1, hops) * hop_ns, 0, 0, True),
            ('mcp_rx', 'rx nic', ir['rx_msg'] * n * share, ir['rx_frame'] * n * share, 0, False),
            # the frame into host staging, then its Receive Ring word: two PCI writes a frame
            ('rx_dma', 'rx dma', 0, 2 * t, pci, True),
            ('host_recv', 'rx host', ir['rx_msg'] * h * (1 - share), ir['rx_frame'] * h * (1 - share),
             0, False)]
    if not rndv:
        out.append(('copy_out', 'rx host', 0, 0, copy, False))
    return out


def network(link_mbps, hop_ns):
    """The parameter set of the network alone: no host, no NIC, a timed network's links and
    switches (tools/place.py when no --params is given)."""
    return dict(name='network', kind='network', link_mbps=link_mbps, hop_ns=hop_ns)


def shm_points(p):
    """The measured shm floor (calibrate.py: the least one-way time of tools/bench/shm_pingpong
    at each size), as sorted (size, ns)."""
    return sorted((int(n), float(t)) for n, t in p['shm_curve'])


def shm_segment(pts, n):
    """The two measured sizes about n (the last two beyond them): ((n0, t0), (n1, t1))."""
    i = 1
    while i < len(pts) - 1 and pts[i][0] < n:
        i += 1
    return pts[i - 1], pts[i]


def piecewise(pts, x):
    """The curve through the sorted points pts [(x, y)] at x: linear between the two about it,
    the end segments' lines beyond them."""
    (x0, y0), (x1, y1) = shm_segment(pts, x)
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


def shm_read(p):
    """The cross-core read of n bytes (ns) from the measured shm floor: what n bytes add to its
    8 B time, less its own local copy in; linear between the sizes measured, the last slope
    beyond."""
    pts = shm_points(p)
    base, local = pts[0][1], p['copy_ns_per_byte']

    def read(n):
        return max(0.0, piecewise(pts, n) - base - local * n)
    return read


def shm_flow(p):
    """The cross-core hand-off and read of a frame of n bytes among frames that follow one
    another (ns, a function of n): the shm floor's stream (calibrate.py: tools/bench/
    shm_pingpong --stream, the least time a message at each size), linear between the sizes
    measured, the last slope beyond."""
    pts = sorted((int(n), float(t)) for n, t in p['shm_stream_curve'])

    def flow(n):
        return pts[0][1] if n <= pts[0][0] else max(0.0, piecewise(pts, n))
    return flow


def shm_slope(p, n):
    """The cross-core read's marginal ns a byte around n bytes: the shm floor's slope between
    the measured sizes about n (the last slope beyond them), less the floor's local copy in."""
    (n0, t0), (n1, t1) = shm_segment(shm_points(p), n)
    return max(0.0, (t1 - t0) / (n1 - n0) - p['copy_ns_per_byte'])


def cost_of(per_byte, nbytes):
    """A component's bytes: ns a byte, or a measured function of the frame's bytes."""
    return per_byte(nbytes) if callable(per_byte) else per_byte * nbytes


def stage_of(p, stage):
    """The emulation's inline MCP runs the NIC's steps on the host's core: one stage a side."""
    merge = p.get('merge_stages', {})
    return merge.get(stage, stage)


def frames_of(cfg, size):
    f = max(1, -(-size // cfg.mtu))
    return [min(cfg.mtu, size - i * cfg.mtu) if size else 0 for i in range(f)]


def frame_time(comps, p, payload, hdr):
    """{stage: ns} of one frame of payload bytes through each stage."""
    t = {}
    for name, stage, _, per_frame, per_byte, with_hdr in comps:
        s = stage_of(p, stage)
        t[s] = t.get(s, 0.0) + per_frame + cost_of(per_byte, payload + (hdr if with_hdr else 0))
    return t


def one_way(cfg, p, cal, hops, size, explain=None):
    """Modelled one-way time of a message (ns)."""
    comps = components(cfg, p, cal, hops, size)
    frames = frames_of(cfg, size)
    total = sum(c[2] for c in comps)
    first = frame_time(comps, p, frames[0], cfg.hdr)
    total += sum(first.values())
    for pay in frames[1:]:
        total += max(frame_time(comps, p, pay, cfg.hdr).values())
    if cfg.rndv is not None and size >= cfg.rndv:
        total += 2 * one_way(cfg, p, cal, hops, 0)
    if explain is not None:
        for name, stage, per_msg, per_frame, per_byte, with_hdr in comps:
            nb = sum(cost_of(per_byte, f + (cfg.hdr if with_hdr else 0)) for f in frames)
            explain.append((name, stage_of(p, stage), per_msg + per_frame * len(frames) + nb))
    return total


def stream_bw(cfg, p, cal, hops, size):
    """Modelled stream bandwidth (MB/s) of back-to-back messages: the slowest stage decides."""
    if size == 0:
        return 0.0
    per_msg = stream_ns(cfg, p, cal, hops, size)
    return size / per_msg * 1000.0 if per_msg > 0 else float('inf')


def stream_ns(cfg, p, cal, hops, size):
    """Modelled time (ns) of one message in a stream of back-to-back messages: its slowest stage."""
    comps = components(cfg, p, cal, hops, size, stream=True)
    busy = {}
    for name, stage, per_msg, _, _, _ in comps:
        s = stage_of(p, stage)
        # a route's switches and the hand-off delay a message, they occupy no stage: the
        # network's per-message cost is latency, overlapped in a stream
        busy[s] = busy.get(s, 0.0) + (per_msg if s != 'wire' else 0.0)
    for pay in frames_of(cfg, size):
        for s, v in frame_time(comps, p, pay, cfg.hdr).items():
            busy[s] = busy.get(s, 0.0) + v
    per_msg = max(busy.values())
    if cfg.rndv is not None and size >= cfg.rndv:
        per_msg += 2 * one_way(cfg, p, cal, hops, 0)   # the handshake is not overlapped
    return per_msg


def hops_between(cfg, src, dst, nodes):
    """Switch hops of src -> dst under the identity placement, from commrun --routes."""
    import place
    routes = place.read_routes(cfg.build, max(nodes, src + 1, dst + 1))
    return len(routes[(src, dst)])


def model(build, params, cal=None):
    """(Config, params, calibration) ready for one_way and stream_bw."""
    cfg = Config(build)
    p = load_params(params) if isinstance(params, str) else params
    if cal is None and os.path.isfile(CALIBRATION):
        with open(CALIBRATION) as f:
            cal = json.load(f)
    return cfg, p, cal


def parse_sizes(text):
    from bench import benchlib as bl
    lo, _, hi = text.partition(':')
    lo, hi = bl.parse_size(lo), bl.parse_size(hi or lo)
    out, s = [], lo
    while s <= hi:
        out.append(s)
        s = s * 2 if s else 1
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--build', required=True)
    ap.add_argument('--params', default='emulated', help='emulated, myrinet2000[:PCI64B|PCI64C], '
                    'sci, or a JSON file[:VARIANT]')
    ap.add_argument('-s', '--sizes', default='0:1M')
    ap.add_argument('--src', type=int, default=0)
    ap.add_argument('--dst', type=int, default=1)
    ap.add_argument('--nodes', type=int, default=2)
    ap.add_argument('--explain', action='store_true', help='each component of each size')
    a = ap.parse_args(argv)
    cfg, p, cal = model(a.build, a.params)
    hops = hops_between(cfg, a.src, a.dst, a.nodes)
    _, note = instructions(cfg, cal) if p['name'] != 'sci' else (None, None)
    print('# cost model %s on %s, node %d -> %d, %d switch hop(s)%s' % (
        p['name'], cfg.name, a.src, a.dst, hops, '; ' + note if note else ''))
    print('# size  one-way (us)  stream (MB/s)')
    for s in parse_sizes(a.sizes):
        ex = [] if a.explain else None
        t = one_way(cfg, p, cal, hops, s, ex)
        print('%-8d %12.3f %14.1f' % (s, t / 1000.0, stream_bw(cfg, p, cal, hops, s)))
        for name, stage, ns in ex or []:
            print('#   %-10s %-8s %10.3f us' % (name, stage, ns / 1000.0))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
