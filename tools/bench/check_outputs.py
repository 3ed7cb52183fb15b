#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Checks that a benchmark run's outputs are produced and well-formed; last line "bench-quick: N passed, M failed".
"""
Usage: python3 tools/bench/check_outputs.py [OUTDIR]     (default build/bench/latest)

Checks the tidy CSV (columns, types, units, failed cells carry no number),
that every (config, benchmark, size, round) cell of the plan is present, the
JSON (parses, holds every measurement and each config's resolved config),
the OSU-style tables, the plots (PNG and SVG, non-empty, right signature),
report.md (every section, and its figures recomputed from the CSV), that
every config has its MPI series (<config>+mpi: the MPI twins over the
config's MPI personality, and their instruction count) with figures, and that
every cell produced a figure.  Exit status 0 when nothing failed.
"""
import csv
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import benchlib as bl  # noqa: E402
import report  # noqa: E402

PLOTS = ['latency', 'latency_mpi', 'bandwidth', 'bibw', 'msgrate', 'heatmap', 'instructions']


class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print('FAIL: ' + what)
        return ok


def main(argv):
    outdir = argv[0] if argv else os.path.join(ROOT, 'build', 'bench', 'latest')
    c = Checker()
    if not c.check(os.path.isdir(outdir), 'output folder %s exists' % outdir):
        print('bench-quick: %d passed, %d failed' % (c.passed, c.failed))
        return 1

    # ---- CSV
    csv_path = os.path.join(outdir, 'results.csv')
    rows = []
    if c.check(os.path.isfile(csv_path), 'results.csv exists'):
        with open(csv_path, newline='') as f:
            rd = csv.reader(f)
            header = next(rd, [])
            raw = list(rd)
        c.check(header == bl.CSV_COLUMNS, 'CSV columns are %s (got %s)' % (bl.CSV_COLUMNS, header))
        units = {b['name']: b['unit'] for b in bl.BENCHMARKS}
        for pseudo in (bl.INSTR, bl.INSTR_API):
            units[pseudo['name']] = pseudo['unit']
        for nbuf in bl.SEED_FILTER['buffers']:
            units[bl.seed_filter_bench(nbuf)] = bl.SEED_FILTER['unit']
        bad = []
        for i, r in enumerate(raw, 2):
            if len(r) != len(bl.CSV_COLUMNS):
                bad.append('line %d: %d fields' % (i, len(r)))
                continue
            d = dict(zip(bl.CSV_COLUMNS, r))
            try:
                size, rnd = int(d['size']), int(d['round'])
                val = float(d['value']) if d['value'] else None
            except ValueError:
                bad.append('line %d: size/round/value not numbers' % i)
                continue
            if size < 0 or rnd < 1:
                bad.append('line %d: size %d round %d' % (i, size, rnd))
            if d['benchmark'] not in units and d['benchmark'] not in bl.FAULT_BENCHES:
                bad.append('line %d: unknown benchmark %s' % (i, d['benchmark']))
            elif d['benchmark'] in units and d['unit'] != units[d['benchmark']]:
                bad.append('line %d: unit %s for %s' % (i, d['unit'], d['benchmark']))
            if d['status'] == 'ok':
                if val is None or not math.isfinite(val) or val < 0:
                    bad.append('line %d: ok cell with value %r' % (i, d['value']))
            elif not d['status'].startswith('failed: ') or val is not None:
                bad.append('line %d: a failed cell must say why and carry no number' % i)
        c.check(not bad, 'CSV rows well-formed%s' % (': ' + '; '.join(bad[:5]) if bad else ''))
        c.check(len(raw) > 0, 'CSV has measurements')
        rows = bl.load_csv(csv_path)

    # ---- JSON
    meta, doc = None, None
    jpath = os.path.join(outdir, 'results.json')
    try:
        with open(jpath) as f:
            doc = json.load(f)
        meta = doc.get('meta')
    except (OSError, ValueError) as e:
        c.check(False, 'results.json parses (%s)' % e)
    if doc is not None:
        c.check(True, 'results.json parses')
        c.check(isinstance(meta, dict) and 'configs' in meta and 'sizes' in meta and 'rounds' in meta,
                'JSON meta has configs, sizes, rounds')
        c.check(len(doc.get('measurements', [])) == len(rows),
                'JSON holds every measurement (%d vs %d CSV rows)'
                % (len(doc.get('measurements', [])), len(rows)))
        cl = doc.get('cells', [])
        c.check(bool(cl) and all({'median', 'min', 'max', 'q1', 'q3', 'n'} <= set(x) and
                                 x['min'] <= x['median'] <= x['max'] for x in cl),
                'JSON has a summary (median, min, max, IQR) of every cell')
        rc = doc.get('resolved_configs', {})
        for cfg in (meta or {}).get('configs', []):
            c.check(isinstance(rc.get(cfg), dict) and rc[cfg].get('name') == cfg,
                    'JSON holds the resolved config of %s' % cfg)

    if meta:
        configs = meta['configs']
        anchors = [a for a in bl.ANCHORS if meta['anchors'].get(a) is None]
        # every config has its MPI series, whatever the run recorded of it
        mpi_targets = [bl.mpi_target(cfg) for cfg in configs]
        # ---- the plan: every cell present
        have = {(r['config'], r['benchmark'], r['size'], r['round']) for r in rows}
        missing = []
        for b in bl.BENCHMARKS:
            for t in bl.targets_of(b, configs, anchors):
                sizes = bl.sizes_of(b, t, meta['sizes'])
                rcj = (doc or {}).get('resolved_configs', {}).get(bl.config_of(t)) or {}
                act = [p['name'] if isinstance(p, dict) else p for p in rcj.get('active_protocols', [])]
                if bl.config_of(t) in configs and not bl.applies(b, act):
                    continue
                for s in sizes:
                    for rnd in range(1, meta['rounds'] + 1):
                        if (t, b['name'], s, rnd) not in have:
                            missing.append('%s/%s/%d/r%d' % (t, b['name'], s, rnd))
        c.check(not missing, 'every planned cell is in the CSV%s'
                % (' (missing ' + ', '.join(missing[:5]) + ')' if missing else ''))
        c.check(all(any(r['config'] == cfg and r['benchmark'] == 'instr' for r in rows)
                    for cfg in configs), 'instructions per message recorded for every config')
        okv = {(r['config'], r['benchmark'], r['size']) for r in rows
               if r['status'] == 'ok' and r['value'] is not None}
        for t in configs + mpi_targets:
            c.check((t, bl.INSTR_API['name'], 8) in okv,
                    'Ir per message of the 8 B ping-pong calls measured for %s' % t)
        for t in mpi_targets:
            c.check(any((t, 'pingpong', s) in okv for s in meta['sizes']),
                    '%s has a pingpong row with a value (the MPI twin over the personality)' % t)
        for t in meta.get('personality_targets', []):
            c.check(any((t, 'pingpong', s) in okv for s in meta['sizes']),
                    '%s has a pingpong row with a value (the personality\'s own program)' % t)
        if os.path.isdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                      'personalities', bl.SEED_FILTER['personality'])):
            for cfg in configs:
                t = bl.personality_target(cfg, bl.SEED_FILTER['personality'])
                c.check(all(any(k[0] == t and k[1] == bl.seed_filter_bench(nb) for k in okv)
                            for nb in bl.SEED_FILTER['buffers']),
                        '%s: seed 001\'s filter experiment measured with %s buffers'
                        % (t, ', '.join(map(str, bl.SEED_FILTER['buffers']))))
        fails = sorted({'%s %s %s' % (r['config'], r['benchmark'], bl.fmt_size(r['size']))
                        for r in rows if r['status'] != 'ok'})
        c.check(not fails, 'every cell produced a figure%s'
                % (' (failed: ' + '; '.join(fails[:6]) + ')' if fails else ''))

        # ---- tables
        for t in configs + mpi_targets + anchors:
            for b in bl.BENCHMARKS:
                want = sorted({r['size'] for r in rows if r['config'] == t and r['benchmark'] == b['name']})
                if not want:
                    continue
                path = os.path.join(outdir, 'tables', '%s.%s.txt' % (t, b['name']))
                ok = os.path.isfile(path)
                if ok:
                    lines = open(path).read().splitlines()
                    data = [l for l in lines if l and not l.startswith('#')]
                    ok = (len(lines) >= 2 and lines[1].startswith(b['header'])
                          and [int(l.split()[0]) for l in data] == want)
                c.check(ok, 'table %s.%s has the OSU header and one line per size' % (t, b['name']))

        # ---- plots
        for p in PLOTS:
            for ext, magic in (('png', b'\x89PNG'), ('svg', b'<svg')):
                path = os.path.join(outdir, 'plots', '%s.%s' % (p, ext))
                ok = os.path.isfile(path) and os.path.getsize(path) > 1000
                if ok:
                    head = open(path, 'rb').read(4096)
                    ok = head.startswith(magic) if ext == 'png' else magic in head
                c.check(ok, 'plot %s.%s exists, non-empty, is a %s' % (p, ext, ext.upper()))

        # ---- report: sections and figures recomputed from the CSV
        rpath = os.path.join(outdir, 'report.md')
        text = open(rpath).read() if os.path.isfile(rpath) else ''
        c.check(bool(text), 'report.md exists')
        for sec in report.SECTIONS:
            c.check(sec in text, 'report.md has section "%s"' % sec)
        cells = bl.cells(rows)
        for t in configs:
            pts = sorted((s, x['median']) for (tt, b, s), x in cells.items()
                         if tt == t and b == 'stream')
            if not pts:
                continue
            ps, pv = max(pts, key=lambda x: x[1])
            m = re.search(r'^\| %s \| ([^|]+) \| ([^|]+) \|' % re.escape(t),
                          text.split(report.SECTIONS[3])[-1], re.M)
            c.check(bool(m) and m.group(1).strip() == report.fmt(pv, 'MB/s')
                    and m.group(2).strip() == bl.fmt_size(ps),
                    'report peak bandwidth of %s matches the CSV (%s at %s)'
                    % (t, report.fmt(pv, 'MB/s'), bl.fmt_size(ps)))
            i8 = cells.get((t, 'instr', 8))
            if i8:
                m = re.search(r'^\| %s \|(?:[^|]*\|){5} ([^|]+) \|' % re.escape(t),
                              text.split(report.SECTIONS[2])[-1], re.M)
                c.check(bool(m) and m.group(1).strip() == report.fmt(i8['median']),
                        'report instructions per 8 B message of %s match the CSV (%s)'
                        % (t, report.fmt(i8['median'])))
        # the cost model's section: with a calibration, each measured ping-pong cell beside its
        # prediction, the error recomputed from the CSV and the model
        mnote = meta['notes'].get('model') or ''
        c.check(not mnote.startswith('failed'), 'the cost model calibrated (%s)' % mnote[-200:])
        if os.path.isfile(os.path.join(outdir, 'costmodel.json')):
            sys.path.insert(0, os.path.join(ROOT, 'tools', 'costmodel'))
            import validate
            with open(os.path.join(outdir, 'costmodel.json')) as f:
                cal = json.load(f)
            msec = text.split(report.MODEL_SECTION)[-1].split('\n## ')[0]
            # the report's model sees the run's own floors and fits (validate.in_run)
            got = validate.compare(cells, configs, validate.in_run(cells, cal))
            c.check(bool(got), 'the cost model predicts the native cells (%d)' % len(got))
            for cfg, bench, s, meas, mod, err in got:
                row = '| %s | %s | %s | %.4g' % (cfg, bench, bl.fmt_size(s), meas)
                m = re.search(r'^%s [^|]*\| ([0-9.e+]+) [^|]*\| ([-+0-9.]+) %%' % re.escape(row), msec, re.M)
                c.check(bool(m) and abs(float(m.group(1)) - float('%.4g' % mod)) < 1e-9 and
                        abs(float(m.group(2)) - 100 * err) < 0.051,
                        'report: the model beside %s %s %s (%.4g, %+.1f %%)' % (cfg, bench, bl.fmt_size(s),
                                                                            mod, 100 * err))
        # the MPI section: one row per config, its figures recomputed from the CSV
        msec = text.split(report.MPI_SECTION)[-1].split('\n## ')[0] if report.MPI_SECTION in text else ''
        for r in report.mpi_rows(rows, cells, configs):
            m = re.search(r'^\| %s \| ([^|]+) \| ([^|]+) \| ([^|]+) \|' % re.escape(r['config']),
                          msec, re.M)
            want = (report.fmt(r['native'], 'us'), report.fmt(r['mpi'], 'us'), report.spread(r['ratios']))
            c.check(bool(m) and tuple(g.strip() for g in m.groups()) == want,
                    'report MPI row of %s matches the CSV (native, via MPI, ratio per round: %s)'
                    % (r['config'], ', '.join(want)))
            if report.MPI_SIZE in meta['sizes']:
                # a round whose two runs were in different placements has no ratio (bl.same_place)
                moved = bl.unpaired_rounds(rows, bl.mpi_target(r['config']), r['config'], 'pingpong',
                                           report.MPI_SIZE)
                c.check(r['mpi'] is not None and (bool(r['ratios']) or bool(moved)),
                        '%s has an %s ping-pong latency via MPI and a per-round ratio to native%s'
                        % (r['config'], bl.fmt_size(report.MPI_SIZE),
                           '' if r['ratios'] else ' (none: round(s) %s ran the two in different '
                           'placements)' % moved))
            m = re.search(r'^\| %s \| ([^|]+) \| ([^|]+) \|' % re.escape(r['config']),
                          msec.split('Instructions per 8 B message')[-1], re.M)
            want = (report.fmt(r['ir_native']), report.fmt(r['ir_mpi']))
            c.check(bool(m) and tuple(g.strip() for g in m.groups()) == want,
                    'report Ir per message of %s, native and via MPI, match the CSV (%s)'
                    % (r['config'], ', '.join(want)))
        if meta.get('wall_seconds') is not None:
            c.check('Wall time' in text, 'report.md gives the wall time')
        # CRC32C against memcpy (crc=1): a positive figure of memcpy and of each implementation's
        # crc and fused at every size, the protocols' default among the implementations
        cpath = os.path.join(outdir, 'crc.csv')
        if os.path.isfile(cpath):
            with open(cpath, newline='') as f:
                crows = list(csv.DictReader(f))
            whats = {(r['size'], r['what']) for r in crows if float(r['median'] or 0) > 0}
            sizes = {r['size'] for r in crows}
            impls = {w.split(':', 1)[1] for _, w in whats if w.startswith('crc:')}
            default = crows[0].get('default') if crows else None
            c.check(sizes and impls and default in impls and
                    len(whats) == (1 + 2 * len(impls)) * len(sizes),
                    'crc.csv: memcpy, and crc and fused of each implementation (%s; default %s), '
                    'measured at each of %d sizes' % (', '.join(sorted(impls)), default, len(sizes)))
        # msgrate --phases (phases.csv): each series' run of each round has both nodes' phases at
        # every size it measured, and report.md a row for each series
        ppath = os.path.join(outdir, 'phases.csv')
        if os.path.isfile(ppath):
            with open(ppath, newline='') as f:
                prows = list(csv.DictReader(f))
            roles = {}
            for r in prows:
                roles.setdefault((r['config'], r['round'], r['size']), set()).add(r['role'])
            half = sorted('%s round %s %s B' % k for k, v in roles.items() if v != {'sender', 'receiver'})
            series = sorted({r['config'] for r in prows})
            c.check(prows and not half, 'phases.csv: sender and receiver phases of every msgrate run '
                    '(%s)%s' % (', '.join(series), ' (one side only: %s)' % '; '.join(half[:3]) if half else ''))
            psec = text.split(report.PHASES_SECTION)[-1].split('\n## ')[0]
            c.check(all('| %s | ' % t in psec for t in series),
                    'report.md\'s phases table has a row for each of %s' % ', '.join(series))
        # scaling with peers (scale=1): every job has figures, and a message costs node 0 the same
        # instructions whatever the number of nodes and active pairs (idle peers cost nothing)
        spath = os.path.join(outdir, 'scale.csv')
        if os.path.isfile(spath):
            with open(spath, newline='') as f:
                srows = list(csv.DictReader(f))
            bad = ['%s nodes %s pairs %s: %s' % (r['nodes'], r['pairs'], r['benchmark'], r['status'])
                   for r in srows if r['status'] != 'ok']
            c.check(srows and not bad, 'scale.csv: every job of the scaling stage has its figures%s'
                    % (' (failed: %s)' % '; '.join(bad[:3]) if bad else ''))
            send = {(r['nodes'], r['pairs']): float(r['value']) for r in srows
                    if r['benchmark'] == 'send_ir' and r['status'] == 'ok'}
            if send:
                lo, hi = min(send.values()), max(send.values())
                c.check(hi <= lo * 1.01, 'lc_send costs node 0 the same instructions per message '
                        'with 2 to %s nodes, idle or active (%.1f..%.1f Ir/msg)'
                        % (max(int(k[0]) for k in send), lo, hi))
            c.check('| 8 (oversubscribed) | 1 |' in text or '| 8 | 1 |' in text,
                    'report.md\'s scaling table has the job of 8 nodes with one active pair')

    print('bench-quick: %d passed, %d failed' % (c.passed, c.failed))
    return 1 if c.failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
