/* SPDX-License-Identifier: MIT */
/* commrun: the command line, parsed by getopt_long from the one table of options. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faults.h"
#include "nic.h"
#include "launcher.h"

/* A number macro as a string, for help texts (LC_MAX_NODES is a plain decimal in nic.h). */
#define LC_RUN_STR_(x) #x
#define LC_RUN_STR(x) LC_RUN_STR_(x)

/*
 * Every option of commrun, one row each; nothing else lists them:
 * getopt_long's table, its optstring, the usage line and --help are made
 * from these rows, and lc_run_apply switches over their ids (a row without
 * a case is a -Wswitch error).
 *   X(id, long name, short letter or 0, argument name or "", usage, help)
 * usage, the option in the usage line: NEEDED "-n N", ONCE "[--stats]",
 * MANY "[--group LIST]...", ALONE a usage line of its own ("commrun -h"),
 * INSTEAD a usage line of its own that replaces the NEEDED options and the
 * programs, with the ONCE and MANY options ("commrun [--stats]... --spec FILE").
 * help: one line; a '\n' goes on below it, indented.
 */
#define LC_RUN_OPTION_LIST(X) \
	X(NODES, "nodes", 'n', "N", NEEDED, \
	  "number of node processes (1.." LC_RUN_STR(LC_MAX_NODES) ") running PROG") \
	X(SPEC, "spec", 0, "FILE", INSTEAD, \
	  "run the processes of a specification file instead of -n N PROG:\n" \
	  "one line per process, 'NODE PROGRAM [ARGS...]', NODE 0..N-1 each once;\n" \
	  "'#' comments; words split as by the shell (quotes, $VAR); a relative\n" \
	  "PROGRAM with a '/' is found from the file's directory") \
	X(PER_NODE, "per-node", 0, "K", ONCE, \
	  "K node processes per NIC (default 1): nodes i*K .. i*K+K-1 are the\n" \
	  "endpoints (virtual interfaces) of NIC i, sharing its link and its\n" \
	  "memory registration table, each with its own doorbell page") \
	X(MAP, "map", 0, "FILE", ONCE, \
	  "the placement: which slot of the network each NIC is plugged into;\n" \
	  "FILE holds one slot number per NIC in NIC order ('#' comments), a\n" \
	  "permutation of 0..NICs-1 (default: NIC i in slot i; nic/net.c topology)") \
	X(NETWORK, "network", 0, "SPEC", ONCE, \
	  "the network the job runs on instead of the config's, e.g.\n" \
	  "switch_ports=4,link_mbps=100,hop_ns=20000 (any of the keys; link_mbps\n" \
	  "and hop_ns need a timed config: network.link_mbps or network.hop_ns)") \
	X(ROUTES, "routes", 0, "", ONCE, \
	  "print the job's routes instead of running it ('SRC DST HOPS S.P...'\n" \
	  "per pair of nodes: the output port S.P taken at each switch), then exit;\n" \
	  "with -n N (and --per-node, --map) and no program") \
	X(STATS, "stats", 0, "", ONCE, \
	  "print every NIC and pipeline counter of every node at exit") \
	X(FAULTS, "faults", 0, "SPEC", ONCE, \
	  "inject faults on every link, e.g. drop=0.05,corrupt=0.01,dup=0.01,\n" \
	  "reorder=0.02,delay_us=50,seed=7; ber=1e-6 damages a frame with a\n" \
	  "probability that grows with its length (default: $LC_FAULTS, else none)") \
	X(GROUP, "group", 0, "LIST", MANY, \
	  "a static group of nodes LIST (e.g. 0,1,2 or 0-3,6); repeat for more:\n" \
	  "group ids in order after the config's own static groups (configs whose\n" \
	  "protocols declare a group table only)") \
	X(TIMEOUT, "timeout", 0, "SEC", ONCE, \
	  "kill the job after SEC seconds (exit status 124)") \
	X(BIND, "bind", 0, "WHAT", ONCE, \
	  "core: pin node i to the i-th core commrun may run on, one core each,\n" \
	  "as mpirun --bind-to core does (more nodes than cores: none, with a\n" \
	  "warning); none: let the scheduler place them (default: the config's\n" \
	  "launcher.bind, " LC_RUN_BIND_DEFAULT_NAME ")") \
	X(SHOW_JOB, "show-job", 0, "", ONCE, \
	  "print the job's segment name on stderr before starting") \
	X(HELP, "help", 'h', "", ALONE, \
	  "print this help on stdout and exit")

enum lc_run_opt_id {
#define LC_RUN_X_ID(id, ...) LC_RUN_OPT_##id,
	LC_RUN_OPTION_LIST(LC_RUN_X_ID)
#undef LC_RUN_X_ID
	LC_RUN_OPT_COUNT
};

enum lc_run_use {
	LC_RUN_USE_NEEDED, LC_RUN_USE_ONCE, LC_RUN_USE_MANY, LC_RUN_USE_ALONE, LC_RUN_USE_INSTEAD
};

/* getopt_long returns an option's short letter, or this plus its id for a long-only one. */
#define LC_RUN_LONG_ONLY 256

static const struct option lc_run_longopts[] = {
#define LC_RUN_X_LONG(id, name, letter, arg, ...) \
	[LC_RUN_OPT_##id] = { name, sizeof("" arg) > 1 ? required_argument : no_argument, NULL, \
			      (letter) ? (letter) : LC_RUN_LONG_ONLY + LC_RUN_OPT_##id },
	LC_RUN_OPTION_LIST(LC_RUN_X_LONG)
#undef LC_RUN_X_LONG
	[LC_RUN_OPT_COUNT] = { NULL, 0, NULL, 0 }
};
_Static_assert(sizeof lc_run_longopts / sizeof lc_run_longopts[0] == LC_RUN_OPT_COUNT + 1,
	       "one getopt_long row per option, then the terminator");

/* What --help and the usage line say of each option (its name is in lc_run_longopts). */
static const struct lc_run_opt_doc {
	char letter;                    /* short form, 0: none */
	const char *arg;                /* the argument's name, "": none */
	enum lc_run_use use;
	const char *help;
} lc_run_docs[] = {
#define LC_RUN_X_DOC(id, name, letter, arg, use, help, ...) \
	[LC_RUN_OPT_##id] = { letter, "" arg, LC_RUN_USE_##use, "" help },
	LC_RUN_OPTION_LIST(LC_RUN_X_DOC)
#undef LC_RUN_X_DOC
};
_Static_assert(sizeof lc_run_docs / sizeof lc_run_docs[0] == LC_RUN_OPT_COUNT,
	       "one help row per option");

/* An option without help would be missing from --help: refuse to build. */
#define LC_RUN_X_HAS_HELP(id, name, letter, arg, use, help, ...) \
	_Static_assert(sizeof("" help) > 1, "--" name " has no help text");
LC_RUN_OPTION_LIST(LC_RUN_X_HAS_HELP)
#undef LC_RUN_X_HAS_HELP

/* "-n N" or "--stats": how the usage line names option id. */
static void lc_run_put_form(FILE *f, int id)
{
	const struct lc_run_opt_doc *d = &lc_run_docs[id];

	if (d->letter)
		fprintf(f, "-%c", d->letter);
	else
		fprintf(f, "--%s", lc_run_longopts[id].name);
	if (d->arg[0])
		fprintf(f, " %s", d->arg);
}

/* The options of the usage line: the NEEDED ones (needed != 0), then the optional ones. */
static void lc_run_usage_options(FILE *f, int needed)
{
	for (int id = 0; id < LC_RUN_OPT_COUNT; id++) {
		enum lc_run_use use = lc_run_docs[id].use;

		if (use == LC_RUN_USE_ALONE || use == LC_RUN_USE_INSTEAD ||
		    (!needed && use == LC_RUN_USE_NEEDED))
			continue;
		fprintf(f, use == LC_RUN_USE_NEEDED ? " " : " [");
		lc_run_put_form(f, id);
		fprintf(f, "%s", use == LC_RUN_USE_NEEDED ? "" : use == LC_RUN_USE_MANY ? "]..." : "]");
	}
}

/* The usage line(s). */
static void lc_run_usage(FILE *f)
{
	fprintf(f, "usage: commrun");
	lc_run_usage_options(f, 1);
	fprintf(f, " [--] PROG [ARGS...] [: -n N PROG [ARGS...]]...\n");
	for (int id = 0; id < LC_RUN_OPT_COUNT; id++) {
		enum lc_run_use use = lc_run_docs[id].use;

		if (use != LC_RUN_USE_ALONE && use != LC_RUN_USE_INSTEAD)
			continue;
		fprintf(f, "       commrun");
		if (use == LC_RUN_USE_INSTEAD)
			lc_run_usage_options(f, 0);
		fprintf(f, " ");
		lc_run_put_form(f, id);
		fprintf(f, "\n");
	}
}

/* "-n, --nodes N" or "    --stats": the left column of --help.  Its length. */
static int lc_run_label(char *buf, size_t cap, int id)
{
	const struct lc_run_opt_doc *d = &lc_run_docs[id];

	if (d->letter)
		return snprintf(buf, cap, "-%c, --%s%s%s", d->letter, lc_run_longopts[id].name,
				d->arg[0] ? " " : "", d->arg);
	return snprintf(buf, cap, "    --%s%s%s", lc_run_longopts[id].name, d->arg[0] ? " " : "",
			d->arg);
}

/* --help: the usage, every option with its help, what the nodes get. */
static void lc_run_help(FILE *f)
{
	char label[64];
	int width = 0;

	for (int id = 0; id < LC_RUN_OPT_COUNT; id++) {
		int w = lc_run_label(label, sizeof label, id);
		if (w > width)
			width = w;
	}
	lc_run_usage(f);
	for (int id = 0; id < LC_RUN_OPT_COUNT; id++) {
		lc_run_label(label, sizeof label, id);
		fprintf(f, "  %-*s  ", width, label);
		for (const char *h = lc_run_docs[id].help; *h; h++) {
			fputc(*h, f);
			if (*h == '\n')
				fprintf(f, "  %-*s  ", width, "");
		}
		fputc('\n', f);
	}
	fprintf(f,
		"Options end at PROG (or after --): the program's own arguments are passed untouched,\n"
		"up to a ':' word, which starts the next program of a multi-program job: its -n N\n"
		"nodes come after the previous program's (node numbers follow the command line).\n"
		"Each node gets LC_JOB, LC_NODE, LC_NODES and LC_PER_NIC; its output lines are prefixed with\n"
		"\"[i] \".\n"
		"The exit status is the worst node's (128+signal for a signal death).\n");
}

/* After a usage error's message: the usage line and where to read more.  Returns the exit status. */
static int lc_run_usage_error(void)
{
	lc_run_usage(stderr);
	fprintf(stderr, "Try 'commrun --help' for the options.\n");
	return LC_RUN_EXIT_USAGE;
}

/* The option getopt_long returned as c (or put in optopt); LC_RUN_OPT_COUNT for none of ours. */
static enum lc_run_opt_id lc_run_opt_of(int c)
{
	if (c >= LC_RUN_LONG_ONLY && c < LC_RUN_LONG_ONLY + LC_RUN_OPT_COUNT)
		return (enum lc_run_opt_id)(c - LC_RUN_LONG_ONLY);
	for (int id = 0; c > 0 && id < LC_RUN_OPT_COUNT; id++)
		if (lc_run_docs[id].letter == c)
			return (enum lc_run_opt_id)id;
	return LC_RUN_OPT_COUNT;
}

/* Parse a positive decimal number of seconds (fractions allowed) into ns; -1 when invalid. */
static int lc_run_parse_seconds(const char *s, uint64_t *ns)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !(v > 0.0) || v > 1e6)
		return -1;
	*ns = (uint64_t)(v * 1e9);
	return 0;
}

static int lc_run_parse_nodes(const char *s, uint32_t *n)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < 1 || v > LC_MAX_NODES)
		return -1;
	*n = (uint32_t)v;
	return 0;
}

/*
 * Option id with its argument arg into *o.  arg is NULL when the command
 * line ended before it; spelled is then the option as written.  Returns
 * LC_RUN_GO to go on, or the exit status (0 after --help; a usage error
 * after its message).
 */
static int lc_run_apply(struct lc_run_opts *o, enum lc_run_opt_id id, const char *spelled,
			const char *arg)
{
	char ferr[256] = "";

	switch (id) {
	case LC_RUN_OPT_NODES:
		if (!arg) {
			lc_run_msg("%s needs a number of nodes", spelled);
			return LC_RUN_EXIT_USAGE;
		}
		if (lc_run_parse_nodes(arg, &o->nodes) != 0) {
			lc_run_msg("bad node count '%s': expected an integer 1..%d", arg, LC_MAX_NODES);
			return LC_RUN_EXIT_USAGE;
		}
		break;
	case LC_RUN_OPT_PER_NODE:
		if (!arg || lc_run_parse_nodes(arg, &o->per_nic) != 0) {
			lc_run_msg("--per-node needs a number of processes per NIC, 1..%d", LC_MAX_NODES);
			return LC_RUN_EXIT_USAGE;
		}
		break;
	case LC_RUN_OPT_MAP:
		if (!arg) {
			lc_run_msg("--map needs a placement file");
			return LC_RUN_EXIT_USAGE;
		}
		o->map = arg;
		break;
	case LC_RUN_OPT_NETWORK: {
		/* its keys and values checked here (one node); the job's size with -n, later */
		struct lc_run_opts one = { .nodes = 1, .per_nic = 1, .network = arg };
		struct lc_nic_geom g;

		if (!arg || lc_run_geom(&one, &g) != 0) {
			if (!arg)
				lc_run_msg("--network needs a network spec");
			return LC_RUN_EXIT_USAGE;
		}
		o->network = arg;
		break;
	}
	case LC_RUN_OPT_ROUTES:
		o->routes = 1;
		break;
	case LC_RUN_OPT_STATS:
		o->stats = 1;
		break;
	case LC_RUN_OPT_FAULTS:
		if (!arg || lc_faults_parse(arg, &o->faults, ferr, sizeof ferr) != 0) {
			lc_run_msg("--faults: %s", ferr[0] ? ferr : "needs a fault spec");
			return LC_RUN_EXIT_USAGE;
		}
		o->have_faults = 1;
		break;
	case LC_RUN_OPT_GROUP:
		if (!arg || o->n_groups >= LC_RUN_MAX_GROUPS) {
			lc_run_msg("--group needs a list of nodes (at most %d groups)", LC_RUN_MAX_GROUPS);
			return LC_RUN_EXIT_USAGE;
		}
		o->groups[o->n_groups++] = arg;
		break;
	case LC_RUN_OPT_TIMEOUT:
		if (!arg || lc_run_parse_seconds(arg, &o->timeout_ns) != 0) {
			lc_run_msg("--timeout needs a positive number of seconds");
			return LC_RUN_EXIT_USAGE;
		}
		break;
	case LC_RUN_OPT_SPEC:
		if (!arg) {
			lc_run_msg("--spec needs a specification file");
			return LC_RUN_EXIT_USAGE;
		}
		o->spec = arg;
		break;
	case LC_RUN_OPT_BIND:
		if (!arg || (strcmp(arg, "core") != 0 && strcmp(arg, "none") != 0)) {
			lc_run_msg("--bind needs 'core' or 'none'");
			return LC_RUN_EXIT_USAGE;
		}
		o->bind = strcmp(arg, "core") == 0 ? LC_RUN_BIND_CORE : LC_RUN_BIND_NONE;
		break;
	case LC_RUN_OPT_SHOW_JOB:
		o->show_job = 1;
		break;
	case LC_RUN_OPT_HELP:
		lc_run_help(stdout);
		return 0;
	case LC_RUN_OPT_COUNT:          /* not an option of the table: getopt_long never says so */
		return LC_RUN_EXIT_USAGE;
	}
	return LC_RUN_GO;
}

/*
 * getopt_long's '?': an unknown option, an abbreviation of several long
 * ones, or --name=ARG for an option without an argument.  word is the
 * command-line word of a long option.  Says which; returns the exit status.
 */
static int lc_run_bad_option(const char *word, int opt)
{
	enum lc_run_opt_id id = lc_run_opt_of(opt);

	if (id != LC_RUN_OPT_COUNT) {
		lc_run_msg("option '--%s' takes no argument", lc_run_longopts[id].name);
	} else if (opt) {
		lc_run_msg("unknown option '-%c'", opt);
	} else {
		size_t len = strncmp(word, "--", 2) == 0 ? strcspn(word + 2, "=") : 0;
		char which[256] = "";
		int n = 0;

		for (int k = 0; len > 0 && k < LC_RUN_OPT_COUNT; k++)
			if (strncmp(lc_run_longopts[k].name, word + 2, len) == 0) {
				size_t at = strlen(which);
				snprintf(which + at, sizeof which - at, "%s--%s", n++ ? ", " : "",
					 lc_run_longopts[k].name);
			}
		if (n > 1)
			lc_run_msg("ambiguous option '%.*s': %s", (int)len + 2, word, which);
		else
			lc_run_msg("unknown option '%s'", word);
	}
	return lc_run_usage_error();
}

int lc_run_parse_options(int argc, char **argv, struct lc_run_opts *o)
{
	/* '+': options end at PROG, whose arguments are its own; ':': we say what went wrong */
	char optstring[3 + 2 * LC_RUN_OPT_COUNT] = "+:";
	size_t len = 2;
	int c, rc;

	for (int id = 0; id < LC_RUN_OPT_COUNT; id++)
		if (lc_run_docs[id].letter) {
			optstring[len++] = lc_run_docs[id].letter;
			if (lc_run_longopts[id].has_arg)
				optstring[len++] = ':';
		}
	optstring[len] = '\0';
	memset(o, 0, sizeof *o);
	o->bind = LC_RUN_BIND_DEFAULT;
	opterr = 0;
	while ((c = getopt_long(argc, argv, optstring, lc_run_longopts, NULL)) != -1) {
		if (c == '?')
			return lc_run_bad_option(argv[optind - 1], optopt);
		if (c == ':') {
			/* the command line ended before the option's argument */
			lc_run_apply(o, lc_run_opt_of(optopt), argv[optind - 1], NULL);
			return lc_run_usage_error();
		}
		rc = lc_run_apply(o, lc_run_opt_of(c), NULL, optarg);
		if (rc != LC_RUN_GO)
			return rc;
	}
	if (!o->per_nic)
		o->per_nic = 1;
	if (o->spec) {
		if (o->nodes || optind < argc) {
			lc_run_msg("--spec %s names every process: no -n N and no program with it",
				   o->spec);
			return lc_run_usage_error();
		}
		rc = lc_run_spec_load(o, o->spec);
	} else if (o->nodes == 0) {
		lc_run_msg("missing -n N (the number of nodes)");
		return lc_run_usage_error();
	} else if (o->routes) {
		if (optind < argc) {
			lc_run_msg("--routes prints the routes and runs nothing: no program with it");
			return lc_run_usage_error();
		}
		rc = LC_RUN_GO;
	} else if (optind >= argc) {
		lc_run_msg("missing the program to run");
		return lc_run_usage_error();
	} else {
		rc = lc_run_apps_from_argv(o, argv + optind);
		if (rc == LC_RUN_EXIT_USAGE)
			return lc_run_usage_error();
	}
	/* the placement's slots are the job's NICs: known once the nodes are */
	if (rc == LC_RUN_GO && o->map && lc_run_map_load(o, o->map) != 0) {
		lc_run_apps_free(o);
		return LC_RUN_EXIT_USAGE;
	}
	return rc;
}
