/* SPDX-License-Identifier: MIT */
/* commrun: what each node runs -- one program, several separated by ':', or a specification file. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wordexp.h>

#include "nic.h"
#include "launcher.h"

/*
 * The command line's programs (after the options):
 *     PROG ARGS... [: -n N PROG ARGS...]...
 * the first runs on the -n of the options, each later one on its own -n N
 * (also -nN, --nodes N, --nodes=N); nodes are numbered in that order.  A
 * word ':' alone always separates programs, as in mpirun.
 *
 * A specification file (--spec FILE), one process per line:
 *     NODE PROGRAM [ARGS...]
 * NODE is 0 .. N-1 for a file of N processes, each once, in any order;
 * words are split as the shell splits them (wordexp(3): quotes, $VAR,
 * ${VAR}; no command substitution, no arithmetic expansion, an unset
 * variable is an error); '#'
 * starts a comment where a word could start; blank lines are skipped.  A
 * relative PROGRAM with a '/' is found from the file's directory, so a
 * file beside its programs runs from anywhere; a bare name is searched in
 * PATH when the node starts.  Every error names the file and line, and
 * nothing starts.
 */

/* Parse a node count of the command line ("4"); -1 when bad. */
static int lc_run_count(const char *s, uint32_t *n)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > LC_MAX_NODES)
		return -1;
	*n = (uint32_t)v;
	return 0;
}

/* Room for the per-node argv table of o->nodes nodes.  0 or -1 with a message. */
static int lc_run_node_table(struct lc_run_opts *o)
{
	o->node_argv = calloc(o->nodes, sizeof *o->node_argv);
	if (!o->node_argv) {
		lc_run_msg("out of memory");
		return -1;
	}
	return 0;
}

int lc_run_apps_from_argv(struct lc_run_opts *o, char **tail)
{
	uint32_t counts[LC_MAX_NODES], apps = 0, total = 0;
	char **start[LC_MAX_NODES];
	char **w = tail;

	counts[0] = o->nodes;
	for (;;) {
		uint32_t n = counts[apps];
		if (!*w || strcmp(*w, ":") == 0) {
			lc_run_msg("program %u: missing the program to run", apps + 1);
			return LC_RUN_EXIT_USAGE;
		}
		if (!**w) {     /* "": no node could start it */
			lc_run_msg("program %u: the program's name is empty", apps + 1);
			return LC_RUN_EXIT_USAGE;
		}
		if (total + n > LC_MAX_NODES) {
			lc_run_msg("%u nodes in all: at most %d", total + n, LC_MAX_NODES);
			return LC_RUN_EXIT_USAGE;
		}
		start[apps++] = w;
		total += n;
		while (*w && strcmp(*w, ":") != 0)
			w++;
		if (!*w)
			break;
		*w++ = NULL;            /* ends the previous program's argv */
		if (apps >= LC_MAX_NODES) {
			lc_run_msg("more than %d programs", LC_MAX_NODES);
			return LC_RUN_EXIT_USAGE;
		}
		/* -n N, -nN, --nodes N, --nodes=N */
		const char *num = NULL;
		if (*w && (strcmp(*w, "-n") == 0 || strcmp(*w, "--nodes") == 0) && w[1]) {
			num = w[1];
			w += 2;
		} else if (*w && strncmp(*w, "-n", 2) == 0 && (*w)[2]) {
			num = *w + 2;
			w++;
		} else if (*w && strncmp(*w, "--nodes=", 8) == 0) {
			num = *w + 8;
			w++;
		}
		if (!num) {
			lc_run_msg("program %u: ':' must be followed by -n N (its number of nodes)",
				   apps + 1);
			return LC_RUN_EXIT_USAGE;
		}
		if (lc_run_count(num, &counts[apps]) != 0) {
			lc_run_msg("program %u: bad node count '%s': expected an integer 1..%d", apps + 1,
				   num, LC_MAX_NODES);
			return LC_RUN_EXIT_USAGE;
		}
	}
	o->nodes = total;
	o->apps = apps;
	if (lc_run_node_table(o) != 0)
		return LC_RUN_EXIT_FAIL;
	for (uint32_t a = 0, node = 0; a < apps; a++)
		for (uint32_t k = 0; k < counts[a]; k++)
			o->node_argv[node++] = start[a];
	return LC_RUN_GO;
}

/* One line of a specification file, its words. */
struct lc_run_spec_line {
	unsigned lineno;
	uint32_t node;
	wordexp_t we;
};

/* wordexp's complaint in words. */
static const char *lc_run_wordexp_why(int rc)
{
	switch (rc) {
	case WRDE_BADCHAR:
		return "a character among | & ; < > ( ) { } needs quoting";
	case WRDE_BADVAL:
		return "a variable that is not set";
	case WRDE_CMDSUB:
		return "command substitution is not allowed";
	case WRDE_NOSPACE:
		return "out of memory";
	case WRDE_SYNTAX:
		return "syntax error (an unbalanced quote?)";
	default:
		return "cannot split the line into words";
	}
}

/* The text of line before its comment: '#' where a word may start, outside quotes. */
static void lc_run_cut_comment(char *line)
{
	char quote = 0;

	for (char *p = line; *p; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
			else if (*p == '\\' && quote == '"' && p[1])
				p++;
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '#' && (p == line || p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			return;
		}
	}
}

/*
 * A relative program path with a '/' is found from dir: the word is
 * replaced by dir/word in we (wordexp's storage is ours to change: the
 * strings are freed by wordfree, so the new one is allocated the same way).
 */
static int lc_run_resolve(const char *file, unsigned lineno, const char *dir, wordexp_t *we)
{
	char *prog = we->we_wordv[0], *full;

	if (prog[0] == '/' || !strchr(prog, '/'))
		return 0;
	if (asprintf(&full, "%s/%s", dir, prog) < 0) {
		lc_run_msg("%s:%u: out of memory", file, lineno);
		return -1;
	}
	if (access(full, X_OK) != 0) {
		lc_run_msg("%s:%u: program '%s' (%s): %s", file, lineno, prog, full, strerror(errno));
		free(full);
		return -1;
	}
	free(prog);
	we->we_wordv[0] = full;
	return 0;
}

/* Free what lc_run_spec_load kept of lines[0..n-1]. */
static void lc_run_spec_free(struct lc_run_spec_line *lines, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		wordfree(&lines[i].we);
	free(lines);
}

int lc_run_spec_load(struct lc_run_opts *o, const char *file)
{
	struct lc_run_spec_line *lines = calloc(LC_MAX_NODES, sizeof *lines);
	unsigned where[LC_MAX_NODES] = { 0 };           /* line of each node + 1, 0: none yet */
	char dir[PATH_MAX], *line = NULL;
	size_t cap = 0;
	uint32_t n = 0;
	unsigned lineno = 0;
	int bad = 0;
	FILE *f = fopen(file, "r");

	if (!lines || !f) {
		lc_run_msg("--spec %s: %s", file, f ? "out of memory" : strerror(errno));
		if (f)
			fclose(f);
		free(lines);
		return LC_RUN_EXIT_USAGE;
	}
	snprintf(dir, sizeof dir, "%s", file);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	else
		snprintf(dir, sizeof dir, ".");
	while (!bad && getline(&line, &cap, f) >= 0) {
		wordexp_t we;
		char *end;
		int rc;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		lc_run_cut_comment(line);
		if (line[strspn(line, " \t")] == '\0')
			continue;
		/*
		 * Arithmetic expansion is not for a job's words, and glibc's wordexp
		 * dereferences NULL on an empty one ($(()), $[]): refused anywhere on
		 * the line, quoted or not, before wordexp sees it.
		 */
		if (strstr(line, "$((") || strstr(line, "$[")) {
			lc_run_msg("%s:%u: arithmetic expansion ($((...)), $[...]) is not allowed", file,
				   lineno);
			bad = 1;
			break;
		}
		rc = wordexp(line, &we, WRDE_NOCMD | WRDE_UNDEF);
		if (rc != 0) {
			lc_run_msg("%s:%u: %s", file, lineno, lc_run_wordexp_why(rc));
			if (rc == WRDE_NOSPACE)
				wordfree(&we);
			bad = 1;
			break;
		}
		errno = 0;
		long node = we.we_wordc ? strtol(we.we_wordv[0], &end, 10) : -1;
		if (we.we_wordc < 2 || errno || end == we.we_wordv[0] || *end || node < 0 ||
		    node >= LC_MAX_NODES) {
			lc_run_msg("%s:%u: expected 'NODE PROGRAM [ARGS...]' with NODE 0..%d, got '%s'",
				   file, lineno, LC_MAX_NODES - 1, line + strspn(line, " \t"));
			wordfree(&we);
			bad = 1;
			break;
		}
		if (!we.we_wordv[1][0]) {
			lc_run_msg("%s:%u: the program's name is empty", file, lineno);
			wordfree(&we);
			bad = 1;
			break;
		}
		if (where[node]) {
			lc_run_msg("%s:%u: node %ld again (first at line %u)", file, lineno, node,
				   where[node] - 1);
			wordfree(&we);
			bad = 1;
			break;
		}
		if (n >= LC_MAX_NODES) {
			lc_run_msg("%s:%u: more than %d processes", file, lineno, LC_MAX_NODES);
			wordfree(&we);
			bad = 1;
			break;
		}
		/* drop the NODE word: the rest is the program's argv */
		free(we.we_wordv[we.we_offs]);
		memmove(we.we_wordv, we.we_wordv + 1, we.we_wordc * sizeof *we.we_wordv);
		we.we_wordc--;
		if (lc_run_resolve(file, lineno, dir, &we) != 0) {
			wordfree(&we);
			bad = 1;
			break;
		}
		where[node] = lineno + 1;
		lines[n++] = (struct lc_run_spec_line){ .lineno = lineno, .node = (uint32_t)node, .we = we };
	}
	free(line);
	if (!bad && ferror(f)) {
		lc_run_msg("%s: read error: %s", file, strerror(errno));
		bad = 1;
	}
	fclose(f);
	if (!bad && n == 0) {
		lc_run_msg("%s: no process (one line per process: NODE PROGRAM [ARGS...])", file);
		bad = 1;
	}
	for (uint32_t i = 0; !bad && i < n; i++)
		if (lines[i].node >= n) {
			uint32_t missing = 0;
			while (where[missing])
				missing++;
			lc_run_msg("%s:%u: node %u, but the file has %u processes (nodes 0..%u): node %u "
				   "has no line", file, lines[i].lineno, lines[i].node, n, n - 1, missing);
			bad = 1;
		}
	if (bad) {
		lc_run_spec_free(lines, n);
		return LC_RUN_EXIT_USAGE;
	}
	o->nodes = n;
	o->apps = n;
	if (lc_run_node_table(o) != 0) {
		lc_run_spec_free(lines, n);
		return LC_RUN_EXIT_FAIL;
	}
	/* the words stay allocated for the life of commrun: the children exec them */
	for (uint32_t i = 0; i < n; i++)
		o->node_argv[lines[i].node] = lines[i].we.we_wordv;
	free(lines);
	return LC_RUN_GO;
}

void lc_run_apps_free(struct lc_run_opts *o)
{
	/* a spec file's words are ours (wordexp: each word and the vector malloc'ed); argv's are not */
	for (uint32_t i = 0; o->spec && o->node_argv && i < o->nodes; i++) {
		for (char **w = o->node_argv[i]; w && *w; w++)
			free(*w);
		free(o->node_argv[i]);
	}
	free(o->node_argv);
	o->node_argv = NULL;
}

int lc_run_map_load(struct lc_run_opts *o, const char *file)
{
	uint32_t nics = (o->nodes + o->per_nic - 1) / o->per_nic, n = 0, lineno = 0;
	struct lc_nic_geom g = { .nodes = o->nodes, .per_nic = o->per_nic };
	char *line = NULL, err[160];
	size_t cap = 0;
	int bad = 0;
	FILE *f = fopen(file, "r");

	if (!f) {
		lc_run_msg("--map %s: %s", file, strerror(errno));
		return -1;
	}
	while (!bad && getline(&line, &cap, f) >= 0) {
		char *p = line, *end;

		lineno++;
		p[strcspn(p, "#")] = '\0';
		for (;;) {
			long v;

			p += strspn(p, " \t\r\n");
			if (!*p)
				break;
			errno = 0;
			v = strtol(p, &end, 10);
			if (end == p || errno || (*end && !strchr(" \t\r\n", *end))) {
				lc_run_msg("%s:%u: '%.*s' is not a slot number", file, lineno,
					   (int)strcspn(p, " \t\r\n"), p);
				bad = 1;
				break;
			}
			if (n >= nics || v < 0 || v >= (long)nics) {
				lc_run_msg("%s:%u: %s: the job's %u NICs fill slots 0-%u, one per NIC", file,
					   lineno, n >= nics ? "more slots than NICs" : "slot out of range",
					   nics, nics - 1);
				bad = 1;
				break;
			}
			o->place[n++] = (uint16_t)v;
			p = end;
		}
	}
	free(line);
	fclose(f);
	if (bad)
		return -1;
	if (n != nics) {
		lc_run_msg("%s: %u slot%s for the job's %u NICs", file, n, n == 1 ? "" : "s", nics);
		return -1;
	}
	if (lc_net_place_check(&g, o->place, err, sizeof err) != 0) {
		lc_run_msg("%s: %s", file, err);
		return -1;
	}
	return 0;
}
