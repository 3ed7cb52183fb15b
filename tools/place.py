#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Evaluate placements of a job's NICs on the network and suggest a better one (seed 002's Phi).

usage: tools/place.py --build build/<cfg> --stats FILE [--per-node K] [--map FILE]...
                      [--link-mbps N] [--hop-ns N] [--params SET] [--network SPEC] [--objective phi|link] [--out FILE]

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
it, at the link's bandwidth: what wormhole contention can at best overlap).  The search
minimises --objective (phi, the default, then the busiest link; or link first): every
permutation of the slots up to 8 NICs, beyond that a local search of pairwise swaps from the
best of the identity and the given placements until no swap improves.
"""
import argparse
import itertools
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'costmodel'))
import costmodel as cm  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import commstats  # noqa: E402

EXHAUSTIVE_MAX = 8


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

    def __init__(self, traffic, routes, cfg, params, cal, link_mbps, objective):
        self.traffic, self.routes = traffic, routes
        self.cfg, self.params, self.cal = cfg, params, cal
        self.ns_per_byte = 8000.0 / link_mbps if link_mbps else 0.0
        self.objective = objective
        self.memo = {}

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
        phi, link = self.cost(place)
        return (phi, link) if self.objective == 'phi' else (link, phi)


def search(model, nics, starts):
    """The best placement: exhaustive up to EXHAUSTIVE_MAX NICs, else swaps from the best start."""
    if nics <= EXHAUSTIVE_MAX:
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
    ap.add_argument('--objective', choices=('phi', 'link'), default='phi')
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
    model = Model(traffic, routes, cfg, params, cal, link, a.objective)
    identity = tuple(range(nics))
    rows = [('identity', identity)] + [(m, read_map(m, nics)) for m in a.map]
    best = search(model, nics, [p for _, p in rows])
    rows.append(('best found', best))
    base = model.cost(identity)[0] or 1.0
    print('# placements of %d NICs: cost model %s (link %g Mb/s, hop %g ns); phi = sum over the '
          'pairs of messages x one-way time of their mean size on their route (no contention), '
          'busiest link = its bytes at the link\'s rate' % (nics, params['name'], link, hop))
    print('%-24s %14s %8s %16s  %s' % ('placement', 'phi (us)', 'ratio', 'busiest link (us)', 'slots'))
    for name, p in rows:
        phi, busiest = model.cost(p)
        print('%-24s %14.1f %8.3f %16.1f  %s' % (name, phi / 1e3, phi / base, busiest / 1e3,
                                                ' '.join(map(str, p))))
    if a.out:
        with open(a.out, 'w') as f:
            f.write('# tools/place.py: best %s placement of %d NICs (slot of NIC 0, 1, ...)\n%s\n'
                    % (a.objective, nics, ' '.join(map(str, best))))
    return 0


if __name__ == '__main__':
    sys.exit(main())
