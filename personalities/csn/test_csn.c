/* SPDX-License-Identifier: MIT */
/* The CSN personality end to end: every call, the seed's examples from their spec files, libcsn programs. */
#include "../../tests/pipeline/lc_run.h"
#include "lc_config.h"
#include "lc_coop.h"

/*
 * The seed's programs and the libcsn ones (hello, the filter pipeline with
 * 1, 2 and 4 buffers, the libcsn sink, manager/workers from a spec file)
 * and csn_test's flags, names and errors run on every config; a smoke run
 * (lc_t_smoke: tests/smoke.py) runs the benchmarks with fewer iterations.
 */
TestSuite(csn, .timeout = 60 * LC_T_SLOWDOWN);

/* Run commrun --show-job --timeout T [extra...] (argv of the job after it); check it ended and left nothing. */
static void csn_t_run(struct lc_t_out *o, int timeout_s, const char *const *extra)
{
	char crun[512], t[16];
	char *argv[40];
	int a = 0;
	lc_t_path(crun, sizeof crun, "bin/commrun");
	snprintf(t, sizeof t, "%d", timeout_s);
	argv[a++] = crun;
	argv[a++] = "--show-job";
	argv[a++] = "--timeout";
	argv[a++] = t;
	for (; *extra && a < 39; extra++)
		argv[a++] = (char *)*extra;
	argv[a] = NULL;
	lc_t_exec_job(o, argv, timeout_s);
}

/* commrun [--faults F] --spec <build>/<spec>; the job prints each of want[] once. */
static void csn_t_spec(const char *spec, const char *faults, const char *const *want)
{
	char path[512];
	struct lc_t_out o;
	snprintf(path, sizeof path, "%s/%s", lc_t_build_dir(), spec);
	cr_assert(access(path, R_OK) == 0, "%s is missing: build it first (scons)", path);
	const char *extra[] = { faults ? "--faults" : "--spec", faults ? faults : path,
				"--spec", path, NULL };
	csn_t_run(&o, 60, faults ? extra : extra + 2);
	for (; *want; want++)
		lc_t_expect_ok(&o, *want, 1);
	lc_t_out_free(&o);
}

/* commrun -n 2 csn_calls MODE: both nodes end with "csn_calls ok: MODE". */
static void csn_t_calls(const char *mode)
{
	struct lc_t_out o;
	char ok[64];
	lc_t_commrun(&o, 2, 30, "csn_calls", mode, NULL);
	snprintf(ok, sizeof ok, "csn_calls ok: %s", mode);
	lc_t_expect_ok(&o, ok, 2);
	lc_t_out_free(&o);
}

Test(csn, hello_world_from_hello_spec)
{
	static const char *const want[] = { "sink received string: Hello world",
					     "hello_sink ok: 12 bytes from {2,1}",
					     "hello_source ok:", NULL };
	csn_t_spec("examples/csn/hello.spec", NULL, want);
}

static const char *const csn_t_pipe_ok[] = {
	"source ok: 500 messages of 16384 bytes sent",
	"sink ok: 500 messages of 16384 bytes, every byte checked", NULL
};

Test(csn, filter_pipeline_1_buffer_every_byte)
{
	csn_t_spec("examples/csn/filter1.spec", NULL, csn_t_pipe_ok);
}

Test(csn, filter_pipeline_2_buffers_every_byte)
{
	csn_t_spec("examples/csn/filter2.spec", NULL, csn_t_pipe_ok);
}

Test(csn, filter_pipeline_4_buffers_every_byte)
{
	csn_t_spec("examples/csn/filter4.spec", NULL, csn_t_pipe_ok);
}

/* csn_test per flag, order, timeouts 0 / 30 ms / infinite; netid receives; overrun; loopback */
Test(csn, test_flags_order_timeouts_and_rx_by_netid)
{
	csn_t_calls("flags");
}

/* lookups waiting for a registration and timing out; duplicates; names going with transports */
Test(csn, names_wait_time_out_duplicate_and_gone)
{
	csn_t_calls("names");
}

Test(csn, bad_transports_netids_and_arguments)
{
	csn_t_calls("errors");
}

/* 200 timed tests of 200 us: none returns before its timeout (a deadline in whole us did) */
Test(csn, timed_tests_never_return_early)
{
	csn_t_calls("timeouts");
}

/* progs/libcsn_sink (written for libcsn) with the hello source, a two-program job */
Test(csn, libcsn_sink_in_a_two_program_job)
{
	char sink[512], src[512];
	struct lc_t_out o;
	lc_t_path(sink, sizeof sink, "tests/progs/libcsn_sink");
	lc_t_path(src, sizeof src, "examples/csn/hello_source");
	const char *extra[] = { "-n", "1", sink, ":", "-n", "1", src, NULL };
	csn_t_run(&o, 30, extra);
	lc_t_expect_ok(&o, "sink has received: Hello world (12 bytes)", 1);
	lc_t_out_free(&o);
}

/*
 * legacy/manager.c and worker.c (written for libcsn; int * for
 * actualReceived) built from source with bin/csncc, run by their spec file.
 */
Test(csn, manager_worker_built_with_csncc_from_a_spec_file)
{
	char cc[512], dir[64], exe[2][128], src[2][600], spec[128], from[600];
	static const char *const prog[] = { "manager", "worker" };
	struct lc_t_out o;
	lc_t_path(cc, sizeof cc, "bin/csncc");
	snprintf(dir, sizeof dir, "/tmp/lc_t_csn.%d", (int)getpid());
	cr_assert(mkdir(dir, 0700) == 0, "mkdir %s: %s", dir, strerror(errno));
	for (int i = 0; i < 2; i++) {
		snprintf(src[i], sizeof src[i], "%s/../../personalities/csn/legacy/%s.c",
			 lc_t_build_dir(), prog[i]);
		snprintf(exe[i], sizeof exe[i], "%s/%s", dir, prog[i]);
		/* csncc adds what a debug build's sanitized libraries need (csn.pc, @SANITIZE@) */
		char *cargv[] = { cc, LC_T_CC_OPT, "-o", exe[i], src[i], NULL };
		lc_t_exec(&o, cargv, NULL);
		cr_assert_eq(o.status, 0, "csncc %s failed:\n%s", prog[i], o.text);
		lc_t_out_free(&o);
	}
	snprintf(from, sizeof from, "%s/../../personalities/csn/legacy/manager_worker.spec",
		 lc_t_build_dir());
	snprintf(spec, sizeof spec, "%s/manager_worker.spec", dir);
	char *cp[] = { "/bin/cp", from, spec, NULL };
	lc_t_exec(&o, cp, NULL);
	cr_assert_eq(o.status, 0, "cp:\n%s", o.text);
	lc_t_out_free(&o);
	const char *extra[] = { "--spec", spec, NULL };
	csn_t_run(&o, 30, extra);
	unlink(exe[0]);
	unlink(exe[1]);
	unlink(spec);
	rmdir(dir);
	lc_t_expect_ok(&o, "manager ok: 3 workers answered", 1);
	for (int i = 1; i <= 3; i++) {
		char w[32];
		snprintf(w, sizeof w, "worker%d of 3 ok", i);
		lc_t_expect_ok(&o, w, 1);
	}
	lc_t_out_free(&o);
}

/* the benchmarks, short: each checks what it receives and says ok */
Test(csn, pingpong_and_stream_benchmarks_check_their_data)
{
	struct lc_t_out o;
	char pp[512], st[512];
	lc_t_path(pp, sizeof pp, "examples/csn/csn_pingpong");
	lc_t_path(st, sizeof st, "examples/csn/csn_stream");
	/* from 1 B, as the benchmark matrix runs them: the message number fits sizes 1 .. 4 too */
	lc_t_commrun(&o, 2, 30, pp, "1", "16384", LC_T_N("50", "20"), NULL);
	lc_t_expect_ok(&o, "csn_pingpong ok:", 2);
	cr_assert(strstr(o.text, "# Size  Latency (us)") && strstr(o.text, "16384 "), "output:\n%s",
		  o.text);
	lc_t_out_free(&o);
	lc_t_commrun(&o, 2, 30, st, "1", "16384", "16", LC_T_N("2", "1"), NULL);
	lc_t_expect_ok(&o, "csn_stream ok:", 2);
	cr_assert(strstr(o.text, "# Size  MB/s") && strstr(o.text, "16384 "), "output:\n%s", o.text);
	lc_t_out_free(&o);
}

#if LC_PC_EXACTLY_ONCE
/* 2% of frames dropped on every link: the reliability protocol delivers every byte, in order */
Test(csn, filter_pipeline_under_faults)
{
	csn_t_spec("examples/csn/filter2.spec", "drop=0.02,seed=11", csn_t_pipe_ok);
}
#else
LC_T_SKIPPED(csn, filter_pipeline_under_faults,
	     "needs a protocol that provides exactly_once (LC_PC_EXACTLY_ONCE)")
#endif
