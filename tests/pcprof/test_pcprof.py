#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The PC sampler's checks (tools/pcprof): prints "N passed, M failed" (tools/run_tests.py).

usage: tests/pcprof/test_pcprof.py

A program spins 300 ms in one function and 100 ms in another, in a parent and in a child it
forks without exec (the child's timer is its own), both on one CPU beside a third process that
never yields; tools/pcprof/pcprof.py must name both functions in both processes' reports, the
longer one with about three times the ticks, and count the child's 400 ms of wall time although
it ran about a third of it (the ticks it waited for the CPU weigh on where it was descheduled),
and refuse a bad period.
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
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
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
	cpu_set_t one;
	pid_t hog, c;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	sched_setaffinity(0, sizeof one, &one);     /* the children inherit the CPU */
	if ((hog = fork()) == 0)
		for (;;)
			;                               /* killed: writes no samples */
	c = fork();
	spin_long();
	spin_short();
	if (c > 0) {
		waitpid(c, NULL, 0);
		kill(hog, SIGKILL);
		waitpid(hog, NULL, 0);
	}
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
        ticks = sorted(int(m.group(1)) for m in re.finditer(r'^pcprof: pid \d+ \(spin\): (\d+) ticks$',
                                                             p.stdout, re.M))
        # 400 ms at 1 ms: the child's (the fewer: the parent also waits for it) about 400
        check(len(ticks) == 2 and 320 <= ticks[0] <= 600,
              'the child is charged its wall time, about 400 ticks: %s' % ticks)
        for rep in procs:
            share = {m.group(2): float(m.group(1))
                     for m in re.finditer(r'^\s+([\d.]+)% (\S+)$', rep, re.M)}
            lo, sh = share.get('spin_long', 0.0), share.get('spin_short', 0.0)
            # the parent also waits for its child (wait4): more so on a loaded machine
            check(lo + sh > 50, 'the two spins hold most ticks (%.1f %% + %.1f %%):\n%s'
                  % (lo, sh, rep))
            check(sh > 0 and 2 < lo / sh < 4.5, 'spin_long about 3 x spin_short (%.1f %% / %.1f %%):'
                  '\n%s' % (lo, sh, rep))
        bad = subprocess.run([sys.executable, PCPROF, '--us', '0', '--', 'true'],
                             capture_output=True, text=True, timeout=60)
        check(bad.returncode != 0 and '--us 0' in bad.stderr,
              'a period of 0 is refused: exit %d, %s' % (bad.returncode, bad.stderr.strip()))
    return finish()


if __name__ == '__main__':
    sys.exit(main())
