#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# One protocol, one folder: no protocol names another; framework/, nic/ and launcher/ name none.
"""usage: check_independence.py [--root DIR]

Protocols cooperate only through the generated composite (pointcuts, and the
registry's cooperation declarations turned into lc_coop.h and friends:
docs/internals.md, "How protocols cooperate").  This check fails when

  - a file of protocols/P/ includes a file of another protocol's folder, names
    another protocol (its name as a word, in code or comments: `reliability`,
    `lc_reliability_crc`, `LC_PROTO_RELIABILITY`, `hdr->reliability_seq`), or
    uses an identifier another protocol's folder defines (a macro, a struct,
    enum or function name: LC_REL_F_ACK, lc_fc_ctrl);
  - a file of framework/, nic/ or launcher/ includes anything under
    protocols/, names a protocol, or uses an identifier a protocol defines;
  - a file of personalities/P/ (its library, headers, wrappers and programs;
    its Criterion drivers test_*.c aside) includes a header that a build does
    not install into build/<cfg>/include/ (comm.h and what it includes, the
    generated headers, the protocols' API headers) and that is not its own:
    a personality is an application of the public API, never of internals.

Every finding is printed as file:line: reason; the last line counts the files
("N passed, M failed"); exit 1 when there is a finding.
"""
import argparse
import os
import re
import sys

SHARED_DIRS = ('framework', 'nic', 'launcher')
SOURCE_EXT = ('.c', '.h', '.lua', '.m4')
DEFINES = (
    re.compile(r'^\s*#\s*define\s+([A-Za-z_]\w*)', re.M),
    re.compile(r'\b(?:struct|enum|union)\s+([A-Za-z_]\w*)\s*\{'),
    re.compile(r'^(?:static\s+)?(?:inline\s+)?(?:const\s+)?[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*\{',
               re.M),
)
ENUMERATORS = re.compile(r'\benum\s+\w*\s*\{([^}]*)\}')


def files_of(d):
    out = []
    for base, _, names in os.walk(d):
        for n in sorted(names):
            if n.endswith(SOURCE_EXT):
                out.append(os.path.join(base, n))
    return sorted(out)


def name_pattern(p):
    """The protocol's name as a word: flow_control also as 'flow control'."""
    body = re.escape(p).replace('_', '[_ ]')
    return re.compile(r'(?<![A-Za-z0-9])' + body + r'(?![A-Za-z0-9])', re.I)


def defined_names(text):
    """The project-prefixed names a file defines (lc_*, LC_*): what others could use of it."""
    names = set()
    for rx in DEFINES:
        names.update(rx.findall(text))
    for body in ENUMERATORS.findall(text):
        names.update(re.findall(r'([A-Za-z_]\w*)\s*(?:=[^,]*)?(?:,|$)', body))
    # include guards and X-macro temporaries say nothing about a protocol's interface
    return {n for n in names if re.match(r'(lc|LC)_', n) and not n.endswith('_H')
            and not n.startswith('LC_X_')}


def installed_headers(root, protos):
    """What a build installs into build/<cfg>/include/: SConstruct's GEN_HEADERS, the public
    headers (framework/comm.h and what it includes from framework/ or nic/), and every
    protocol's API header as <p>/<api> (the registry's api)."""
    sc = open(os.path.join(root, 'SConstruct')).read()
    m = re.search(r'GEN_HEADERS\s*=\s*\[([^\]]*)\]', sc)
    names = set(re.findall(r"'([^']+)'", m.group(1))) if m else set()
    todo, seen = ['framework/comm.h'], set()
    while todo:
        h = todo.pop()
        if h in seen or not os.path.exists(os.path.join(root, h)):
            continue
        seen.add(h)
        names.add(os.path.basename(h))
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(os.path.join(root, h)).read(), re.M):
            todo += ['framework/' + inc, 'nic/' + inc]
    for p in protos:
        m = re.search(r'^\s*api\s*=\s*"([^"]+)"', open(os.path.join(root, 'protocols', p, 'protocol.lua')).read(),
                      re.M)
        if m:
            names.add('%s/%s' % (p, m.group(1)))
    return names


def personality_problems(root, protos):
    pdir = os.path.join(root, 'personalities')
    if not os.path.isdir(pdir):
        return []
    installed = installed_headers(root, protos)
    out = []
    for p in sorted(os.listdir(pdir)):
        base = os.path.join(pdir, p)
        own = {os.path.basename(f) for f in files_of(base) if f.endswith('.h')}
        for f in files_of(base):
            if os.path.basename(f).startswith('test_'):
                continue    # a Criterion driver of the tests, not part of the personality
            text = open(f, encoding='utf-8', errors='replace').read()
            for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
                inc = m.group(1)
                if inc not in installed and inc not in own:
                    out.append('%s:%d: includes "%s", not an installed header (build/<cfg>/include/) '
                               'nor its own' % (os.path.relpath(f, root), text.count('\n', 0, m.start()) + 1, inc))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    a = ap.parse_args()
    root = a.root
    pdir = os.path.join(root, 'protocols')
    protos = sorted(p for p in os.listdir(pdir)
                    if os.path.exists(os.path.join(pdir, p, 'protocol.lua')))
    texts, owner = {}, {}
    defs = {p: set() for p in protos}
    for p in protos:
        for f in files_of(os.path.join(pdir, p)):
            texts[f] = open(f, encoding='utf-8', errors='replace').read()
            owner[f] = p
            if not os.path.basename(f).startswith('test_'):   # a test's own helpers are private
                defs[p] |= defined_names(texts[f])
    for d in SHARED_DIRS:
        for f in files_of(os.path.join(root, d)):
            texts[f] = open(f, encoding='utf-8', errors='replace').read()
            owner[f] = None
    # a name two protocols both define (e.g. a local helper macro) belongs to neither
    seen, common = {}, set()
    for p in protos:
        for n in defs[p]:
            if n in seen:
                common.add(n)
            seen[n] = p
    pats = {p: name_pattern(p) for p in protos}
    include = re.compile(r'^\s*#\s*include\s+[<"]([^">]+)[">]', re.M)
    ident = re.compile(r'[A-Za-z_]\w*')
    problems = []

    def where(f, pos):
        return '%s:%d' % (os.path.relpath(f, root), texts[f].count('\n', 0, pos) + 1)

    for f in sorted(texts):
        me, text = owner[f], texts[f]
        others = [p for p in protos if p != me]
        for m in include.finditer(text):
            inc = m.group(1)
            first = inc.split('/', 1)[0]
            if inc.startswith('protocols/') or '/protocols/' in inc or \
                    ('/' in inc and first in others):
                problems.append('%s: includes "%s" (%s)' % (
                    where(f, m.start()), inc,
                    'another protocol\'s file' if me else 'a protocol\'s file'))
        for p in others:
            for m in pats[p].finditer(text):
                problems.append('%s: names protocol %s ("%s")' % (
                    where(f, m.start()), p, text[m.start():m.end() + 16].split('\n')[0]))
        for m in ident.finditer(text):
            n = m.group(0)
            if n in seen and n not in common and seen[n] != me:
                problems.append('%s: uses %s, defined by protocol %s' % (where(f, m.start()), n, seen[n]))
    problems += personality_problems(root, protos)
    for line in problems:
        print(line)
    bad = {line.split(':', 1)[0] for line in problems}
    print('independence: %d protocol(s), %d finding(s); files: %d passed, %d failed'
          % (len(protos), len(problems), len(texts) - len(bad), len(bad)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
