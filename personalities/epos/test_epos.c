/* SPDX-License-Identifier: MIT */
/* The EPOS personality end to end: the selected members under commrun, their misuse, and the absent members' cost (nm). */
#include "../../tests/pipeline/lc_run.h"
#include <stdio.h>
#include "lc_config.h"

/*
 * Every config lists the same tests: a test of a member the config did not
 * select is reported skipped (LC_T_SKIPPED) with the macro that decides.
 */
TestSuite(epos, .timeout = 60 * LC_T_SLOWDOWN);

#define EPOS_T_COMMUNICATOR \
	(LC_EPOS_COMMUNICATOR_LINK ? "link" : LC_EPOS_COMMUNICATOR_PORT ? "port" : "mailbox")
#define EPOS_T_CHANNEL (LC_EPOS_CHANNEL_DATAGRAM ? "datagram" : "stream")

/* commrun [opts] -n 2 epos_check MODE [count]: both nodes print "epos_check ok:". */
static void epos_t_check(const char *const *opts, const char *mode, const char *count,
			 const char *ok)
{
	struct lc_t_out o;
	lc_t_commrun_with(&o, opts, 2, 40, "epos_check", mode, count, NULL);
	lc_t_expect_ok(&o, "epos_check ok:", 2);
	if (ok)
		cr_assert(strstr(o.text, ok) != NULL, "no \"%s\" in the output:\n%s", ok, o.text);
	lc_t_out_free(&o);
}

/* The one master/worker source, run with whatever members this config selected. */
Test(epos, master_worker_runs_with_the_selected_members)
{
	struct lc_t_out o;
	char want[128];
	lc_t_commrun(&o, 4, 40, "../../examples/epos/master_worker", "900", NULL);
	lc_t_expect_ok(&o, "master_worker ok:", 4);
	cr_assert(strstr(o.text, "master checked 900 results of 3 workers") != NULL, "output:\n%s",
		  o.text);
	snprintf(want, sizeof want, "(communicator %s, channel %s, network myrinet)",
		 EPOS_T_COMMUNICATOR, EPOS_T_CHANNEL);
	cr_assert_eq(lc_t_count(&o, want), 4, "every node names \"%s\"; output:\n%s", want, o.text);
	lc_t_out_free(&o);
}

#if LC_EPOS_CHANNEL_STREAM
/* 1500 sends of odd sizes (1 .. 1999 B), received with cap 1021: every byte in order. */
Test(epos, stream_delivers_every_byte_in_order_across_boundaries)
{
	epos_t_check(NULL, "stream", "1500", "in order in");
}

/* The receiver does not receive for 400 ms: the sender's first window leaves, then it blocks. */
Test(epos, stream_window_blocks_the_sender_while_the_receiver_sleeps)
{
	epos_t_check(NULL, "window", NULL, "blocked until");
}
#else
LC_T_SKIPPED(epos, stream_delivers_every_byte_in_order_across_boundaries,
	     "the config selects the datagram channel (LC_EPOS_CHANNEL_STREAM 0)")
LC_T_SKIPPED(epos, stream_window_blocks_the_sender_while_the_receiver_sleeps,
	     "the config selects the datagram channel (LC_EPOS_CHANNEL_STREAM 0)")
#endif

#if LC_EPOS_CHANNEL_DATAGRAM
/* 1500 messages of 0 .. 2999 B each arrive whole with their size; a small buffer truncates. */
Test(epos, datagram_keeps_message_boundaries)
{
	epos_t_check(NULL, "datagram", "1500", "received 1501 messages whole");
}
#else
LC_T_SKIPPED(epos, datagram_keeps_message_boundaries,
	     "the config selects the stream channel (LC_EPOS_CHANNEL_DATAGRAM 0)")
#endif

#if LC_PROTO_RELIABILITY
static const char *const epos_t_faults[] = { "--faults", "drop=0.02,corrupt=0.01", NULL };
/* The selected channel on a network that drops and corrupts frames (reliability composed). */
Test(epos, channel_under_drops_and_corruption)
{
#if LC_EPOS_CHANNEL_STREAM
	epos_t_check(epos_t_faults, "stream", "600", "in order in");
#else
	epos_t_check(epos_t_faults, "datagram", "600", "received 601 messages whole");
#endif
}
#else
LC_T_SKIPPED(epos, channel_under_drops_and_corruption,
	     "needs the reliability protocol (LC_PROTO_RELIABILITY)")
#endif

#if LC_EPOS_COMMUNICATOR_LINK
/* A link without a peer, a send to another end-point, plus the misuses every member shares. */
Test(epos, link_misuse_returns_its_codes)
{
	epos_t_check(NULL, "misuse", NULL, "misuse of link/");
}
#else
LC_T_SKIPPED(epos, link_misuse_returns_its_codes,
	     "the config selects another communicator (LC_EPOS_COMMUNICATOR_LINK 0)")
#endif

#if LC_EPOS_COMMUNICATOR_PORT
/* A second receiving thread gets EPOS_ERR_THREAD, the first stays the owner. */
Test(epos, port_misuse_returns_its_codes)
{
	epos_t_check(NULL, "misuse", NULL, "misuse of port/");
}
#else
LC_T_SKIPPED(epos, port_misuse_returns_its_codes,
	     "the config selects another communicator (LC_EPOS_COMMUNICATOR_PORT 0)")
#endif

#if LC_EPOS_COMMUNICATOR_MAILBOX
/* A send to NULL is refused; a second receiving thread is admitted; a blocked receiver does not hold up try_receive. */
Test(epos, mailbox_misuse_returns_its_codes)
{
	epos_t_check(NULL, "misuse", NULL, "misuse of mailbox/");
}

/* Four receiving threads (two blocking, two polling) take 3000 messages (bytes, on a stream): each exactly once. */
Test(epos, mailbox_threads_take_each_message_once)
{
	epos_t_check(NULL, "mailbox", "3000", "once each");
}
#else
LC_T_SKIPPED(epos, mailbox_misuse_returns_its_codes,
	     "the config selects another communicator (LC_EPOS_COMMUNICATOR_MAILBOX 0)")
LC_T_SKIPPED(epos, mailbox_threads_take_each_message_once,
	     "the config selects another communicator (LC_EPOS_COMMUNICATOR_MAILBOX 0)")
#endif

/*
 * An unselected member costs nothing: lib/libepos.a holds no symbol of it
 * (epos_<member>_*), and holds the selected members' symbols.
 */
Test(epos, unselected_members_are_absent_from_the_library)
{
	static const struct {
		const char *prefix;
		int selected;
	} members[] = {
		{ " epos_link_", LC_EPOS_COMMUNICATOR_LINK },
		{ " epos_port_", LC_EPOS_COMMUNICATOR_PORT },
		{ " epos_mailbox_", LC_EPOS_COMMUNICATOR_MAILBOX },
		{ " epos_datagram_", LC_EPOS_CHANNEL_DATAGRAM },
		{ " epos_stream_", LC_EPOS_CHANNEL_STREAM },
	};
	char lib[512];
	snprintf(lib, sizeof lib, "%s/lib/libepos.a", lc_t_build_dir());
	char *argv[] = { "/usr/bin/nm", lib, NULL };
	struct lc_t_out o;
	lc_t_exec(&o, argv, NULL);
	cr_assert_eq(o.status, 0, "nm %s:\n%s", lib, o.text);
	for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
		int n = lc_t_count(&o, members[i].prefix);
		if (members[i].selected)
			cr_assert(n > 0, "selected member: no%s* symbol in %s", members[i].prefix, lib);
		else
			cr_assert_eq(n, 0, "unselected member: %d%s* symbols in %s:\n%s", n,
				     members[i].prefix, lib, o.text);
	}
	lc_t_out_free(&o);
}

/* The benchmark: '#' headers, then "size latency" rows 8 .. 64, every value positive. */
Test(epos, pingpong_prints_latency_rows)
{
	struct lc_t_out o;
	lc_t_commrun(&o, 2, 40, "../../examples/epos/epos_pingpong", "-s", "8:64", "-i", "50", "-w",
		     "5", NULL);
	lc_t_expect_rows(&o, 8, 4);
	lc_t_out_free(&o);
}
