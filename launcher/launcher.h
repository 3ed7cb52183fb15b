/* SPDX-License-Identifier: MIT */
/* commrun's private header: the options, the job's state and the steps main runs in order. */
#ifndef LC_LAUNCHER_H
#define LC_LAUNCHER_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

#include "faults.h"
#include "lc_config.h"
#include "nic.h"

/* Functions shared between the launcher's files, not part of any library. */
#define LC_RUN_FUNC __attribute__((visibility("hidden")))

#define LC_RUN_MAX_LINE (1u << 20)   /* a longer line is cut into pieces of this size */
#define LC_RUN_GRACE_EXTRA_NS 1000000000ull
#define LC_RUN_EXIT_TIMEOUT 124
#define LC_RUN_EXIT_USAGE 2
#define LC_RUN_EXIT_FAIL 1
#define LC_RUN_MAX_GROUPS 64            /* --group options of one run */
#define LC_RUN_GO (-1)                  /* lc_run_parse_options: start the job */

/* The command line, parsed. */
/* --bind: where the nodes run (the default is the config's launcher.bind) */
enum lc_run_bind { LC_RUN_BIND_NONE = 0, LC_RUN_BIND_CORE = 1 };
#if LC_LAUNCHER_BIND_CORE
#define LC_RUN_BIND_DEFAULT LC_RUN_BIND_CORE
#define LC_RUN_BIND_DEFAULT_NAME "core"
#else
#define LC_RUN_BIND_DEFAULT LC_RUN_BIND_NONE
#define LC_RUN_BIND_DEFAULT_NAME "none"
#endif

struct lc_run_opts {
	uint32_t nodes;                 /* -n N */
	uint32_t per_nic;               /* --per-node K (1 when not given) */
	enum lc_run_bind bind;          /* --bind */
	int stats;                      /* --stats */
	int show_job;                   /* --show-job */
	int have_faults;                /* --faults given: faults holds it */
	struct lc_fault_cfg faults;
	const char *groups[LC_RUN_MAX_GROUPS];  /* --group LISTs, in command-line order */
	uint32_t n_groups;
	uint64_t timeout_ns;            /* --timeout, 0: none */
	const char *spec;               /* --spec FILE, NULL: the programs are on the command line */
	const char *map;                /* --map FILE, NULL: no placement (NIC i in slot i) */
	uint16_t place[LC_MAX_NODES];   /* --map: the slot of each NIC (lc_run_map_load) */
	int routes;                     /* --routes: print the routes, run nothing */
	const char *network;            /* --network SPEC, NULL: the config's (lc_net_override) */
	uint32_t apps;                  /* programs (lines of a spec file) */
	char ***node_argv;              /* [nodes]: what node i runs, NULL-terminated (jobspec.c) */
};

/* One output stream of a node: its bytes are copied to ours a whole line at a time. */
struct lc_run_stream {
	int fd;                 /* read end of the node's pipe, -1 once closed */
	int out;                /* where its lines go: 1 or 2 */
	char *buf;              /* the unfinished line */
	size_t len, cap;        /* bytes in buf, allocated (one more for a newline) */
	char pfx[16];           /* "[i] " */
	size_t plen;
};

struct lc_run_node {
	pid_t pid;              /* 0 once reaped */
	int status;             /* exit code or 128+signal, valid once reaped */
	int failed;             /* died by a signal or exited non-zero */
	int killed_by_us;       /* SIGKILLed by commrun after the grace period */
	struct lc_run_stream st[2];
};

/* A running job: its segment, its nodes and the state of the wait loop. */
struct lc_run_job {
	char name[64];                  /* the segment, "/lc.<pid>.<n>" */
	struct lc_nic_geom geom;
	uint32_t nodes;
	enum lc_run_bind bind;          /* --bind */
	struct lc_run_node *nd;         /* [nodes] */
	struct pollfd *pfd;             /* [2 x nodes + 1]: the signal pipe, then the open streams */
	int *pfd_map;                   /* pfd index -> 2 x node + stream (-1: the signal pipe) */
	uint32_t running;               /* nodes started and not reaped yet */
	int open_streams;               /* streams not closed yet */
	int start_failed;               /* a pipe or fork failed: the job is being stopped */
	uint64_t timeout_ns;            /* --timeout, 0: none */
	uint64_t t0;                    /* when the nodes were started */
	uint64_t grace_ns;              /* after a failure, SIGKILL what still runs this late */
	uint64_t kill_at;               /* SIGKILL the rest at this time (0: not armed) */
	int timed_out;                  /* --timeout expired: everything was SIGKILLed */
	int got_signal;                 /* the first signal forwarded to the nodes, 0: none */
	int killed_all;                 /* the remaining nodes were SIGKILLed */
};

/* output.c: "commrun: " + message + newline on stderr, in one write(2). */
LC_RUN_FUNC void lc_run_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* output.c: the clock of every deadline. */
LC_RUN_FUNC uint64_t lc_run_now_ns(void);

/*
 * options.c: parse argv into *o.  LC_RUN_GO to start the job, otherwise
 * the exit status to return at once (0 after --help, LC_RUN_EXIT_USAGE
 * after a message on a usage error).
 */
LC_RUN_FUNC int lc_run_parse_options(int argc, char **argv, struct lc_run_opts *o);

/*
 * jobspec.c: the programs of the command line (tail: argv after the
 * options, "PROG ARGS [: -n N PROG ARGS]..."; the first runs on o->nodes)
 * into o->node_argv, o->nodes (the total) and o->apps.  The ':' words of
 * tail become NULLs.  LC_RUN_GO, or an exit status after a message.
 */
LC_RUN_FUNC int lc_run_apps_from_argv(struct lc_run_opts *o, char **tail);
/* jobspec.c: the same from a specification file (--spec); errors name its file and line. */
LC_RUN_FUNC int lc_run_spec_load(struct lc_run_opts *o, const char *file);
/*
 * jobspec.c: a placement file (--map) into o->place: one slot number per NIC
 * of the job's o->nodes / o->per_nic NICs, '#' comments; errors name the file
 * and line.  0, or -1 after a message.
 */
LC_RUN_FUNC int lc_run_map_load(struct lc_run_opts *o, const char *file);
/* segment.c: --routes: every node pair's route for o (with its placement) on stdout.  The exit status. */
LC_RUN_FUNC int lc_run_print_routes(const struct lc_run_opts *o);
/* The job's geometry: the config's for -n N, with --per-node and --network.  0, or -1 said. */
LC_RUN_FUNC int lc_run_geom(const struct lc_run_opts *o, struct lc_nic_geom *g);
/* jobspec.c: free what lc_run_apps_from_argv or lc_run_spec_load allocated. */
LC_RUN_FUNC void lc_run_apps_free(struct lc_run_opts *o);

/*
 * segment.c: create the job segment for o->nodes nodes with the fault spec
 * and the static groups in it; name and geometry in *j.  0, or -1 with a
 * message and no segment left.
 */
LC_RUN_FUNC int lc_run_segment_create(struct lc_run_job *j, const struct lc_run_opts *o);

/* spawn.c: route SIGCHLD, SIGINT, SIGTERM, SIGHUP to the wait loop.  0, or -1 with a message. */
LC_RUN_FUNC int lc_run_signals_install(void);
/*
 * spawn.c: start the nodes, node i running node_argv[i].  0 (a node that could not start
 * stops the job like an interrupt), or -1 out of memory with a message and
 * the segment removed.
 */
LC_RUN_FUNC int lc_run_spawn(struct lc_run_job *j, char ***node_argv);
/* spawn.c: forward the nodes' output and our signals to them until every node is reaped. */
LC_RUN_FUNC void lc_run_wait(struct lc_run_job *j);

/* output.c: the prefixed copy of a node's output, a line at a time. */
LC_RUN_FUNC int lc_run_stream_init(struct lc_run_stream *s, int fd, int out, int node);
LC_RUN_FUNC void lc_run_stream_flush(struct lc_run_stream *s, int force);
LC_RUN_FUNC int lc_run_stream_read(struct lc_run_stream *s);

/* report.c: --stats: every counter of every node, then the faults injected per link. */
LC_RUN_FUNC void lc_run_print_stats(const char *job, uint32_t nodes);

#endif /* LC_LAUNCHER_H */
