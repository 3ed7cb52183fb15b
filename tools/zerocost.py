#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The zero-cost proof: baseline vs pointcuts-compiled-out, machine code and callgrind counts.
"""Run by `scons zerocost` (and `scons test`) after SCons built the variants:

  build/zerocost/base  config baseline, release flags
  build/zerocost/ref   the same with -DLC_ZEROCOST_REFERENCE=1 (every LC_PC() /
                       LC_PC_NIC() replaced by the pointcut's neutral value)
  build/zc-<P>         baseline + protocol P alone (gen --with-protocol P)

1. Machine code: every function of framework/hot.o and of the NIC objects that
   call LC_PC_NIC, `objdump -dr --no-show-raw-insn`, address column stripped,
   must be identical between base and ref.
2. Instructions: tools/zc_loop (2-node ping-pong) under callgrind with
   --toggle-collect=lc_tx_frame --toggle-collect=lc_rx_frame; the collected Ir
   per message must be identical between base and ref.  "Per message" = the
   instructions a node spends in lc_tx_frame + lc_rx_frame (inclusive) divided
   by the round trips: each node sends one message and receives one per trip.
3. For every implemented protocol, the same loop on build/zc-<P>: Ir per
   message and what P adds to the baseline.
Last line: "N passed, M failed"; exit 1 if anything differs or did not run.
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

HOT = ('lc_tx_frame', 'lc_rx_frame')
LOOPS = ((8, 2000), (65536, 100))   # (message bytes, round trips): PIO and multi-frame DMA


class Result:
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


def functions(obj):
    """{function: [normalised disassembly lines]} of one object file."""
    out = subprocess.run(['objdump', '-dr', '--no-show-raw-insn', obj], capture_output=True,
                         text=True, check=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r'^[0-9a-f]+ <([^>]+)>:$', line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
            continue
        if cur is None or not line.strip() or line.startswith('Disassembly of section'):
            continue
        # strip the address column ("   1f:\t..." and relocation lines "\t\t\t1f: R_X86_64...")
        line = re.sub(r'^\s*[0-9a-f]+:\s*', '', line)
        funcs[cur].append(re.sub(r'\s+', ' ', line).strip())
    return funcs


def compare_code(res, pairs):
    print('== 1. machine code: base vs reference (objdump -dr, addresses stripped)')
    print('%-24s %-36s %6s  %s' % ('object', 'function', 'insns', 'verdict'))
    for base, ref in pairs:
        fb, fr = functions(base), functions(ref)
        obj = os.path.basename(base)
        for name in sorted(set(fb) | set(fr)):
            a, b = fb.get(name), fr.get(name)
            if a is None or b is None:
                res.check(False, '%s: %s exists only in the %s build'
                          % (obj, name, 'reference' if a is None else 'base'))
                continue
            insns = sum(1 for l in a if not re.match(r'R_[A-Z0-9_]+', l))
            same = a == b
            print('%-24s %-36s %6d  %s' % (obj, name, insns, 'identical' if same else 'DIFFERENT'))
            if not res.check(same, '%s: %s differs' % (obj, name)):
                sys.stdout.writelines(difflib.unified_diff(
                    [l + '\n' for l in b], [l + '\n' for l in a],
                    'reference/' + name, 'base/' + name))


def callgrind(bdir, size, iters, tmp):
    """Collected Ir per message for each node, or an error string."""
    commrun = os.path.join(bdir, 'bin', 'commrun')
    loop = os.path.join(bdir, 'bin', 'zc_loop')
    for p in (commrun, loop):
        if not os.path.exists(p):
            return None, '%s is missing' % p
    outdir = tempfile.mkdtemp(prefix='cg.', dir=tmp)
    cmd = [commrun, '-n', '2', 'valgrind', '--tool=callgrind', '-q',
           '--callgrind-out-file=%s/cg.%%q{LC_NODE}' % outdir]
    cmd += ['--toggle-collect=%s' % f for f in HOT]
    cmd += [loop, str(iters), str(size)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return None, 'exit %d: %s' % (p.returncode, (p.stderr + p.stdout).strip()[-2000:])
    per = []
    for node in (0, 1):
        path = '%s/cg.%d' % (outdir, node)
        try:
            text = open(path).read()
        except OSError:
            return None, '%s was not written' % path
        m = re.search(r'^totals:\s+(\d+)', text, re.M) or re.search(r'^summary:\s+(\d+)', text, re.M)
        if not m:
            return None, '%s has no totals' % path
        per.append(int(m.group(1)) / iters)
    return per, None


def fmt(per):
    return '%9.1f %9.1f' % (per[0], per[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--base', required=True)
    ap.add_argument('--ref', required=True)
    ap.add_argument('--obj-base', action='append', default=[])
    ap.add_argument('--obj-ref', action='append', default=[])
    ap.add_argument('--proto', action='append', default=[], help='P=BUILD_DIR')
    ap.add_argument('--skipped', action='append', default=[], help='P=why it cannot run alone')
    a = ap.parse_args()
    res = Result()

    missing = []
    if not os.path.exists('framework/hot.c'):
        missing.append('framework/hot.c (the hot send/receive functions)')
    if not a.obj_base or len(a.obj_base) != len(a.obj_ref):
        missing.append('the objects of framework/hot.c in both builds')
    missing += [o for o in a.obj_base + a.obj_ref if not os.path.exists(o)]
    for tool in ('objdump', 'valgrind', 'nm'):
        if not shutil.which(tool):
            missing.append('the %s program' % tool)
    if missing:
        print('zerocost: cannot run, missing: ' + '; '.join(missing))
        print('0 passed, 1 failed')
        return 1

    compare_code(res, list(zip(a.obj_base, a.obj_ref)))

    print('\n== 2. instructions per message in %s (callgrind --toggle-collect), node 0 / node 1'
          % ' + '.join(HOT))
    tmp = tempfile.mkdtemp(prefix='lc-zerocost.')
    base_ir = {}
    print('%-22s %8s %6s %19s' % ('build', 'bytes', 'trips', 'Ir/msg n0 / n1'))
    for size, iters in LOOPS:
        got = {}
        for label, bdir in (('baseline', a.base), ('reference', a.ref)):
            per, err = callgrind(bdir, size, iters, tmp)
            if not res.check(per is not None, '%s, %d bytes: %s' % (label, size, err)):
                continue
            got[label] = per
            print('%-22s %8d %6d %s' % (label, size, iters, fmt(per)))
        if len(got) == 2:
            res.check(got['baseline'] == got['reference'],
                      '%d bytes: baseline %s != reference %s Ir per message'
                      % (size, fmt(got['baseline']), fmt(got['reference'])))
            print('%-22s %8d %6s %s' % ('  -> identical' if got['baseline'] == got['reference']
                                       else '  -> DIFFERENT', size, '', ''))
            base_ir[size] = got['baseline']

    if a.proto or a.skipped:
        print('\n== 3. what each protocol alone adds (baseline + P), Ir per message, node 0 / node 1')
        print('%-22s %8s %19s %19s' % ('protocol', 'bytes', 'Ir/msg', 'added'))
    for spec in a.proto:
        p, bdir = spec.split('=', 1)
        for size, iters in LOOPS:
            per, err = callgrind(bdir, size, iters, tmp)
            if not res.check(per is not None, '%s, %d bytes: %s' % (p, size, err)):
                continue
            b = base_ir.get(size)
            added = fmt([per[0] - b[0], per[1] - b[1]]) if b else '        ?         ?'
            print('%-22s %8d %s %s' % (p, size, fmt(per), added))
    for spec in a.skipped:
        p, why = spec.split('=', 1)
        print('%-22s not measured alone: %s' % (p, why))
    shutil.rmtree(tmp, ignore_errors=True)
    print('\nzerocost: %s' % ('base and reference are identical' if res.failed == 0
                              else 'FAILED'))
    print('%d passed, %d failed' % (res.passed, res.failed))
    return 0 if res.failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
