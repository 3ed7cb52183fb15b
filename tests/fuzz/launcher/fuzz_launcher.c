/* SPDX-License-Identifier: MIT */
/* Fuzz target: commrun's parsers -- options, fault specs, multi-program command lines, job specification files. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "comm.h"
#include "faults.h"
#include "nic.h"
#include "../../../launcher/launcher.h"

/*
 * Fed: byte 0 selects the parser (mod 4); the bytes after it up to the first
 * two NULs in a row are words (split on NUL), what follows those two NULs is
 * a text.  Each input runs in the directory /tmp/lc_fz_launcher.XXXXXX made
 * once per process, which holds job.spec (the text, rewritten per input) and
 * prog (an empty executable, so that a spec line "N ./prog" resolves):
 *   0  lc_run_parse_options("commrun" WORDS...): the whole command line,
 *      programs (lc_run_apps_from_argv) and --spec FILE (lc_run_spec_load)
 *      included; every '/' of a word becomes '_', so a --spec file is one
 *      of the input's directory (job.spec, prog, ., ..) and never
 *      /dev/zero or a FIFO;
 *   1  lc_run_apps_from_argv(WORDS) after -n N, N = 1 + byte 1 mod LC_MAX_NODES;
 *   2  lc_run_spec_load("job.spec"): the text as a specification file;
 *   3  lc_faults_parse(the text up to its first NUL), as --faults or $LC_FAULTS.
 * The environment is fixed (clearenv, then HOME, PATH, LC_FZ_SET), so $VAR in
 * a spec line expands the same everywhere.
 *
 * Oracle: the parser returns LC_RUN_GO with a complete job -- 1 ..
 * LC_MAX_NODES nodes, each a non-empty NULL-terminated argv, spec nodes a
 * permutation of 0 .. N-1 --, or 0 after --help with the help on stdout, or
 * the usage exit status with a "commrun: " message on stderr (a spec file's
 * naming "job.spec"), or LC_RUN_EXIT_FAIL saying out of memory; a fault spec
 * parses into probabilities <= 2^32 and a delay <= 10 s, or is refused with a
 * message.  stdout and stderr go to a memfd for the check (silent while
 * fuzzing).  Everything is freed (lc_run_apps_free: LeakSanitizer checks),
 * nothing hangs, and no process is started (no child to reap).
 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);
/* The sanitizers' (built with -fsanitize): where their reports go. */
void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

#define LC_FZ_MAX_WORDS 1024

static struct {
	char dir[64];           /* the input's directory, made once */
	pid_t owner;            /* the process that made it removes it */
	int out;                /* memfd: the parsers' stdout and stderr */
	int saved[3];           /* our own fds 1 and 2 */
	const uint8_t *input;
	size_t input_len;
} fz = { .out = -1 };

static void lc_fz_restore(void)
{
	fflush(stdout);
	fflush(stderr);
	dup2(fz.saved[1], 1);
	dup2(fz.saved[2], 2);
}

static int lc_fz_rm(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* A finding: say what, with the input as words and text, and abort. */
static void lc_fz_finding(const char *what, const char *out)
{
	lc_fz_restore();
	fprintf(stderr, "fuzz_launcher: FINDING: %s\n--- input (%zu bytes, NUL shown as |) ---\n",
		what, fz.input_len);
	for (size_t i = 0; i < fz.input_len && i < 4096; i++)
		fputc(fz.input[i] ? fz.input[i] : '|', stderr);
	fprintf(stderr, "\n--- the parser's output ---\n%s\n---\n", out ? out : "");
	if (fz.owner == getpid())
		nftw(fz.dir, lc_fz_rm, 8, FTW_DEPTH | FTW_PHYS);
	abort();
}

static void lc_fz_cleanup(void)
{
	if (getpid() == fz.owner && fz.dir[0])
		nftw(fz.dir, lc_fz_rm, 8, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[128];
	int fd;

	(void)argc;
	(void)argv;
	clearenv();
	setenv("HOME", "/nonexistent-home", 1);
	setenv("PATH", "/usr/bin:/bin", 1);
	setenv("LC_FZ_SET", "value with spaces", 1);
	snprintf(fz.dir, sizeof fz.dir, "/tmp/lc_fz_launcher.XXXXXX");
	if (!mkdtemp(fz.dir)) {
		perror("fuzz_launcher: mkdtemp");
		exit(1);
	}
	fz.owner = getpid();
	atexit(lc_fz_cleanup);
	snprintf(path, sizeof path, "%s/prog", fz.dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	fz.out = memfd_create("lc_fz_launcher_out", MFD_CLOEXEC);
	fz.saved[1] = dup(1);
	fz.saved[2] = dup(2);
	if (fd < 0 || fz.out < 0 || fz.saved[1] < 0 || fz.saved[2] < 0) {
		perror("fuzz_launcher: setting up");
		exit(1);
	}
	close(fd);
	/* a crash inside a parser reports on our stderr, not in the memfd that has fd 2 then */
	if (__sanitizer_set_report_fd)
		__sanitizer_set_report_fd((void *)(intptr_t)fz.saved[2]);
	return 0;
}

/* Run with the parser's stdout and stderr in fz.out; returns what they wrote (malloc'ed). */
static char *lc_fz_output(void)
{
	off_t n = lseek(fz.out, 0, SEEK_END);
	char *text = malloc((size_t)n + 1);

	if (!text || pread(fz.out, text, (size_t)n, 0) != n)
		lc_fz_finding("cannot read back the parser's output", NULL);
	text[n] = '\0';
	return text;
}

/* Is a parsed job complete: nodes 1..LC_MAX_NODES, each a non-empty argv? */
static int lc_fz_job_ok(const struct lc_run_opts *o)
{
	if (o->nodes < 1 || o->nodes > LC_MAX_NODES || !o->node_argv || o->apps < 1 ||
	    o->apps > o->nodes)
		return 0;
	for (uint32_t i = 0; i < o->nodes; i++) {
		char **w = o->node_argv[i];
		if (!w || !w[0] || !w[0][0])
			return 0;
		while (*w)      /* NULL-terminated (ASan: within its vector) */
			w++;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *words[LC_FZ_MAX_WORDS + 2], *buf, *text, *out;
	struct lc_run_opts o;
	int nw = 0, rc = 0, back, st;
	size_t wlen = 0;

	if (size < 1)
		return 0;
	fz.input = data;
	fz.input_len = size;
	int mode = data[0] % 4;
	/* words: data[1 .. the first "\0\0"), text: after it */
	buf = malloc(size + 2);
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = buf[size] = '\0';
	while (wlen + 1 < size - 1 && !(buf[wlen] == '\0' && buf[wlen + 1] == '\0'))
		wlen++;
	text = wlen + 2 <= size - 1 ? buf + wlen + 2 : buf + size - 1;
	buf[wlen] = '\0';
	words[nw++] = "commrun";
	for (char *p = buf; p < buf + wlen && nw < LC_FZ_MAX_WORDS; p += strlen(p) + 1) {
		if (mode == 0)
			for (char *c = p; *c; c++)
				if (*c == '/')
					*c = '_';
		words[nw++] = p;
	}
	words[nw] = NULL;

	back = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (back < 0 || chdir(fz.dir) != 0)
		lc_fz_finding("cannot enter the input's directory", NULL);
	FILE *f = fopen("job.spec", "wb");
	size_t tlen = (size_t)(buf + size - 1 - text);
	if (!f || fwrite(text, 1, tlen, f) != tlen || fclose(f) != 0)
		lc_fz_finding("cannot write job.spec", NULL);

	if (ftruncate(fz.out, 0) != 0 || lseek(fz.out, 0, SEEK_SET) != 0 || dup2(fz.out, 1) < 0 ||
	    dup2(fz.out, 2) < 0)
		lc_fz_finding("cannot redirect the output", NULL);
	memset(&o, 0, sizeof o);
	switch (mode) {
	case 0:
		optind = 0;     /* getopt_long starts afresh */
		rc = lc_run_parse_options(nw, words, &o);
		break;
	case 1:
		o.nodes = 1 + (size > 1 ? data[1] : 0) % LC_MAX_NODES;
		rc = lc_run_apps_from_argv(&o, words + 1);
		break;
	case 2:
		o.spec = "job.spec";
		rc = lc_run_spec_load(&o, "job.spec");
		break;
	case 3: {
		struct lc_fault_cfg cfg;
		char err[256] = "";
		rc = lc_faults_parse(text, &cfg, err, sizeof err);
		lc_fz_restore();
		out = lc_fz_output();
		if (rc == 0) {
			for (int i = 0; i < LC_FAULT_COUNT; i++)
				if (cfg.p32[i] > ((uint64_t)1 << 32))
					lc_fz_finding("a probability above 1", out);
			if (cfg.delay_us > 10000000u || cfg.on != (cfg.delay_us || cfg.p32[0] ||
				cfg.p32[1] || cfg.p32[2] || cfg.p32[3] || cfg.p32[4]))
				lc_fz_finding("a delay above 10 s, or on not what the spec sets", out);
		} else if (rc != LC_ERR_INVAL || !err[0]) {
			lc_fz_finding("a refused fault spec without LC_ERR_INVAL and a message", out);
		}
		if (out[0])
			lc_fz_finding("lc_faults_parse wrote something", out);
		goto done;
	}
	}
	lc_fz_restore();
	out = lc_fz_output();
	if (rc == LC_RUN_GO) {
		if (!lc_fz_job_ok(&o))
			lc_fz_finding("LC_RUN_GO with an incomplete job", out);
		if (o.spec && o.nodes != o.apps)
			lc_fz_finding("a spec file's job: nodes and lines differ", out);
		if (out[0])
			lc_fz_finding("LC_RUN_GO with a message", out);
	} else if (rc == 0) {
		if (mode != 0 || !strstr(out, "usage: commrun"))
			lc_fz_finding("exit 0 without --help's text", out);
	} else if (rc == LC_RUN_EXIT_USAGE) {
		if (strncmp(out, "commrun: ", 9) != 0)
			lc_fz_finding("a usage error without its commrun: message first", out);
		if (mode == 2 && strncmp(out, "commrun: job.spec", 17) != 0)
			lc_fz_finding("a spec file's error that does not name it", out);
	} else if (rc != LC_RUN_EXIT_FAIL || !strstr(out, "out of memory")) {
		lc_fz_finding("an exit status other than 0, 2, or 1 out of memory", out);
	}
	lc_run_apps_free(&o);
done:
	free(out);
	free(buf);
	if (waitpid(-1, &st, WNOHANG) != -1 || errno != ECHILD)
		lc_fz_finding("a parser started a process", NULL);
	if (fchdir(back) != 0)
		lc_fz_finding("cannot return to the working directory", NULL);
	close(back);
	return 0;
}
