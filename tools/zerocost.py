#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The zero-cost proof: baseline vs pointcuts-compiled-out, machine code and callgrind counts.
"""Run by `scons zerocost` (and `scons test`) after SCons built the variants:

  build/zerocost/base  config baseline, release flags
  build/zerocost/ref   the same with -DLC_ZEROCOST_REFERENCE=1 (every LC_PC() /
                       LC_PC_NIC() replaced by the pointcut's neutral value)
  build/zc-<P>         baseline + protocol P alone (gen --with-protocol P)

  build/zerocost/neg   the negative control, -DLC_ZEROCOST_NEGATIVE=1 (every
                       pointcut behind an out-of-line call: framework/lc_pc.h)

1. Machine code: every function of every object of the per-message path that
   calls a pointcut (framework/ and nic/: hot, pipeline, comm, nic), `objdump
   -dr --no-show-raw-insn`, address column stripped, must be identical between
   base and ref; each function of PATH must be there and non-empty.  The
   negative control must differ in every function of PATH that calls a
   pointcut (PC_CALLERS): a proof that calls it identical proves nothing.
2. Instructions: tools/zc_loop (2-node ping-pong) under callgrind with
   --toggle-collect=lc_tx_frame --toggle-collect=lc_rx_frame; the collected Ir
   per message must be identical between base and ref.  "Per message" = the
   instructions a node spends in lc_tx_frame + lc_rx_frame (inclusive) divided
   by the round trips: each node sends one message and receives one per trip.
   Every count must be > 0, and the negative control's must differ.
3. For every implemented protocol, the same loop on build/zc-<P>: Ir per
   message and what P adds to the baseline, never below it (a protocol whose
   hooks leave unicast frames alone, e.g. multicast in host mode, adds 0).
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
# the functions a message crosses, host and MCP: each must be in the compared objects
# (lc_rx_begin and lc_rx_complete are inline in lc_rx_frame; their other cases are
# lc_rx_unexpected and lc_rx_complete_rest)
PATH = ('lc_isend', 'lc_irecv', 'lc_wait', 'lc_test', 'lc_progress_locked', 'lc_tx_push',
        'lc_tx_frame', 'lc_rx_frame', 'lc_rx_unexpected', 'lc_rx_complete_rest', 'lc_proto_send_ctrl',
        'lc_nic_net_send_step', 'lc_nic_net_recv_step')
# those that call a pointcut: the negative control must change each of them
# (lc_progress_locked calls poll only when a protocol is active: not in the baseline)
PC_CALLERS = ('lc_tx_push', 'lc_tx_frame', 'lc_rx_frame', 'lc_proto_send_ctrl',
              'lc_nic_net_send_step', 'lc_nic_net_recv_step')
# (message bytes, round trips): PIO and multi-frame DMA.  The counts are exact (base and reference
# compared within one run), so the 64 KiB loop needs no more trips than a steady state: 25 (the
# copies under callgrind were most of the proof's time with 100)
LOOPS = ((8, 2000), (65536, 25))


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


def insns(lines):
    return sum(1 for l in lines if not re.match(r'R_[A-Z0-9_]+', l))


def compare_code(res, pairs):
    """Base vs reference, function by function; returns {function: base lines} of all objects."""
    print('== 1. machine code: base vs reference (objdump -dr, addresses stripped)')
    print('%-24s %-36s %6s  %s' % ('object', 'function', 'insns', 'verdict'))
    seen = {}
    for base, ref in pairs:
        fb, fr = functions(base), functions(ref)
        obj = os.path.basename(base)
        for name in sorted(set(fb) | set(fr)):
            a, b = fb.get(name), fr.get(name)
            if a is None or b is None:
                res.check(False, '%s: %s exists only in the %s build'
                          % (obj, name, 'reference' if a is None else 'base'))
                continue
            seen[name] = a
            same = a == b
            if name in PATH or not same:
                print('%-24s %-36s %6d  %s' % (obj, name, insns(a), 'identical' if same else 'DIFFERENT'))
            if not res.check(same, '%s: %s differs' % (obj, name)):
                sys.stdout.writelines(difflib.unified_diff(
                    [l + '\n' for l in b], [l + '\n' for l in a],
                    'reference/' + name, 'base/' + name))
    print('(%d functions compared, %d identical; the per-message path is listed)'
          % (len(seen), len(seen) - res.failed))
    for name in PATH:
        res.check(insns(seen.get(name, [])) > 0,
                  'per-message function %s is missing or empty: the proof would compare nothing' % name)
    return seen


def negative_control(res, base_funcs, neg_objs):
    """Every pointcut caller must differ in the negative control (out-of-line stubs)."""
    print('\n== 1b. negative control: base vs every pointcut behind an out-of-line call')
    neg = {}
    for o in neg_objs:
        neg.update(functions(o))
    for name in PC_CALLERS:
        a, n = base_funcs.get(name), neg.get(name)
        differs = a is not None and n is not None and a != n
        print('%-36s %s' % (name, 'different, as it must be' if differs else 'IDENTICAL'))
        res.check(differs, 'negative control: %s looks identical with out-of-line pointcut '
                  'stubs: the comparison cannot see a stub that costs' % name)


def announces(bdir):
    """1 when the build's composed protocols provide the capability announce (lc_coop.h)."""
    try:
        text = open(os.path.join(bdir, 'include', 'lc_coop.h')).read()
    except OSError:
        return False
    return re.search(r'^#define LC_PC_ANNOUNCE 1\b', text, re.M) is not None


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
    ap.add_argument('--neg', required=True, help='the negative control build')
    ap.add_argument('--obj-base', action='append', default=[])
    ap.add_argument('--obj-ref', action='append', default=[])
    ap.add_argument('--obj-neg', action='append', default=[])
    ap.add_argument('--proto', action='append', default=[], help='P=BUILD_DIR')
    ap.add_argument('--skipped', action='append', default=[], help='P=why it cannot run alone')
    a = ap.parse_args()
    res = Result()

    missing = []
    if not os.path.exists('framework/hot.c'):
        missing.append('framework/hot.c (the hot send/receive functions)')
    if not a.obj_base or len(a.obj_base) != len(a.obj_ref) or len(a.obj_base) != len(a.obj_neg):
        missing.append('the objects of the per-message path in the three builds')
    missing += [o for o in a.obj_base + a.obj_ref + a.obj_neg if not os.path.exists(o)]
    for tool in ('objdump', 'valgrind', 'nm'):
        if not shutil.which(tool):
            missing.append('the %s program' % tool)
    if missing:
        print('zerocost: cannot run, missing: ' + '; '.join(missing))
        print('0 passed, 1 failed')
        return 1

    base_funcs = compare_code(res, list(zip(a.obj_base, a.obj_ref)))
    negative_control(res, base_funcs, a.obj_neg)

    print('\n== 2. instructions per message in %s (callgrind --toggle-collect), node 0 / node 1'
          % ' + '.join(HOT))
    tmp = tempfile.mkdtemp(prefix='lc-zerocost.')
    base_ir = {}
    print('%-22s %8s %6s %19s' % ('build', 'bytes', 'trips', 'Ir/msg n0 / n1'))
    for size, iters in LOOPS:
        got = {}
        for label, bdir in (('baseline', a.base), ('reference', a.ref), ('negative control', a.neg)):
            per, err = callgrind(bdir, size, iters, tmp)
            if not res.check(per is not None, '%s, %d bytes: %s' % (label, size, err)):
                continue
            res.check(min(per) > 0, '%s, %d bytes: %s Ir per message: nothing was counted'
                      % (label, size, fmt(per)))
            got[label] = per
            print('%-22s %8d %6d %s' % (label, size, iters, fmt(per)))
        if 'baseline' in got and 'negative control' in got:
            res.check(got['negative control'] != got['baseline'],
                      '%d bytes: the negative control counts the same as the baseline' % size)
        if 'baseline' in got and 'reference' in got:
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
            if b and announces(bdir) and (per[0] < b[0] or per[1] < b[1]):
                # a protocol with the capability announce moves a large message's data as RDMA
                # frames outside lc_tx_frame's copy and lc_rx_frame's copy-out: fewer here is
                # its point, not a skipped pipeline (its own suite checks the copies per byte)
                print('%-22s %8s (moves the message by announce and RDMA, outside the measured '
                      'copies)' % ('', ''))
            elif b:
                res.check(per[0] >= b[0] and per[1] >= b[1],
                          '%s, %d bytes: fewer instructions than the baseline: the build skips part '
                          'of the pipeline' % (p, size))
                if per == b:
                    print('%-22s %8s (adds nothing: its hooks leave a unicast frame alone in this '
                          'build)' % ('', ''))
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
