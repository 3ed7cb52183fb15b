# SPDX-License-Identifier: MIT
"""The tables `commrun --stats` prints after a job, read back (tools/place.py,
tools/costmodel/advise.py): one reader, so every tool sees the same columns.

parse(text) -> dict of the tables found:
  counters  {name: [value of node 0, node 1, ...]}     (launcher/report.c, lc_run_print_stats)
  traffic   {(src, dst): {msgs, frames, bytes}}        (the traffic matrix)
  sizes     {node: [(lowest, highest, msgs, bytes)]}   (the message sizes each node sent)
  faults    {(src, dst): {drop, corrupt, ...}}         (faults injected per link)
  ports     {port: {to, frames, bytes, stalls[, wait_ms, busy_ms]}}
                                                       (switch output ports; "s.q" names switch s,
                                                       port q; wait and busy on a timed network)
A table the job did not print is absent.  The program's own output may come first and is
skipped: the tables start at the line "# commrun --stats".
"""
import re

TITLES = (('commrun --stats', 'counters'), ('traffic matrix', 'traffic'),
          ('message sizes', 'sizes'), ('switch output ports', 'ports'),
          ('faults injected', 'faults'))
LINK = re.compile(r'^(\d+)->(\d+)$')
# a row of the ports table: its "leads to" column holds spaces ("NIC 0 (node 0)")
PORT = re.compile(r'^(\d+\.\d+)\s+(.+?)\s+(\d+)\s+(\d+)\s+(\d+)(?:\s+([0-9.]+)\s+([0-9.]+))?$')


class Error(Exception):
    """A line of a table that is not what commrun prints: (line number, reason)."""


def _table(title):
    for prefix, name in TITLES:
        if title.startswith(prefix):
            return name
    return None


def parse(text):
    out, table, cols, nodes = {}, None, None, []
    for no, line in enumerate(text.splitlines(), 1):
        if line.startswith('# '):
            table, cols = _table(line[2:]), None
            if table:
                out.setdefault(table, {})
            continue
        if table is None or not line.strip():
            continue
        w = line.split()
        if cols is None or (table == 'counters' and w[0] == 'counter'):
            cols = w[1:]
            if table == 'counters':
                nodes = [int(x) for x in re.findall(r'node (\d+)', line)]
            continue
        try:
            if table == 'counters':
                row = out['counters'].setdefault(w[0], [])
                for n, v in zip(nodes, w[1:]):
                    row.extend([None] * (n + 1 - len(row)))
                    row[n] = None if v == '-' else int(v)
            elif table in ('traffic', 'faults'):
                m = LINK.match(w[0])
                if not m or len(w) != len(cols) + 1:
                    raise ValueError('expected "src->dst" and %d counts' % len(cols))
                out[table][(int(m.group(1)), int(m.group(2)))] = dict(zip(cols, map(int, w[1:])))
            elif table == 'ports':
                m = PORT.match(line.strip())
                if not m:
                    raise ValueError('expected "switch.port", where it leads, frames, bytes, stalls')
                row = dict(to=m.group(2), frames=int(m.group(3)), bytes=int(m.group(4)),
                           stalls=int(m.group(5)))
                if m.group(6) is not None:
                    row.update(wait_ms=float(m.group(6)), busy_ms=float(m.group(7)))
                out['ports'][m.group(1)] = row
            elif table == 'sizes':
                lo, _, hi = w[1].partition('-')
                out['sizes'].setdefault(int(w[0]), []).append(
                    (int(lo), int(hi or lo), int(w[2]), int(w[3])))
        except (ValueError, IndexError) as e:
            raise Error(no, '%s table: %s' % (table, e))
    return out


def read(path):
    """parse() of a file; Error carries 'path:line: reason'."""
    with open(path) as f:
        text = f.read()
    try:
        return parse(text)
    except Error as e:
        no, why = e.args
        raise Error('%s:%d: %s' % (path, no, why))
