#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fetch the public programs the tests build unmodified against a config's personality.

Each entry: name, the file, where Debian keeps it (the machine's own package mirror, the
one network source a fresh Debian 12 machine reaches), its SHA-256 (from the Debian
source package's .dsc).  Files land in build/thirdparty/ (or DIR); one already there
with the right digest is kept.  Exit 0 when every file is there, 1 otherwise (each
failure named).  The tests that use a file skip, with the reason, when it is missing.

Usage: tools/thirdparty.py [DIR]
"""
import hashlib
import os
import sys
import urllib.request

MIRROR = os.environ.get('LC_DEBIAN_MIRROR', 'http://deb.debian.org/debian')
# name, file, path under the mirror, sha256
FILES = [
    ('netpipe', 'netpipe_3.7.2.orig.tar.gz', 'pool/main/n/netpipe',
     '13dac884ff52951636f651c421f5ff4a853218a95aa28a4a852402ee385a2ab8'),
]


def digest(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 16), b''):
            h.update(block)
    return h.hexdigest()


def fetch(outdir, name, fname, where, sha):
    path = os.path.join(outdir, fname)
    if os.path.exists(path) and digest(path) == sha:
        return None
    url = '%s/%s/%s' % (MIRROR, where, fname)
    tmp = path + '.part'
    try:
        with urllib.request.urlopen(url, timeout=60) as r, open(tmp, 'wb') as f:
            f.write(r.read())
    except OSError as e:
        return '%s: %s: %s' % (name, url, e)
    got = digest(tmp)
    if got != sha:
        os.unlink(tmp)
        return '%s: %s: SHA-256 %s, expected %s' % (name, url, got, sha)
    os.replace(tmp, path)
    return None


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', 'build', 'thirdparty')
    os.makedirs(outdir, exist_ok=True)
    bad = [e for e in (fetch(outdir, *f) for f in FILES) if e]
    for e in bad:
        print('thirdparty: ' + e, file=sys.stderr)
    print('thirdparty: %d of %d in %s' % (len(FILES) - len(bad), len(FILES), os.path.normpath(outdir)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
