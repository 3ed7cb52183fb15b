#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The PC sampler's checks (tools/pcprof): prints "N passed, M failed" (tools/run_tests.py).

usage: tests/pcprof/test_pcprof.py

A program spins 300 ms in one function and 100 ms in another (each at least that: the clock is
read between rounds), in a parent and in a child it forks without exec (the child's timer is its
own), both on one CPU beside a third process that never yields, and prints how long each spin
took.  tools/pcprof/pcprof.py must charge each function of each process its wall time in ticks
(1 ms each) within a quarter -- although each process ran about a third of it: the ticks it
waited for the CPU weigh on where it was descheduled -- and refuse a bad period.
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
#include <stdio.h>
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
/* computes for s seconds, the clock read once in 2^16 rounds (a sample lands in the loop) */
#define SPIN(s) \
	do { \
		double end = now() + (s); \
		for (volatile unsigned long i = 1; (i & 0xffff) || now() < end; i++) \
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
	double t0 = now();
	spin_long();
	double t1 = now();
	spin_short();
	printf("wall %d %.1f %.1f\n", (int)getpid(), (t1 - t0) * 1e3, (now() - t1) * 1e3);
	fflush(stdout);
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
        walls = {m.group(1): (float(m.group(2)), float(m.group(3)))
                 for m in re.finditer(r'^wall (\d+) ([\d.]+) ([\d.]+)$', p.stdout, re.M)}
        procs = {m.group(1): m.group(2) for m in re.finditer(
            r'^pcprof: pid (\d+) \(spin\): (\d+ ticks\n(?:  .*\n?)*)', p.stdout, re.M)}
        check(len(walls) == 2 and sorted(procs) == sorted(walls),
              'both processes reported (the forked child on its own timer):\n%s' % p.stdout)
        for pid, rep in procs.items():
            total = int(rep.split()[0])
            share = {m.group(2): float(m.group(1))
                     for m in re.finditer(r'^\s+([\d.]+)% (\S+)$', rep, re.M)}
            for fn, ms in zip(('spin_long', 'spin_short'), walls.get(pid, (0.0, 0.0))):
                got = share.get(fn, 0.0) * total / 100.0
                check(abs(got - ms) <= 0.25 * ms + 5,
                      '%s of pid %s charged %.0f ticks of 1 ms, its wall time %.1f ms:\n%s'
                      % (fn, pid, got, ms, rep))
        bad = subprocess.run([sys.executable, PCPROF, '--us', '0', '--', 'true'],
                             capture_output=True, text=True, timeout=60)
        check(bad.returncode != 0 and '--us 0' in bad.stderr,
              'a period of 0 is refused: exit %d, %s' % (bad.returncode, bad.stderr.strip()))
    return finish()


if __name__ == '__main__':
    sys.exit(main())
