/* SPDX-License-Identifier: MIT */
/* The MPI personality end to end: its programs (plain MPI) under commrun, and mpicc/mpirun themselves. */
#include "../../tests/pipeline/lc_run.h"
#include "lc_config.h"
#include "lc_coop.h"

TestSuite(mpi, .timeout = 240);

/* mpirun-free: commrun -n nodes PROG MODE, then `want` "<prog> ok:" lines and status 0. */
static void lc_t_mpi(int nodes, const char *prog, const char *mode, int want)
{
	struct lc_t_out o;
	char ok[64];
	lc_t_commrun(&o, nodes, 120, prog, mode, NULL);
	snprintf(ok, sizeof ok, "%s ok:", prog);
	lc_t_expect_ok(&o, ok, want);
	free(o.text);
}

Test(mpi, pingpong_0B_to_16MiB_every_byte_checked)
{
	lc_t_mpi(2, "mpi_pingpong", "check", 2);
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
	free(o.text);
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
	free(o.text);
}

/*
 * Messages above the eager limit go by rendezvous: 3 of them, each twice
 * the unexpected budget, arrive before rank 0 receives them in reverse
 * order (eager, the first would hold the NIC at the budget and the job
 * would hang: the envelope's head-of-line limit), then the exchange,
 * probe, truncation, Ssend and freed-request cases (progs/mpi_p2p.c).
 */
Test(mpi, large_messages_go_by_rendezvous)
{
	unsigned long long n = 2ull * LC_HOST_UNEXPECTED_BYTES;
	char arg[32], ok[] = "mpi_p2p ok:";
	struct lc_t_out o;
	snprintf(arg, sizeof arg, "%llu", n < (16u << 20) ? (n > 4096 ? n : 4096) : (16u << 20));
	lc_t_commrun(&o, 4, 120, "mpi_p2p", "large", arg, NULL);
	lc_t_expect_ok(&o, ok, 4);
	free(o.text);
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
	free(o.text);
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
	struct lc_t_out o;
	char crun[512], pp[512];
	lc_t_path(crun, sizeof crun, "bin/commrun");
	lc_t_path(pp, sizeof pp, "tests/progs/mpi_p2p");
	char *argv[] = { crun, "--show-job", "--timeout", "90", "--faults", "drop=0.02,seed=3",
			 "-n", "2", pp, "ssend", NULL };
	lc_t_exec(&o, argv, NULL);
	cr_assert(!lc_t_seg_exists(o.job), "segment left behind");
	cr_assert(o.status != 124, "the job hung (a lost ack?); output:\n%s", o.text);
	lc_t_expect_ok(&o, "mpi_p2p ok:", 2);
	free(o.text);
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
	char *cargv[] = { cc, "-O2", "-o", exe, src, NULL };
	lc_t_exec(&o, cargv, NULL);
	cr_assert_eq(o.status, 0, "mpicc failed:\n%s", o.text);
	free(o.text);
	char *rargv[] = { run, "-n", "2", "--timeout", "60", exe, "check", "65536", NULL };
	lc_t_exec(&o, rargv, NULL);
	unlink(exe);
	lc_t_expect_ok(&o, "mpi_pingpong ok:", 2);
	free(o.text);
}

/*
 * A public ping-pong program with a byte-integrity mode, built unmodified:
 * NetPIPE 3.7.2 (its Debian source, fetched by tools/thirdparty.py into
 * build/thirdparty/), made with its own makefile's `mpi` target and
 * MPICC=bin/mpicc, run with -i (every message checked) from 1 B to 4 MiB,
 * optionally under faults.  Skipped, with the reason, when the source was
 * not fetched.
 */
static void lc_t_netpipe(const char *faults, const char *upto, const char *last)
{
	char tgz[600], dir[64], src[128], cc[512], mpicc[600], np[160], outf[128], crun[512];
	struct lc_t_out o;
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
	free(o.text);
	char *make[] = { "/usr/bin/make", "-C", src, "mpi", mpicc, NULL };
	lc_t_exec(&o, make, NULL);
	cr_assert_eq(o.status, 0, "NetPIPE does not build with bin/mpicc:\n%s", o.text);
	free(o.text);
	char *argv[16];
	int a = 0;
	argv[a++] = crun;
	argv[a++] = "--show-job";
	argv[a++] = "--timeout";
	argv[a++] = "150";
	if (faults) {
		argv[a++] = "--stats";
		argv[a++] = "--faults";
		argv[a++] = (char *)faults;
	}
	char *rest[] = { "-n", "2", np, "-i", "-u", (char *)upto, "-o", outf, NULL };
	for (int i = 0; rest[i]; i++)
		argv[a++] = rest[i];
	argv[a] = NULL;
	lc_t_exec(&o, argv, NULL);
	char *rm[] = { "/usr/bin/rm", "-rf", dir, NULL };
	struct lc_t_out r;
	lc_t_exec(&r, rm, NULL);
	free(r.text);
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
	free(o.text);
}

Test(mpi, netpipe_unmodified_integrity_1B_to_4MiB)
{
	lc_t_netpipe(NULL, "4194304", " 3145729 bytes");
}

#if LC_PC_EXACTLY_ONCE
Test(mpi, netpipe_unmodified_integrity_under_faults)
{
	lc_t_netpipe("drop=0.01,corrupt=0.01,seed=11", "1048576", " 786433 bytes");
}
#else
LC_T_SKIPPED(mpi, netpipe_unmodified_integrity_under_faults,
	     "needs a protocol that provides exactly_once (LC_PC_EXACTLY_ONCE)")
#endif
