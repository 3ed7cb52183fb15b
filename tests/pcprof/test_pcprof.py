#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The PC sampler's checks (tools/pcprof): prints "N passed, M failed" (tools/run_tests.py).

usage: tests/pcprof/test_pcprof.py

A program spins 300 ms in one function and 100 ms in another, in a parent and in a child it
forks without exec (the child's timer is its own); tools/pcprof/pcprof.py must name both
functions in both processes' reports, the longer one with about three times the samples, and
refuse a bad period.
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
PCPROF = os.path.join(ROOT, 'tools', 'pcprof', 'pcprof.py')
sys.path.insert(0, os.path.join(HERE, '..'))
from pychecks import check, finish  # noqa: E402

PROG = r'''
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
/* computes for s seconds, the clock read once in 2^20 rounds (a sample lands in the loop) */
#define SPIN(s) \
	do { \
		double end = now() + (s); \
		for (volatile unsigned long i = 1; (i & 0xfffff) || now() < end; i++) \
			; \
	} while (0)
__attribute__((noinline)) static void spin_long(void)
{
	SPIN(0.3);
}
__attribute__((noinline)) static void spin_short(void)
{
	SPIN(0.1);
}
int main(void)
{
	pid_t c = fork();
	spin_long();
	spin_short();
	if (c > 0)
		waitpid(c, NULL, 0);
	return 0;
}
'''


def main():
    with tempfile.TemporaryDirectory(prefix='lc_t_pcprof.') as d:
        src, exe = os.path.join(d, 'spin.c'), os.path.join(d, 'spin')
        with open(src, 'w') as f:
            f.write(PROG)
        subprocess.run(['gcc', '-O1', '-g', '-o', exe, src], check=True)
        p = subprocess.run([sys.executable, PCPROF, '--us', '1000', '--', exe],
                           capture_output=True, text=True, timeout=120)
        check(p.returncode == 0, 'pcprof exit %d: %s' % (p.returncode, p.stderr[-500:]))
        procs = re.split(r'^pcprof: pid ', p.stdout, flags=re.M)[1:]
        check(len(procs) == 2, 'two processes reported (the forked child on its own timer):\n%s'
              % p.stdout)
        for rep in procs:
            share = {m.group(2): float(m.group(1))
                     for m in re.finditer(r'^\s+([\d.]+)% (\S+)$', rep, re.M)}
            lo, sh = share.get('spin_long', 0.0), share.get('spin_short', 0.0)
            check(lo + sh > 70, 'the two spins hold most samples (%.1f %% + %.1f %%):\n%s'
                  % (lo, sh, rep))
            check(sh > 0 and 1.5 < lo / sh < 6, 'spin_long about 3 x spin_short (%.1f %% / %.1f %%):'
                  '\n%s' % (lo, sh, rep))
        bad = subprocess.run([sys.executable, PCPROF, '--us', '0', '--', 'true'],
                             capture_output=True, text=True, timeout=60)
        check(bad.returncode != 0 and '--us 0' in bad.stderr,
              'a period of 0 is refused: exit %d, %s' % (bad.returncode, bad.stderr.strip()))
    return finish()


if __name__ == '__main__':
    sys.exit(main())
