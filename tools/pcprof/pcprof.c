/* SPDX-License-Identifier: MIT */
/*
 * The sampler tools/pcprof/pcprof.py preloads (LD_PRELOAD) into every process of
 * a command: where a process's time goes, stalls included -- what callgrind's
 * instruction counts cannot say and perf's counters, unavailable on this
 * machine kind, would.  Every PCPROF_US microseconds of wall time (a
 * CLOCK_MONOTONIC timer, so a process waiting in a spin is sampled as often as
 * one computing) a signal records the interrupted instruction's address, weighed
 * by the ticks it stands for; at exit the process writes its memory map and its
 * samples (address, weight) to
 * PCPROF_DIR/s.<pid>.  A process that leaves by _exit or a signal writes
 * nothing; a child forked without exec samples on its own (a timer is not
 * inherited).  The handler costs a few microseconds: 500 us between samples kept
 * the 8 B message rate within its noise, 20 us cut it fifty-fold.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <ucontext.h>
#include <unistd.h>

#define PCPROF_MAX (1u << 22)   /* samples kept: 35 minutes at 500 us */

static unsigned long *pcprof_pc;
static unsigned *pcprof_w;
static volatile unsigned pcprof_n;
static timer_t pcprof_timer;
static int pcprof_on;

static void pcprof_sample(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	/*
	 * ticks that passed while the process did not run (overruns) are weighed on the address it
	 * resumes at, where it was descheduled: wall time, also on a CPU shared with others
	 */
	int over = timer_getoverrun(pcprof_timer);

	if (pcprof_n < PCPROF_MAX) {
		pcprof_w[pcprof_n] = 1u + (over > 0 ? (unsigned)over : 0u);
		pcprof_pc[pcprof_n++] = (unsigned long)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	}
}

static long pcprof_ns;

/* This process's timer (again in a forked child, whose samples start from none). */
static void pcprof_arm(void)
{
	struct sigevent sev;
	struct itimerspec its;

	pcprof_n = 0;
	pcprof_on = 0;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGRTMIN + 3;
	if (timer_create(CLOCK_MONOTONIC, &sev, &pcprof_timer) != 0)
		return;
	its.it_interval.tv_sec = its.it_value.tv_sec = 0;
	its.it_interval.tv_nsec = its.it_value.tv_nsec = pcprof_ns;
	pcprof_on = timer_settime(pcprof_timer, 0, &its, NULL) == 0;
}

__attribute__((constructor)) static void pcprof_start(void)
{
	const char *us = getenv("PCPROF_US");
	struct sigaction sa;

	if (!us || !getenv("PCPROF_DIR") || (pcprof_ns = atol(us) * 1000L) <= 0 ||
	    pcprof_ns >= 1000000000L)
		return;
	if (!(pcprof_pc = malloc(sizeof(*pcprof_pc) * PCPROF_MAX)) ||
	    !(pcprof_w = malloc(sizeof(*pcprof_w) * PCPROF_MAX)))
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = pcprof_sample;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGRTMIN + 3, &sa, NULL);
	pthread_atfork(NULL, NULL, pcprof_arm);
	pcprof_arm();
}

__attribute__((destructor)) static void pcprof_stop(void)
{
	char path[4096], line[4096];
	FILE *f, *m;

	if (!pcprof_on)
		return;
	timer_delete(pcprof_timer);
	snprintf(path, sizeof path, "%s/s.%d", getenv("PCPROF_DIR"), (int)getpid());
	if (!(f = fopen(path, "w")))
		return;
	if ((m = fopen("/proc/self/maps", "r"))) {
		while (fgets(line, sizeof line, m))
			fprintf(f, "# %s", line);
		fclose(m);
	}
	for (unsigned i = 0; i < pcprof_n; i++)
		fprintf(f, "%lx %u\n", pcprof_pc[i], pcprof_w[i]);
	fclose(f);
}
