/* SPDX-License-Identifier: MIT */
/* Replay a fuzz harness's inputs (corpus and regressions) without libFuzzer: the harness as a test. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * usage: fuzz_<name> [-t SECONDS] FILE|DIR...
 * Each input runs in a child of its own (as libFuzzer would run it alone) with an
 * alarm of SECONDS (default 20): a crash, a sanitizer report (the build's), a
 * non-zero exit or a hang fails that input and names it.  The last line is
 * "N passed, M failed" (tools/run_tests.py).  A directory given that does not
 * exist counts as empty.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static unsigned passed, failed, alarm_s = 20;

static int read_file(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 4096, n = 0;
	uint8_t *b = malloc(cap);

	if (!f || !b) {
		if (f)
			fclose(f);
		free(b);
		return -1;
	}
	for (size_t r; (r = fread(b + n, 1, cap - n, f)) > 0;) {
		n += r;
		if (n == cap) {
			uint8_t *nb = realloc(b, cap *= 2);

			if (!nb) {
				free(b);
				fclose(f);
				return -1;
			}
			b = nb;
		}
	}
	fclose(f);
	*data = b;
	*size = n;
	return 0;
}

static void one(const char *path)
{
	pid_t pid = fork();
	int st = 0;

	if (pid < 0) {
		printf("FAIL %s: fork: %s\n", path, strerror(errno));
		failed++;
		return;
	}
	if (pid == 0) {
		uint8_t *data;
		size_t size;

		if (read_file(path, &data, &size) != 0) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			_exit(2);
		}
		alarm(alarm_s);
		LLVMFuzzerTestOneInput(data, size);
		free(data);
		exit(0);        /* exit, not _exit: the leak check runs at exit */
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		passed++;
		return;
	}
	failed++;
	if (WIFSIGNALED(st))
		printf("FAIL %s: %s\n", path, WTERMSIG(st) == SIGALRM ? "hung (alarm)" : strsignal(WTERMSIG(st)));
	else
		printf("FAIL %s: exit %d\n", path, WEXITSTATUS(st));
	fflush(stdout);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk(const char *path)
{
	struct stat sb;
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (stat(path, &sb) != 0)
		return;
	if (!S_ISDIR(sb.st_mode)) {
		one(path);
		return;
	}
	if (!(d = opendir(path)))
		return;
	while ((e = readdir(d))) {
		char *full;

		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);

			if (!nn)
				break;
			names = nn;
		}
		full = malloc(strlen(path) + strlen(e->d_name) + 2);
		if (!full)
			break;
		sprintf(full, "%s/%s", path, e->d_name);
		names[n++] = full;
	}
	closedir(d);
	if (n)          /* an empty directory: names is NULL, which qsort may not take */
		qsort(names, n, sizeof *names, by_name);  /* the same order every run */
	for (size_t i = 0; i < n; i++) {
		one(names[i]);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "t:")) != -1) {
		if (c != 't' || atoi(optarg) <= 0) {
			fprintf(stderr, "usage: %s [-t SECONDS] FILE|DIR...\n", argv[0]);
			return 2;
		}
		alarm_s = (unsigned)atoi(optarg);
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = optind; i < argc; i++)
		walk(argv[i]);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
