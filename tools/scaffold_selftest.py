#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Scaffold self-test: new_protocol in a temporary copy of the tree builds baseline+NAME and passes.
"""usage: scaffold_selftest.py ROOT

Copies the sources of ROOT (not build/, not .git) into a temporary directory,
runs `scons new_protocol=zz_selftest` there, checks that a second run and an
invalid name are refused, adds configs/zz_selftest.lua (baseline + the new
protocol), builds it with scons and runs build/zz_selftest/tests/test_zz_selftest.
Prints "N passed, M failed" last; the temporary tree is removed.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

NAME = 'zz_selftest'
SYNTH = re.compile(r'Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)')


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else '.')
    passed = failed = 0

    def check(ok, what, detail=''):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print('FAIL: %s\n%s' % (what, detail.strip()[-3000:]))
        return ok

    tmp = tempfile.mkdtemp(prefix='lc-scaffold.')
    try:
        tree = os.path.join(tmp, 'tree')
        shutil.copytree(root, tree, ignore=shutil.ignore_patterns(
            'build', '.git', '.sconsign.dblite', '__pycache__'))

        def scons(*args):
            p = subprocess.run(['scons', '-Q'] + list(args), cwd=tree, capture_output=True,
                               text=True)
            return p.returncode, p.stdout + p.stderr

        rc, out = scons('new_protocol=' + NAME)
        if not check(rc == 0 and os.path.exists(os.path.join(tree, 'protocols', NAME, 'hooks.h')),
                     'scons new_protocol=%s' % NAME, out):
            return passed, failed
        rc, out = scons('new_protocol=' + NAME)
        check(rc != 0 and 'already exists' in out, 'an existing protocol is refused', out)
        rc, out = scons('new_protocol=9bad-name')
        check(rc != 0 and 'not a valid protocol name' in out, 'an invalid name is refused', out)

        with open(os.path.join(tree, 'configs', NAME + '.lua'), 'w') as f:
            f.write('-- SPDX-License-Identifier: MIT\n-- scaffold self-test: baseline + %s.\n'
                    'return { extends = "baseline", protocols = { "%s" } }\n' % (NAME, NAME))
        rc, out = scons('config=' + NAME, 'build/%s/tests/test_%s' % (NAME, NAME))
        if not check(rc == 0, 'scons config=%s builds' % NAME, out):
            return passed, failed
        exe = os.path.join(tree, 'build', NAME, 'tests', 'test_' + NAME)
        p = subprocess.run([exe, '--color=never'], cwd=tree, capture_output=True, text=True,
                           timeout=120)
        m = SYNTH.findall(p.stderr)
        ok = p.returncode == 0 and m and int(m[-1][0]) > 0 and int(m[-1][0]) == int(m[-1][1])
        check(bool(ok), 'test_%s passes at once' % NAME, p.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return passed, failed


if __name__ == '__main__':
    ok, bad = main()
    print('%d passed, %d failed' % (ok, bad))
    sys.exit(1 if bad else 0)
