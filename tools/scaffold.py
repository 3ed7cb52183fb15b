#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# `scons new_protocol=NAME`: create protocols/NAME/ from templates/*.m4 (m4 -P) and the pointcut table.
"""usage: scaffold.py NAME [--root DIR]

Writes protocols/NAME/{protocol.lua,state.h,hooks.h,test_NAME.c}.  The list
of pointcuts comes from framework/pointcuts.lua, expanded into m4 definitions
by tools/pointcuts_m4.lua (the one source).  Refuses an invalid or existing
name.  The registry order is 90, or the first free order above it.
"""
import argparse
import os
import re
import subprocess
import sys

TEMPLATES = (('protocol.lua.m4', 'protocol.lua'), ('state.h.m4', 'state.h'),
             ('hooks.h.m4', 'hooks.h'), ('test.c.m4', 'test_{name}.c'))
NAME_RE = re.compile(r'^[a-z][a-z0-9_]{0,30}$')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('name')
    ap.add_argument('--root', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    a = ap.parse_args()
    name, root = a.name, a.root
    pdir = os.path.join(root, 'protocols', name)
    if not NAME_RE.match(name) or '__' in name or name.endswith('_'):
        print('scaffold: %r is not a valid protocol name ([a-z][a-z0-9_]*, at most 31 characters)'
              % name, file=sys.stderr)
        return 2
    if os.path.exists(pdir):
        print('scaffold: protocols/%s already exists' % name, file=sys.stderr)
        return 2

    used = set()
    for entry in sorted(os.listdir(os.path.join(root, 'protocols'))):
        path = os.path.join(root, 'protocols', entry, 'protocol.lua')
        if os.path.exists(path):
            m = re.search(r'^\s*order\s*=\s*(\d+)', open(path).read(), re.M)
            if m:
                used.add(int(m.group(1)))
    order = 90
    while order in used:
        order += 1

    defs = subprocess.run(['lua5.4', os.path.join(root, 'tools', 'pointcuts_m4.lua'),
                           os.path.join(root, 'framework', 'pointcuts.lua')],
                          capture_output=True, text=True)
    if defs.returncode != 0:
        print('scaffold: pointcut table: ' + defs.stderr.strip(), file=sys.stderr)
        return 1
    tdir = os.path.join(root, 'templates')
    out = {}
    for tmpl, dst in TEMPLATES:
        p = subprocess.run(['m4', '-P', '-DLC_NAME=' + name, '-DLC_UNAME=' + name.upper(),
                            '-DLC_ORDER=%d' % order, os.path.join(tdir, 'prelude.m4'), '-',
                            os.path.join(tdir, tmpl)],
                           input=defs.stdout, capture_output=True, text=True)
        if p.returncode != 0 or p.stderr:
            print('scaffold: m4 %s: %s' % (tmpl, p.stderr.strip()), file=sys.stderr)
            return 1
        out[dst.format(name=name)] = p.stdout
    os.makedirs(pdir)
    for dst, text in out.items():
        with open(os.path.join(pdir, dst), 'w') as f:
            f.write(text)
    print('scaffold: created protocols/%s/ (%s), registry order %d'
          % (name, ', '.join(sorted(out)), order))
    print('next: add "%s" to a config\'s protocols, then scons config=<that config>' % name)
    return 0


if __name__ == '__main__':
    sys.exit(main())
