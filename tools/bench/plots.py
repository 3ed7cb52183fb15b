# SPDX-License-Identifier: MIT
# Plots of the benchmark matrix with gnuplot (PNG via pngcairo and SVG), from the tidy CSV rows.
import math
import os
import subprocess

import benchlib as bl

# One colour per config; anchors drawn dashed in grey/black; a config's MPI series (<config>+mpi)
# in the config's colour, dotted, with open points.
COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2',
           '#17becf', '#bcbd22', '#7f7f7f']
ANCHOR_STYLE = {'shm': ('#000000', 'shm floor (raw copy in + out)'),
                'nic': ('#996633', 'NIC model floor (nic/ alone, no framework)'),
                'openmpi': ('#777777', 'Open MPI (ob1 + vader)')}

# The plots: file stem, benchmark, y label, title.
CURVES = [
    ('latency', 'pingpong', 'one-way latency (us)', 'Ping-pong latency (half round trip)'),
    ('bandwidth', 'stream', 'bandwidth (MB/s)', 'Windowed one-way bandwidth (stream, window 64)'),
    ('bibw', 'bibw', 'bandwidth, both directions (MB/s)', 'Bidirectional bandwidth (bibw, window 64)'),
    ('msgrate', 'msgrate', 'messages per second', 'Message rate (msgrate, window 64)'),
    ('bcast', 'bcast', 'broadcast + acks (us)', 'Broadcast latency, 4 nodes (configs with multicast)'),
]
# The MPI series beside its native config and Open MPI (its own plot: in the plots above, one more
# curve per config would no longer be readable with the default six configs).
MPI_CURVES = [
    ('latency_mpi', 'pingpong', 'one-way latency (us)',
     'Ping-pong: native API (solid), MPI twin over the personality (dotted)'),
]


def q(s):
    return '"%s"' % str(s).replace('"', "'")


def terminals(stem):
    return [('set terminal pngcairo size 1200,760 font "Sans,11" noenhanced', stem + '.png'),
            ('set terminal svg size 1200,760 font "Sans,11" noenhanced dynamic', stem + '.svg')]


def run_gnuplot(pdir, stem, body, errors):
    script = os.path.join(pdir, stem + '.gp')
    with open(script, 'w') as f:
        f.write('# written by tools/bench/plots.py\n')
        for term, out in terminals(stem):
            f.write('%s\nset output %s\n%s\nunset output\n' % (term, q(out), body))
    p = subprocess.run(['gnuplot', os.path.basename(script)], cwd=pdir, capture_output=True,
                       text=True)
    if p.returncode != 0:
        errors.append('%s: gnuplot failed: %s' % (stem, p.stderr.strip()[-300:]))


def size_tics(sizes):
    tics = []
    for s in sizes:
        if s > 0 and (s & (s - 1)) == 0 and int(math.log2(s)) % 2 == 0:
            tics.append('%s %d' % (q(bl.fmt_size(s).replace(' ', '')), s))
    return 'set xtics (%s)' % ', '.join(tics) if tics else ''


def curve_plot(pdir, stem, bench, ylabel, title, cells, targets, nrounds, errors, configs):
    series = []
    sizes_all = set()
    for t in targets:
        pts = sorted((s, c) for (tt, b, s), c in cells.items() if tt == t and b == bench and s > 0)
        if not pts:
            continue
        dat = os.path.join(pdir, 'data', '%s.%s.dat' % (stem, t))
        with open(dat, 'w') as f:
            f.write('# size median min max\n')
            for s, c in pts:
                f.write('%d %g %g %g\n' % (s, c['median'], c['min'], c['max']))
                sizes_all.add(s)
        if t in ANCHOR_STYLE:
            colour, name = ANCHOR_STYLE[t]
            style = 'lw 2 dt 2 pt 6 lc rgb %s' % q(colour)
        else:
            c = bl.config_of(t)
            colour = COLOURS[(configs.index(c) if c in configs else 0) % len(COLOURS)]
            if bl.is_mpi_target(t):
                name, style = '%s via MPI' % c, 'lw 2 dt 3 pt 6 ps 0.8 lc rgb %s' % q(colour)
            else:
                name, style = t, 'lw 2 pt 7 ps 0.8 lc rgb %s' % q(colour)
        series.append("%s using 1:2:3:4 with yerrorlines %s title %s"
                      % (q('data/%s.%s.dat' % (stem, t)), style, q(name)))
    if not series:
        return False
    body = '\n'.join([
        'set title %s' % q('%s — median of %d round(s), bars min–max' % (title, nrounds)),
        'set logscale x 2', 'set logscale y 10', 'set format y "%g"',
        size_tics(sorted(sizes_all)), 'set xlabel "message size"', 'set ylabel %s' % q(ylabel),
        'set grid xtics ytics mytics lc rgb "#dddddd"', 'set key outside right top box',
        'set bars small', 'plot ' + ', \\\n     '.join(series)])
    run_gnuplot(pdir, stem, body, errors)
    return True


def heatmap(pdir, stem, bench, cells, configs, errors, invert):
    """config x size, median normalised to baseline as a time ratio (>1: slower than baseline)."""
    ref = 'baseline' if 'baseline' in configs else (configs[0] if configs else None)
    if ref is None:
        return False
    sizes = sorted({s for (t, b, s) in cells if b == bench and t in configs})
    if not sizes:
        return False
    dat = os.path.join(pdir, 'data', stem + '.dat')
    any_cell = False
    with open(dat, 'w') as f:
        f.write('# xi yi log2(ratio) ratio (ratio = time relative to %s)\n' % ref)
        for yi, c in enumerate(configs):
            for xi, s in enumerate(sizes):
                a, r = cells.get((c, bench, s)), cells.get((ref, bench, s))
                if a and r and a['median'] > 0 and r['median'] > 0:
                    ratio = (r['median'] / a['median']) if invert else (a['median'] / r['median'])
                    f.write('%d %d %g %s\n' % (xi, yi, math.log2(ratio), q('%.3g' % ratio)))
                    any_cell = True
                else:
                    f.write('%d %d NaN "n/a"\n' % (xi, yi))
            f.write('\n')
    if not any_cell:
        return False
    xt = ', '.join('%s %d' % (q(bl.fmt_size(s).replace(' ', '')), i) for i, s in enumerate(sizes))
    yt = ', '.join('%s %d' % (q(c), i) for i, c in enumerate(configs))
    what = 'latency' if not invert else 'time per byte (1 / bandwidth)'
    body = '\n'.join([
        'set title %s' % q('%s: %s relative to %s (median; >1 slower, <1 faster)'
                           % (bench, what, ref)),
        'set xtics (%s) rotate by 45 right' % xt, 'set ytics (%s)' % yt,
        'set xrange [-0.5:%g]' % (len(sizes) - 0.5), 'set yrange [-0.5:%g]' % (len(configs) - 0.5),
        'set cbrange [-2:2]', 'set cbtics ("1/4" -2, "1/2" -1, "1" 0, "2" 1, "4" 2)',
        'set cblabel "ratio to %s (log scale)"' % ref,
        'set palette defined (-2 "#2166ac", -1 "#92c5de", 0 "#f7f7f7", 1 "#f4a582", 2 "#b2182b")',
        'set xlabel "message size"', 'unset key', 'set tics nomirror', 'set border 3',
        'plot %s using 1:2:3 with image, "" using 1:2:4 with labels font ",8"' % q('data/%s.dat' % stem)])
    run_gnuplot(pdir, stem, body, errors)
    return True


def instr_plot(pdir, cells, configs, errors):
    sizes = sorted({s for (t, b, s) in cells if b == 'instr' and t in configs})
    if not sizes:
        return False
    dat = os.path.join(pdir, 'data', 'instructions.dat')
    with open(dat, 'w') as f:
        f.write('# config %s\n' % ' '.join(bl.fmt_size(s).replace(' ', '') for s in sizes))
        for c in configs:
            vals = [cells.get((c, 'instr', s)) for s in sizes]
            f.write('%s %s\n' % (q(c), ' '.join('%g' % v['median'] if v else 'NaN' for v in vals)))
    cols = ', '.join('%s using %d:xtic(1) title %s lc rgb %s'
                     % ('"data/instructions.dat"' if i == 0 else '""', i + 2,
                        q('%s message' % bl.fmt_size(s)), q(COLOURS[i % len(COLOURS)]))
                     for i, s in enumerate(sizes))
    labels = ', '.join('"" using ($0 - %g):%d:(sprintf("%%.0f", $%d)) with labels offset 0,0.7 '
                       'font ",9" notitle' % (0.2 - 0.4 * i / max(1, len(sizes) - 1)
                                              if len(sizes) > 1 else 0, i + 2, i + 2)
                       for i, s in enumerate(sizes))
    body = '\n'.join([
        'set title "Instructions per message on the send + receive path '
        '(callgrind: lc_tx_frame + lc_rx_frame, both nodes)"',
        'set style data histograms', 'set style histogram clustered gap 1',
        'set style fill solid 0.85 border -1', 'set boxwidth 0.9', 'set yrange [0:*]',
        'set ylabel "instructions per message (Ir)"', 'set grid ytics lc rgb "#dddddd"',
        'set key top left', 'set xtics rotate by 20 right',
        'plot %s, %s' % (cols, labels)])
    run_gnuplot(pdir, 'instructions', body, errors)
    return True


def fault_plot(pdir, rows, errors):
    fr = [r for r in rows if r['benchmark'] in bl.FAULT_BENCHES and r['status'] == 'ok']
    if not fr:
        return False
    plotted = []
    for bench, ylabel in (('fault_goodput', 'goodput at 64 KiB (MB/s)'),
                          ('fault_latency', 'latency at 8 B (us)')):
        series = []
        for i, c in enumerate(sorted({r['config'] for r in fr})):
            pts = sorted((r['size'] / 10.0, r['value']) for r in fr
                         if r['config'] == c and r['benchmark'] == bench)
            if not pts:
                continue
            dat = os.path.join(pdir, 'data', '%s.%s.dat' % (bench, c))
            with open(dat, 'w') as f:
                f.write('# drop_percent value\n')
                for x, v in pts:
                    f.write('%g %g\n' % (x, v))
            series.append('%s using 1:2 with linespoints lw 2 pt 7 lc rgb %s title %s'
                          % (q('data/%s.%s.dat' % (bench, c)), q(COLOURS[i % len(COLOURS)]), q(c)))
        if series:
            body = '\n'.join(['set title %s' % q('%s under dropped frames' % bench),
                              'set xlabel "drop rate (%)"', 'set ylabel %s' % q(ylabel),
                              'set grid', 'set key top right', 'plot ' + ', '.join(series)])
            run_gnuplot(pdir, bench, body, errors)
            plotted.append(bench)
    return bool(plotted)


def make_all(outdir, rows, configs, anchors, mpi_targets=()):
    """Write every plot into outdir/plots; return a list of error strings."""
    pdir = os.path.join(outdir, 'plots')
    os.makedirs(os.path.join(pdir, 'data'), exist_ok=True)
    errors = []
    cells = bl.cells(rows)
    nrounds = max([r['round'] for r in rows if r['benchmark'] in bl.BENCH] or [0])
    targets = list(configs) + list(anchors)
    for stem, bench, ylabel, title in CURVES:
        curve_plot(pdir, stem, bench, ylabel, title, cells, targets, nrounds, errors, configs)
    mtargets = [x for c in configs for x in [c] + [t for t in mpi_targets if bl.config_of(t) == c]]
    for stem, bench, ylabel, title in MPI_CURVES:
        curve_plot(pdir, stem, bench, ylabel, title, cells,
                   mtargets + [a for a in anchors if a == 'openmpi'], nrounds, errors, configs)
    heatmap(pdir, 'heatmap', 'pingpong', cells, configs, errors, invert=False)
    heatmap(pdir, 'heatmap_bandwidth', 'stream', cells, configs, errors, invert=True)
    instr_plot(pdir, cells, configs, errors)
    fault_plot(pdir, rows, errors)
    return errors
