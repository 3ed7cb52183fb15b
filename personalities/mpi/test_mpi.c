/* SPDX-License-Identifier: MIT */
/* The MPI personality end to end: its programs (plain MPI) under commrun, and mpicc/mpirun themselves. */
#include "../../tests/pipeline/lc_run.h"
#include <glob.h>
#include "lc_config.h"
#include "lc_coop.h"

TestSuite(mpi, .timeout = 240 * LC_T_SLOWDOWN);

/* mpirun-free: commrun -n nodes PROG MODE, then `want` "<prog> ok:" lines and status 0. */
static void lc_t_mpi(int nodes, const char *prog, const char *mode, int want)
{
	struct lc_t_out o;
	char ok[64];
	lc_t_commrun(&o, nodes, 120, prog, mode, NULL);
	snprintf(ok, sizeof ok, "%s ok:", prog);
	lc_t_expect_ok(&o, ok, want);
	lc_t_out_free(&o);
}

/* every size to 16 MiB (smoke: to 1 MiB, lc_t_smoke) */
Test(mpi, pingpong_0B_to_16MiB_every_byte_checked)
{
	struct lc_t_out o;
	lc_t_commrun(&o, 2, 120, "mpi_pingpong", "check", LC_T_N("16777216", "1048576"), NULL);
	lc_t_expect_ok(&o, "mpi_pingpong ok:", 2);
	lc_t_out_free(&o);
}

/* small MPI_Isends that leave at once (lc_isend_now) complete, their messages whole and in order */
Test(mpi, isend_that_leaves_at_once_completes)
{
	lc_t_mpi(2, "mpi_p2p", "now", 2);
}

Test(mpi, tags_received_out_of_send_order)
{
	lc_t_mpi(2, "mpi_p2p", "tags", 2);
}

Test(mpi, any_source_any_tag_keep_per_source_order)
{
	lc_t_mpi(3, "mpi_p2p", "any", 3);
}

Test(mpi, probe_then_receive_the_probed_size)
{
	lc_t_mpi(2, "mpi_p2p", "probe", 2);
}

Test(mpi, ssend_waits_for_a_receive_posted_later)
{
	lc_t_mpi(2, "mpi_p2p", "ssend", 2);
}

Test(mpi, cancel_an_unmatched_receive)
{
	lc_t_mpi(2, "mpi_p2p", "cancel", 2);
}

/*
 * Receives outstanding at once are bounded by host.max_requests (the
 * personality does not queue requests beyond the pool: README.md): up to 7
 * peers and 8 receives per peer, fewer in a config with a small pool.
 */
Test(mpi, waitany_testany_over_many_peers)
{
	int max = LC_HOST_MAX_REQUESTS - 1, peers = max < 7 ? max : 7, per = max / peers;
	char arg[16], ok[] = "mpi_p2p ok:";
	struct lc_t_out o;
	snprintf(arg, sizeof arg, "%d", per < 8 ? per : 8);
	lc_t_commrun(&o, peers + 1, 120, "mpi_p2p", "waitany", arg, NULL);
	lc_t_expect_ok(&o, ok, peers + 1);
	lc_t_out_free(&o);
}

Test(mpi, comm_dup_contexts_never_cross)
{
	lc_t_mpi(3, "mpi_p2p", "dup", 3);
}

Test(mpi, misuse_returns_the_error_classes)
{
	lc_t_mpi(2, "mpi_p2p", "misuse", 2);
}

/* MPI_ERRORS_ARE_FATAL: the node prints the error and fails; commrun stops the job. */
Test(mpi, errors_are_fatal_by_default)
{
	struct lc_t_out o;
	lc_t_commrun(&o, 2, 60, "mpi_p2p", "fatal", NULL);
	cr_assert_neq(o.status, 0, "the job succeeded; output:\n%s", o.text);
	cr_assert(strstr(o.text, "MPI_Send: MPI_ERR_RANK") != NULL, "output:\n%s", o.text);
	cr_assert_eq(lc_t_count(&o, "FAIL"), 0, "output:\n%s", o.text);
	lc_t_out_free(&o);
}

/*
 * A blocking call outside MPI_Init .. MPI_Finalize is fatal whatever its
 * arguments (in the smallest job the config allows: LC_PC_MIN_NODES).
 */
Test(mpi, calls_outside_init_finalize_are_fatal)
{
	static const char *const when[] = { "early", "late" }, *const call[] = { "send", "recv" };
	static const char *const text[] = { "called before MPI_Init", "called after MPI_Finalize" };
	for (int w = 0; w < 2; w++)
		for (int c = 0; c < 2; c++) {
			char want[96];
			struct lc_t_out o;
			snprintf(want, sizeof want, "MPI_%s: %s", c ? "Recv" : "Send", text[w]);
			lc_t_commrun(&o, LC_PC_MIN_NODES, 60, "mpi_p2p", when[w], call[c], NULL);
			cr_assert_neq(o.status, 0, "%s %s: the job succeeded; output:\n%s", when[w],
				      call[c], o.text);
			cr_assert(strstr(o.text, want) != NULL, "%s %s: no \"%s\"; output:\n%s",
				  when[w], call[c], want, o.text);
			cr_assert_eq(lc_t_count(&o, "FAIL"), 0, "output:\n%s", o.text);
			lc_t_out_free(&o);
		}
}

/*
 * Messages above the eager limit go by rendezvous: 3 of them, each twice
 * the unexpected budget (a smoke run: the budget and 64 KiB), arrive before
 * rank 0 receives them in reverse order (eager, the first would hold the
 * NIC at the budget and the job would hang: the envelope's head-of-line
 * limit), then the exchange, probe, truncation, Ssend and freed-request
 * cases (progs/mpi_p2p.c).
 */
Test(mpi, large_messages_go_by_rendezvous)
{
	unsigned long long n = LC_T_N(2ull * LC_HOST_UNEXPECTED_BYTES,
				      LC_HOST_UNEXPECTED_BYTES + (64ull << 10));
	char arg[32], ok[] = "mpi_p2p ok:";
	struct lc_t_out o;
	snprintf(arg, sizeof arg, "%llu", n < (16u << 20) ? (n > 4096 ? n : 4096) : (16u << 20));
	lc_t_commrun(&o, 4, 120, "mpi_p2p", "large", arg, NULL);
	lc_t_expect_ok(&o, ok, 4);
	lc_t_out_free(&o);
}

/*
 * More requests pending than the pool of host.max_requests (a benchmark's
 * window of 64): the personality queues what finds no room (p2p.c, "Room").
 * Eager messages (64 B) and rendezvous ones (128 KiB, above every eager
 * limit), each into distinct buffers and all into one buffer; cancelled
 * receives, queued ones too.
 */
static void lc_t_window(const char *bytes, int count)
{
	char arg[16];
	struct lc_t_out o;
	snprintf(arg, sizeof arg, "%d", count);
	lc_t_commrun(&o, 2, 120, "mpi_p2p", "window", bytes, arg, NULL);
	lc_t_expect_ok(&o, "mpi_p2p ok:", 2);
	lc_t_out_free(&o);
}

Test(mpi, window_beyond_the_request_pool_eager)
{
	lc_t_window("64", LC_HOST_MAX_REQUESTS + 8);
}

Test(mpi, window_beyond_the_request_pool_rendezvous)
{
	lc_t_window("131072", LC_HOST_MAX_REQUESTS + 8 < 24 ? LC_HOST_MAX_REQUESTS + 8 : 24);
}

static void lc_t_coll(int nodes)
{
	if (nodes < LC_PC_MIN_NODES)
		cr_skip_test("a job of %d node(s) is refused: the config names node ids up to %d "
			     "(LC_PC_MIN_NODES)", nodes, LC_PC_MIN_NODES - 1);
	lc_t_mpi(nodes, "mpi_coll", NULL, nodes);
}

Test(mpi, collectives_on_1_rank) { lc_t_coll(1); }
Test(mpi, collectives_on_2_ranks) { lc_t_coll(2); }
Test(mpi, collectives_on_3_ranks) { lc_t_coll(3); }
Test(mpi, collectives_on_5_ranks) { lc_t_coll(5); }
Test(mpi, collectives_on_8_ranks) { lc_t_coll(8); }

#if LC_PC_EXACTLY_ONCE
/* with a protocol that provides exactly_once the ssend's ack survives the faults */
Test(mpi, ssend_under_faults)
{
	static const char *const opts[] = { "--faults", "drop=0.02,seed=3", NULL };
	struct lc_t_out o;
	lc_t_commrun_with(&o, opts, 2, 90, "mpi_p2p", "ssend", NULL);
	lc_t_expect_ok(&o, "mpi_p2p ok:", 2);
	lc_t_out_free(&o);
}
#else
LC_T_SKIPPED(mpi, ssend_under_faults,
	     "needs a protocol that provides exactly_once (LC_PC_EXACTLY_ONCE)")
#endif

/*
 * The wrappers: build/<cfg>/bin/mpicc compiles a program from its source
 * as any MPI program is built (pkg-config mpi), mpirun runs it.
 */
Test(mpi, mpicc_builds_and_mpirun_runs_an_unmodified_program)
{
	char cc[512], run[512], src[600], exe[64];
	lc_t_path(cc, sizeof cc, "bin/mpicc");
	lc_t_path(run, sizeof run, "bin/mpirun");
	snprintf(src, sizeof src, "%s/../../personalities/mpi/progs/mpi_pingpong.c", lc_t_build_dir());
	snprintf(exe, sizeof exe, "/tmp/lc_t_mpicc.%d", (int)getpid());
	struct lc_t_out o;
	char *cargv[] = { cc, LC_T_CC_OPT, "-o", exe, src, NULL };
	lc_t_exec(&o, cargv, NULL);
	cr_assert_eq(o.status, 0, "mpicc failed:\n%s", o.text);
	lc_t_out_free(&o);
	char *rargv[] = { run, "-n", "2", "--timeout", "60", exe, "check", "65536", NULL };
	lc_t_exec(&o, rargv, NULL);
	unlink(exe);
	lc_t_expect_ok(&o, "mpi_pingpong ok:", 2);
	lc_t_out_free(&o);
}

/*
 * A public ping-pong program with a byte-integrity mode, built unmodified:
 * NetPIPE 3.7.2 (its Debian source, fetched by tools/thirdparty.py into
 * build/thirdparty/), made with its own makefile's `mpi` target and
 * MPICC=bin/mpicc, run with -i (every message checked) from 1 B to 4 MiB,
 * optionally under faults.  NetPIPE repeats each size for a fixed time; a
 * smoke run (lc_t_smoke) repeats each 20 times (-n 20) up to 64 KiB: the
 * sizes above were 1.5 of its 1.5 s alone (two spinning processes), and the
 * large messages' paths are the full runs' (tests/smoke.py).  Skipped, with
 * the reason, when the source was not fetched.
 */
static void lc_t_netpipe(const char *faults, const char *upto, const char *last)
{
	char tgz[600], dir[64], src[128], cc[512], mpicc[600], np[160], outf[128], crun[512];
	struct lc_t_out o;

	if (lc_t_smoke()) {
		upto = "65536";
		last = " 49153 bytes";
	}
	snprintf(tgz, sizeof tgz, "%s/../thirdparty/netpipe_3.7.2.orig.tar.gz", lc_t_build_dir());
	if (access(tgz, R_OK) != 0)
		cr_skip_test("NetPIPE source not fetched (%s): run tools/thirdparty.py", tgz);
	lc_t_path(cc, sizeof cc, "bin/mpicc");
	lc_t_path(crun, sizeof crun, "bin/commrun");
	snprintf(dir, sizeof dir, "/tmp/lc_t_np.%d", (int)getpid());
	snprintf(src, sizeof src, "%s/NetPIPE-3.7.2", dir);
	snprintf(mpicc, sizeof mpicc, "MPICC=%s", cc);
	snprintf(np, sizeof np, "%s/NPmpi", src);
	snprintf(outf, sizeof outf, "%s/np.out", dir);
	cr_assert(mkdir(dir, 0700) == 0, "mkdir %s: %s", dir, strerror(errno));
	char *tar[] = { "/usr/bin/tar", "xzf", tgz, "-C", dir, NULL };
	lc_t_exec(&o, tar, NULL);
	cr_assert_eq(o.status, 0, "tar:\n%s", o.text);
	lc_t_out_free(&o);
	char *make[] = { "/usr/bin/make", "-C", src, "mpi", mpicc, NULL };
	lc_t_exec(&o, make, NULL);
	cr_assert_eq(o.status, 0, "NetPIPE does not build with bin/mpicc:\n%s", o.text);
	lc_t_out_free(&o);
	char *argv[20];
	char limit[16];         /* the job's bound grows with a sanitizer's slowdown, as .timeout does */
	int a = 0;

	snprintf(limit, sizeof limit, "%d", 150 * LC_T_SLOWDOWN);
	argv[a++] = crun;
	argv[a++] = "--show-job";
	argv[a++] = "--timeout";
	argv[a++] = limit;
	if (faults) {
		argv[a++] = "--stats";
		argv[a++] = "--faults";
		argv[a++] = (char *)faults;
	}
	char *rest[] = { "-n", "2", np, "-i", "-u", (char *)upto, "-o", outf, NULL };
	for (int i = 0; rest[i]; i++)
		argv[a++] = rest[i];
	/*
	 * a fixed number of repetitions a size (-n): NetPIPE's own choice aims at a
	 * time per size, which made the full runs 4-13 s of two spinning processes
	 * (12.7 s under faults, 0.5 s with -n 50); 200 a size still loses about a
	 * thousand frames a direction under the faults below
	 */
	argv[a++] = "-n";
	argv[a++] = lc_t_smoke() ? "20" : "200";
	argv[a] = NULL;
	lc_t_exec(&o, argv, NULL);
	char *rm[] = { "/usr/bin/rm", "-rf", dir, NULL };
	struct lc_t_out r;
	lc_t_exec(&r, rm, NULL);
	lc_t_out_free(&r);
	cr_assert(!lc_t_seg_exists(o.job), "segment left behind");
	cr_assert_eq(o.status, 0, "NetPIPE failed (status %d):\n%s", o.status, o.text);
	int passed = lc_t_count(&o, "Integrity check passed");
	cr_assert_eq(lc_t_count(&o, "Integrity check failed"), 0, "output:\n%s", o.text);
	cr_assert(passed >= 20 && passed == lc_t_count(&o, "-->"),
		  "%d sizes passed of %d; output:\n%s", passed, lc_t_count(&o, "-->"), o.text);
	cr_assert(strstr(o.text, last) != NULL, "NetPIPE stopped before %s; output:\n%s", last,
		  o.text);
	if (faults) {   /* the faults did happen: commrun --stats, "faults injected per link" */
		const char *l = strstr(o.text, "\n0->1 ");
		unsigned drop = 0, corrupt = 0;
		cr_assert(l && sscanf(l, " 0->1 %u %u", &drop, &corrupt) == 2 && drop + corrupt > 0,
			  "no fault injected on link 0->1; output:\n%s", o.text);
	}
	lc_t_out_free(&o);
}

Test(mpi, netpipe_unmodified_integrity_1B_to_4MiB)
{
	lc_t_netpipe(NULL, "4194304", " 3145729 bytes");
}

#if LC_PC_EXACTLY_ONCE
Test(mpi, netpipe_unmodified_integrity_under_faults)
{
#if defined(LC_RELIABILITY_MODE_STOP_AND_WAIT) && LC_RELIABILITY_MODE_STOP_AND_WAIT
	/* stop-and-wait pays a round trip a frame and a timeout a loss: up to 256 KiB */
	lc_t_netpipe("drop=0.01,corrupt=0.01,seed=11", "262144", " 196609 bytes");
#else
	lc_t_netpipe("drop=0.01,corrupt=0.01,seed=11", "1048576", " 786433 bytes");
#endif
}
#else
LC_T_SKIPPED(mpi, netpipe_unmodified_integrity_under_faults,
	     "needs a protocol that provides exactly_once (LC_PC_EXACTLY_ONCE)")
#endif

/*
 * The point-to-point programs of the OSU Micro-Benchmarks (osu_latency,
 * osu_bw, osu_bibw, osu_mbw_mr), built unmodified with bin/mpicc as the
 * release's own makefile builds them and run with bin/mpirun -n 2.  No
 * Debian package carries their source, so it is not fetched: the test runs
 * on a tree given by LC_OSU_SRC=<dir> (or build/thirdparty/osu-micro-
 * benchmarks*), and is skipped with the reason otherwise.
 *
 * Layout (releases up to 5.3): mpi/pt2pt/osu_{latency,bw,bibw}.c each
 * linked with osu_pt2pt.c (compiled with -I of that folder, automake's
 * DEFAULT_INCLUDES), osu_mbw_mr.c alone.  Those releases' configure makes
 * no config header: its DEFS go on the command line, so the test passes the
 * ones the programs use, read from the tree's configure.ac as configure
 * would (PACKAGE_VERSION from AC_INIT, FIELD_WIDTH and FLOAT_PRECISION from
 * AC_DEFINE).  Later releases link util/osu_util_mpi.c (c/util/ from 5.9),
 * which calls the one-sided MPI_Win_* family the personality does not
 * provide: such a tree is reported skipped with that reason, never built
 * against stubs.
 */
struct lc_t_osu {
	const char *name;
	int with_util;          /* linked with osu_pt2pt.c */
	int first;              /* first size: 0 (latency) or 1 */
	int values;             /* numbers after the size on each row */
};

static const struct lc_t_osu lc_t_osu_progs[] = {
	{ "osu_latency", 1, 0, 1 },
	{ "osu_bw", 1, 1, 1 },
	{ "osu_bibw", 1, 1, 1 },
	{ "osu_mbw_mr", 0, 1, 2 },
};

/* The OSU tree, or NULL (the reason in why). */
static const char *lc_t_osu_src(char *buf, size_t cap, char *why, size_t whycap)
{
	const char *env = getenv("LC_OSU_SRC");
	if (env && *env) {
		snprintf(buf, cap, "%s", env);
	} else {
		char pat[600];
		glob_t g;
		snprintf(pat, sizeof pat, "%s/../thirdparty/osu-micro-benchmarks*/", lc_t_build_dir());
		if (glob(pat, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
			snprintf(why, whycap, "no OSU Micro-Benchmarks source: set LC_OSU_SRC=<dir> "
				 "or unpack a release under build/thirdparty/ (no Debian package "
				 "carries it, tools/thirdparty.py cannot fetch it)");
			return NULL;
		}
		snprintf(buf, cap, "%s", g.gl_pathv[0]);
		globfree(&g);
	}
	char f[700];
	snprintf(f, sizeof f, "%s/mpi/pt2pt/osu_pt2pt.c", buf);
	if (access(f, R_OK) == 0)
		return buf;
	snprintf(why, whycap, "%s is not a release up to 5.3 (no mpi/pt2pt/osu_pt2pt.c): later "
		 "releases link util/osu_util_mpi.c, which needs the one-sided MPI_Win_* calls "
		 "the personality does not provide", buf);
	return NULL;
}

/* The value of `key([NAME], [value]` in configure.ac text (NAME empty: the second argument of key). */
static int lc_t_ac_value(const char *ac, const char *key, char *out, size_t cap)
{
	const char *p = strstr(ac, key);
	if (!p || !(p = strstr(p, "], [")))
		return 0;
	p += 4;
	size_t n = strcspn(p, "]");
	if (n == 0 || n >= cap)
		return 0;
	memcpy(out, p, n);
	out[n] = '\0';
	return 1;
}

/* -D flags configure's DEFS would give: argv entries in defs (each up to 64 bytes). */
static int lc_t_osu_defs(const char *src, char defs[][64], int max)
{
	char path[700], v[32];
	snprintf(path, sizeof path, "%s/configure.ac", src);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	static char ac[64 << 10];
	size_t n = fread(ac, 1, sizeof ac - 1, f);
	ac[n] = '\0';
	fclose(f);
	int d = 0;
	if (d < max && lc_t_ac_value(ac, "AC_INIT([", v, sizeof v))
		snprintf(defs[d++], 64, "-DPACKAGE_VERSION=\"%s\"", v);
	if (d < max && lc_t_ac_value(ac, "AC_DEFINE([FIELD_WIDTH]", v, sizeof v))
		snprintf(defs[d++], 64, "-DFIELD_WIDTH=%s", v);
	if (d < max && lc_t_ac_value(ac, "AC_DEFINE([FLOAT_PRECISION]", v, sizeof v))
		snprintf(defs[d++], 64, "-DFLOAT_PRECISION=%s", v);
	return d;
}

/* Every size row of rank 0, first .. 4 MiB (those releases' fixed range), with positive numbers. */
static void lc_t_osu_rows(const struct lc_t_osu *t, const struct lc_t_out *o)
{
	int rows = 0;
	for (long size = t->first; size <= (4l << 20); size = size ? size * 2 : 1) {
		char key[48];
		snprintf(key, sizeof key, "\n[0] %ld ", size);
		const char *l = strstr(o->text, key);
		double a = 0, b = 0;
		int got = l ? sscanf(l + strlen(key), " %lf %lf", &a, &b) : 0;
		cr_assert(got >= t->values && a > 0 && (t->values < 2 || b > 0),
			  "%s: no row for %ld bytes; output:\n%s", t->name, size, o->text);
		if (!strcmp(t->name, "osu_latency") && size == 8)
			cr_log_info("osu_latency 8 B: %.2f us (%s)", a, lc_t_build_dir());
		rows++;
	}
	cr_assert(rows >= 23, "%s: %d rows", t->name, rows);
}

static void lc_t_osu(const char *faults)
{
	char src[600], why[800], dir[64], cc[512], run[512], crun[512];
	if (!lc_t_osu_src(src, sizeof src, why, sizeof why))
		cr_skip_test("%s", why);
	char defs[3][64];
	int nd = lc_t_osu_defs(src, defs, 3);
	lc_t_path(cc, sizeof cc, "bin/mpicc");
	lc_t_path(run, sizeof run, "bin/mpirun");
	lc_t_path(crun, sizeof crun, "bin/commrun");
	snprintf(dir, sizeof dir, "/tmp/lc_t_osu.%d", (int)getpid());
	cr_assert(mkdir(dir, 0700) == 0, "mkdir %s: %s", dir, strerror(errno));
	for (size_t i = 0; i < sizeof lc_t_osu_progs / sizeof lc_t_osu_progs[0]; i++) {
		const struct lc_t_osu *t = &lc_t_osu_progs[i];
		char inc[700], prog[700], util[700], exe[128];
		snprintf(inc, sizeof inc, "-I%s/mpi/pt2pt", src);
		snprintf(prog, sizeof prog, "%s/mpi/pt2pt/%s.c", src, t->name);
		snprintf(util, sizeof util, "%s/mpi/pt2pt/osu_pt2pt.c", src);
		snprintf(exe, sizeof exe, "%s/%s", dir, t->name);
		char *argv[16];
		int a = 0;
		argv[a++] = cc;
		for (int d = 0; d < nd; d++)
			argv[a++] = defs[d];
		argv[a++] = inc;
		argv[a++] = "-g";
		argv[a++] = LC_T_CC_OPT;
		argv[a++] = "-o";
		argv[a++] = exe;
		argv[a++] = prog;
		if (t->with_util)
			argv[a++] = util;
		argv[a] = NULL;
		struct lc_t_out o;
		lc_t_exec(&o, argv, NULL);
		cr_assert_eq(o.status, 0, "%s does not build with bin/mpicc:\n%s", t->name, o.text);
		lc_t_out_free(&o);
		/* their own options: -i iterations, -x warmup (a window of 64 per iteration) */
		const char *iters = strcmp(t->name, "osu_latency") ? "2" : "100";
		char *rargv[16];
		a = 0;
		if (faults) {
			rargv[a++] = crun;
			rargv[a++] = "--show-job";
			rargv[a++] = "--stats";
			rargv[a++] = "--faults";
			rargv[a++] = (char *)faults;
		} else {
			rargv[a++] = run;
		}
		char *rest[] = { "-n", "2", "--timeout", "150", exe, "-i", (char *)iters, "-x", "1",
				 NULL };
		for (int r = 0; rest[r]; r++)
			rargv[a++] = rest[r];
		rargv[a] = NULL;
		lc_t_exec(&o, rargv, NULL);
		cr_assert_eq(o.status, 0, "%s failed (status %d):\n%s", t->name, o.status, o.text);
		cr_assert(strstr(o.text, "[0] # OSU MPI") != NULL, "%s: no header:\n%s", t->name,
			  o.text);
		lc_t_osu_rows(t, &o);
		if (faults) {   /* the faults did happen: commrun --stats, "faults injected per link" */
			const char *l = strstr(o.text, "\n0->1 ");
			unsigned drop = 0, corrupt = 0;
			cr_assert(l && sscanf(l, " 0->1 %u %u", &drop, &corrupt) == 2 &&
					  drop + corrupt > 0,
				  "%s: no fault injected on link 0->1; output:\n%s", t->name, o.text);
		}
		lc_t_out_free(&o);
		unlink(exe);
	}
	rmdir(dir);
}

Test(mpi, osu_pt2pt_programs_build_unmodified_and_run)
{
	lc_t_osu(NULL);
}

#if LC_PC_EXACTLY_ONCE
/*
 * Under losses: every program completes with every row (releases up to 5.3
 * check no data: the bytes are checked by mpi_p2p window under the same
 * faults, below).
 */
Test(mpi, osu_pt2pt_programs_under_faults)
{
	lc_t_osu("drop=0.02,seed=3");
}

Test(mpi, window_under_faults_every_byte_intact)
{
	static const char *const opts[] = { "--faults", "drop=0.02,seed=3", NULL };
	struct lc_t_out o;
	lc_t_commrun_with(&o, opts, 2, 120, "mpi_p2p", "window", "131072", "24", NULL);
	lc_t_expect_ok(&o, "mpi_p2p ok:", 2);
	lc_t_out_free(&o);
}
#else
LC_T_SKIPPED(mpi, osu_pt2pt_programs_under_faults,
	     "needs a protocol that provides exactly_once (LC_PC_EXACTLY_ONCE)")
LC_T_SKIPPED(mpi, window_under_faults_every_byte_intact,
	     "needs a protocol that provides exactly_once (LC_PC_EXACTLY_ONCE)")
#endif
