#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Evaluate placements of a job's NICs on the network and suggest a better one (seed 002's Phi).

usage: tools/place.py --build build/<cfg> --stats FILE [--per-node K] [--map FILE]...
                      [--link-mbps N] [--hop-ns N] [--params SET] [--network SPEC]
                      [--objective phi|link|replay] [--out FILE]

--stats FILE   the output of `commrun --stats` of a run of the job: its traffic matrix
               (messages, frames and bytes per source -> destination node) is the input.
--map FILE     a placement to evaluate beside the identity (commrun --map's format: one slot
               per NIC); repeat for several.
--out FILE     write the best placement found there, in commrun --map's format.

The routes are commrun's own (`<build>/bin/commrun -n NICS --routes`: slot to slot, read
once), so no routing code is copied here.  The cost of a placement follows seed 002's Phi: the
sum over every source -> destination pair of its messages' time, with no contention, each at
the cost model's one-way time of the pair's mean message size over the route's switches
(tools/costmodel/costmodel.py) -- by default the network alone,
    hops * hop_ns + (bytes + headers) * 8000 / link_mbps   (ns a message)
at link_mbps and hop_ns from the build's config (network.link_mbps, network.hop_ns) or the
options; with --params a whole parameter set (host, NIC and network: emulated, myrinet2000,
sci) -- and beside it the busiest link's time (the bytes every route through a link puts on
it, at the link's bandwidth: what wormhole contention can at best overlap).

Neither sees contention, which is what sets a job's time on a loaded network; the third, the
replay, does: the job's time when its traffic is played out in simulated time over the
placement's routes by the timed network's own rule (a frame's head waits at a port still
carrying the frame before it, and holds the ports behind it meanwhile: nic/net.c,
lc_net_time).  The job is read off the traffic matrix (job_shape): two opposite flows with as
many messages are requests and their answers, one request of a node outstanding at a time;
every other flow is a stream its source sends as fast as its link takes it.  Host time is left
out: it prices the network, so it needs a timed one.

The search minimises --objective (phi, the default, then the busiest link; link first; or the
replay): every permutation of the slots up to 8 NICs (the replay: pairwise swaps from the
given placements and the REPLAY_SEEDS best by the busiest link, a simulation each), beyond that
a local search of pairwise swaps from the best of the identity and the given placements until
no swap improves.
"""
import argparse
import heapq
import itertools
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'costmodel'))
import costmodel as cm  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import commstats  # noqa: E402

EXHAUSTIVE_MAX = 8
REPLAY_SEEDS = 16


def die(msg):
    sys.stderr.write('place.py: %s\n' % msg)
    sys.exit(2)


def read_traffic(path, per_node):
    """{(src_nic, dst_nic): [msgs, frames, bytes]} from commrun --stats output."""
    try:
        t = commstats.read(path).get('traffic')
    except (OSError, commstats.Error) as e:
        die(str(e))
    if t is None:
        die('%s: no traffic matrix (a run of commrun --stats?)' % path)
    out = {}
    for (s, d), v in t.items():
        acc = out.setdefault((s // per_node, d // per_node), [0, 0, 0])
        for i, c in enumerate(('msgs', 'frames', 'bytes')):
            acc[i] += v.get(c, 0)
    return out


def read_routes(build, nics, network=None):
    """{(src_slot, dst_slot): [link, ...]}: the ports each route crosses, from commrun --routes
    (on the network commrun --network SPEC sets, when given)."""
    exe = os.path.join(build, 'bin', 'commrun')
    r = subprocess.run([exe, '-n', str(nics), '--routes'] + (['--network', network] if network else []),
                       capture_output=True, text=True)
    if r.returncode != 0:
        die('%s --routes: %s' % (exe, r.stderr.strip() or 'exit %d' % r.returncode))
    routes = {}
    for line in r.stdout.splitlines():
        if line.startswith('#') or not line.strip():
            continue
        w = line.split()
        routes[(int(w[0]), int(w[1]))] = w[3:3 + int(w[2])]
    return routes


def read_map(path, nics):
    """commrun --map's format; commrun itself checks it further when the job runs."""
    slots = []
    with open(path) as f:
        for line in f:
            slots += [int(x) for x in line.split('#', 1)[0].split()]
    if sorted(slots) != list(range(nics)):
        die('%s: not a permutation of the %d slots' % (path, nics))
    return tuple(slots)


class Model:
    """Seed 002's Phi over a placement: every pair's messages at the cost model's one-way time
    (tools/costmodel/costmodel.py) over the route the placement gives it, and beside it the
    busiest link."""

    def __init__(self, traffic, routes, cfg, params, cal, link_mbps, hop_ns, objective):
        self.traffic, self.routes = traffic, routes
        self.cfg, self.params, self.cal = cfg, params, cal
        self.link_mbps, self.hop_ns = link_mbps, hop_ns
        self.ns_per_byte = 8000.0 / link_mbps if link_mbps else 0.0
        self.objective = objective
        self.memo, self.replays = {}, {}

    def msg_time(self, hops, msgs, nbytes):
        key = (hops, msgs, nbytes)
        if key not in self.memo:
            size = nbytes // msgs if msgs else 0
            self.memo[key] = msgs * cm.one_way(self.cfg, self.params, self.cal, hops, size)
        return self.memo[key]

    def cost(self, place):
        """(phi ns, busiest link ns) of a placement: place[nic] = slot."""
        phi, load = 0.0, {}
        for (s, d), (msgs, _, nbytes) in self.traffic.items():
            ports = self.routes[(place[s], place[d])]
            phi += self.msg_time(len(ports), msgs, nbytes)
            # the sender's own link, then every switch output port of the route
            for link in ['nic %d' % place[s]] + ports:
                load[link] = load.get(link, 0) + nbytes
        busiest = max(load.values()) * self.ns_per_byte if load else 0.0
        return phi, busiest

    def key(self, place):
        if self.objective == 'replay':
            return (self.replay(place),) + self.cost(place)
        phi, link = self.cost(place)
        return (phi, link) if self.objective == 'phi' else (link, phi)

    def replay(self, place):
        """The job's time (ns) under a placement: its traffic replayed over the timed network."""
        place = tuple(place)
        if place not in self.replays:
            self.replays[place] = replay(self.traffic, self.routes, place, self.ns_per_byte, self.hop_ns,
                                         self.cfg.hdr, self.cfg.mtu)
        return self.replays[place]


def job_shape(traffic):
    """The job a traffic matrix describes, as the replay reads it: (requests, streams).

    A pair of opposite flows with as many messages within 10 % is a request and its reply: the
    side whose messages are smaller asks, one request outstanding at a time, the other answers
    each at once.  requests[a] = {b: messages a asks b}.  Every other flow is a stream its
    source sends as fast as its NIC takes it: streams[s] = {d: messages}.
    """
    requests, answers = {}, set()
    for (s, d), (msgs, _, nbytes) in traffic.items():
        back = traffic.get((d, s))
        if (d, s) in answers or (s, d) in answers or not back or not msgs or not back[0]:
            continue
        if abs(back[0] - msgs) <= 0.1 * msgs:
            ask, ans = ((s, d), (d, s)) if nbytes / msgs <= back[2] / back[0] else ((d, s), (s, d))
            requests.setdefault(ask[0], {})[ask[1]] = traffic[ask][0]
            answers.update((ask, ans))
    streams = {}
    for (s, d), (msgs, _, _) in traffic.items():
        if (s, d) not in answers and msgs:
            streams.setdefault(s, {})[d] = msgs
    return requests, streams


def interleave(weights):
    """Destinations in the order a sender spreads its messages over them (smooth weighted
    round robin: each destination's messages evenly through the sequence)."""
    cur, left, total, out = dict.fromkeys(weights, 0), dict(weights), sum(weights.values()), []
    for _ in range(total):
        for k in cur:
            if left[k]:
                cur[k] += weights[k]
        k = max((k for k in cur if left[k]), key=lambda k: (cur[k], -k))
        cur[k] -= total
        left[k] -= 1
        out.append(k)
    return out


def replay(traffic, routes, place, ns_per_byte, hop_ns, hdr, mtu):
    """The job's time (ns): job_shape's requests and streams played out in simulated time over
    the routes of place, by the timed network's own rule (nic/net.c, lc_net_time): a NIC puts a
    frame on its link when the link is free; the frame's head crosses each switch in a hop, or
    waits there until the frame before it is off that port; it then holds each port until its
    tail has left it (the ports of a route are reserved in send order -- wormhole routing, a
    blocked head holding the links behind it).  A message is its frames back to back (the mean
    size of its flow).  The job ends with the last answer to the last request (or, without
    requests, the last stream's last frame).  Host time is left out: it prices the network."""
    requests, streams = job_shape(traffic)
    size = {k: v[2] / v[0] for k, v in traffic.items() if v[0]}
    order = {a: interleave(w) for a, w in requests.items()}
    sorder = {s: interleave(w) for s, w in streams.items()}
    nxt, snxt = dict.fromkeys(order, 0), dict.fromkeys(sorder, 0)
    port_free, nic_free, events, seq = {}, {}, [], itertools.count()
    end = 0.0

    def post(t, s, d, kind):
        heapq.heappush(events, (t, next(seq), s, d, kind))

    for a in order:
        post(0.0, a, order[a][0], 'ask')
        nxt[a] = 1
    for s in sorder:
        post(0.0, s, sorder[s][0], 'stream')
        snxt[s] = 1
    while events:
        t, _, s, d, kind = heapq.heappop(events)
        if kind in ('ask', 'answer', 'stream'):
            if nic_free.get(s, 0.0) > t:
                post(nic_free[s], s, d, kind)      # the NIC's link carries a frame yet
                continue
            ports = routes[(place[s], place[d])]
            left = size[(s, d)]
            while True:
                pay = min(left, mtu)
                head = max(t, nic_free.get(s, 0.0))
                for p in ports:
                    head = max(head + hop_ns, port_free.get(p, 0.0))
                tail = head + (pay + hdr) * ns_per_byte
                nic_free[s] = tail - len(ports) * hop_ns
                for k, p in enumerate(ports):
                    port_free[p] = tail - (len(ports) - 1 - k) * hop_ns
                left -= pay
                if left <= 0:
                    break
            post(tail, d, s, {'ask': 'asked', 'answer': 'answered', 'stream': 'streamed'}[kind])
            if kind == 'stream' and snxt[s] < len(sorder[s]):
                post(t, s, sorder[s][snxt[s]], 'stream')
                snxt[s] += 1
        elif kind == 'asked':           # s received d's request: answer it
            post(t, s, d, 'answer')
        elif kind == 'answered':        # s got its answer: the next request, or s is done
            if nxt[s] < len(order[s]):
                post(t, s, order[s][nxt[s]], 'ask')
                nxt[s] += 1
            else:
                end = max(end, t)
        elif not requests:              # a stream's message arrived; no requests: the last one ends it
            end = max(end, t)
    return end


def search(model, nics, starts):
    """The best placement: exhaustive up to EXHAUSTIVE_MAX NICs, else swaps from the best start.
    The replay costs a simulation a placement: it starts its swaps from the best of the given
    placements and the REPLAY_SEEDS best by the busiest link (exhaustive up to EXHAUSTIVE_MAX)."""
    if model.objective == 'replay':
        cheap = Model(model.traffic, model.routes, model.cfg, model.params, model.cal, model.link_mbps,
                      model.hop_ns, 'link')
        seeds = (heapq.nsmallest(REPLAY_SEEDS, itertools.permutations(range(nics)), key=cheap.key)
                 if nics <= EXHAUSTIVE_MAX else [search(cheap, nics, starts)])
        starts = list(starts) + seeds
    elif nics <= EXHAUSTIVE_MAX:
        return min(itertools.permutations(range(nics)), key=model.key)
    best = min(starts, key=model.key)
    best_key = model.key(best)
    improved = True
    while improved:
        improved = False
        for i in range(nics):
            for j in range(i + 1, nics):
                p = list(best)
                p[i], p[j] = p[j], p[i]
                k = model.key(p)
                if k < best_key:
                    best, best_key, improved = tuple(p), k, True
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', required=True, help='build/<cfg>: its commrun and config.json')
    ap.add_argument('--stats', required=True, help='commrun --stats output of the job')
    ap.add_argument('--per-node', type=int, default=1, help='endpoints per NIC (commrun --per-node)')
    ap.add_argument('--map', action='append', default=[], help='a placement to evaluate')
    ap.add_argument('--link-mbps', type=float, help='link bandwidth (default: the config\'s)')
    ap.add_argument('--hop-ns', type=float, help='per-switch latency (default: the config\'s)')
    ap.add_argument('--params', help='cost model parameter set (emulated, myrinet2000, sci, a '
                    'file; default: the network alone, at --link-mbps and --hop-ns)')
    ap.add_argument('--network', help='the network the job ran on (commrun --network SPEC)')
    ap.add_argument('--objective', choices=('phi', 'link', 'replay'), default='phi')
    ap.add_argument('--nics', type=int, help='NICs of the job (default: from the traffic)')
    ap.add_argument('--out', help='write the best placement here (commrun --map format)')
    a = ap.parse_args()

    cfg, params, cal = cm.model(a.build, cm.network(0, 0) if a.params is None else a.params)
    if a.network:
        # the job's network instead of the config's (commrun --network checks the spec)
        for kv in a.network.split(','):
            k, _, v = kv.partition('=')
            if k in ('link_mbps', 'hop_ns') and v.isdigit():
                setattr(cfg, k, int(v))
    link = a.link_mbps if a.link_mbps is not None else cfg.link_mbps or params.get('link_mbps', 0)
    hop = a.hop_ns if a.hop_ns is not None else cfg.hop_ns or params.get('hop_ns', 0)
    if a.params is None:
        if not link and not hop:
            die('the network of %s is untimed: give --link-mbps and --hop-ns, or --params' % a.build)
        params = cm.network(link, hop)
    traffic = read_traffic(a.stats, a.per_node)
    nics = a.nics or (1 + max(max(s, d) for s, d in traffic) if traffic else 1)
    routes = read_routes(a.build, nics, a.network)
    model = Model(traffic, routes, cfg, params, cal, link, hop, a.objective)
    identity = tuple(range(nics))
    rows = [('identity', identity)] + [(m, read_map(m, nics)) for m in a.map]
    best = search(model, nics, [p for _, p in rows])
    rows.append(('best found', best))
    base = model.cost(identity)[0] or 1.0
    print('# placements of %d NICs: cost model %s (link %g Mb/s, hop %g ns); phi = sum over the '
          'pairs of messages x one-way time of their mean size on their route (no contention), '
          'busiest link = its bytes at the link\'s rate, replay = the job\'s traffic played out over '
          'the timed network (requests and answers, streams; wormhole waits)' % (nics, params['name'], link, hop))
    print('%-24s %14s %8s %16s %12s  %s' % ('placement', 'phi (us)', 'ratio', 'busiest link (us)',
                                           'replay (ms)', 'slots'))
    for name, p in rows:
        phi, busiest = model.cost(p)
        print('%-24s %14.1f %8.3f %16.1f %12.1f  %s' % (name, phi / 1e3, phi / base, busiest / 1e3,
                                                      model.replay(p) / 1e6, ' '.join(map(str, p))))
    if a.out:
        with open(a.out, 'w') as f:
            f.write('# tools/place.py: best %s placement of %d NICs (slot of NIC 0, 1, ...)\n%s\n'
                    % (a.objective, nics, ' '.join(map(str, best))))
    return 0


if __name__ == '__main__':
    sys.exit(main())
