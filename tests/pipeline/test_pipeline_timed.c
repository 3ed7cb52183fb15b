/* SPDX-License-Identifier: MIT */
/*
 * Pipeline test: the timed network end to end (network.link_mbps,
 * network.hop_ns; nic/net.c).  Whatever the host's speed, a message takes at
 * least a hop and its frame's wire time one way, and a stream carries no more
 * than the link's bandwidth: both bounds follow from the model alone (the
 * untimed emulation beats each several times on this machine), so neither
 * depends on the load.  Skipped, with the reason, where the network is
 * untimed.
 */
#include "lc_run.h"
#include "lc_config.h"

TestSuite(pipeline_timed, .timeout = 120 * LC_T_SLOWDOWN);

#define WHY "the network is untimed in this config (network.link_mbps and network.hop_ns 0)"

#if LC_NET_TIMED
/* The value after "[0] <size> " in o's text (the first column of a result row). */
static double row_value(const struct lc_t_out *o, const char *size)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof key, "[0] %s ", size);
	p = strstr(o->text, key);
	cr_assert_not_null(p, "no row for %s; output:\n%s", size, o->text);
	return strtod(p + strlen(key), NULL);
}
#endif

/*
 * The network's part of a message of len bytes one way: a hop (two nodes
 * share a crossbar) and the wire time of all its frames, which follow each
 * other on the links.
 */
#if LC_NET_TIMED
static double network_us(double len)
{
	double frames = len ? (double)(((unsigned long)len + LC_MTU - 1) / LC_MTU) : 1;
	double bytes = len + frames * LC_FRAME_HDR_BYTES;

	return (LC_NET_HOP_NS + (LC_NET_LINK_MBPS ? bytes * 8000.0 / LC_NET_LINK_MBPS : 0)) / 1000.0;
}
#endif

#if LC_NET_TIMED
Test(pipeline_timed, a_message_takes_a_hop_and_its_frames_wire_time)
{
	static const char *sizes[] = { "8", "65536" };
	struct lc_t_out o;
	char prog[512];

	lc_t_path(prog, sizeof prog, "bin/pingpong");
	lc_t_commrun(&o, 2, 60, prog, "-s", "8:65536", "-i", "100", "-w", "10", NULL);
	cr_assert_eq(o.status, 0, "exit status %d; output:\n%s", o.status, o.text);
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		double us = row_value(&o, sizes[i]), floor_us = network_us(strtod(sizes[i], NULL));

		cr_assert_geq(us, floor_us, "%s B one-way %.3f us, below the network's %.3f us", sizes[i],
			      us, floor_us);
		cr_log_info("%s B one-way %.3f us, the network's part %.3f us", sizes[i], us, floor_us);
	}
	lc_t_out_free(&o);
}
#else
LC_T_SKIPPED(pipeline_timed, a_message_takes_a_hop_and_its_frames_wire_time, WHY)
#endif

#if LC_NET_TIMED
Test(pipeline_timed, a_stream_carries_no_more_than_the_link)
{
	struct lc_t_out o;
	char prog[512];
	double mbs, link = LC_NET_LINK_MBPS / 8.0;    /* MB/s (10^6 bytes), headers not counted */

	if (!LC_NET_LINK_MBPS)
		cr_skip_test("the links are untimed in this config (network.link_mbps 0): no bandwidth to bound");
	lc_t_path(prog, sizeof prog, "bin/stream");
	lc_t_commrun(&o, 2, 90, prog, "-s", "1M:1M", "-i", "2", "-w", "1", NULL);
	cr_assert_eq(o.status, 0, "exit status %d; output:\n%s", o.status, o.text);
	mbs = row_value(&o, "1048576");
	cr_assert_leq(mbs, link, "%.1f MB/s through a %.1f MB/s link", mbs, link);
	cr_log_info("1 MiB stream %.1f MB/s, the link %.1f MB/s", mbs, link);
	lc_t_out_free(&o);
}
#else
LC_T_SKIPPED(pipeline_timed, a_stream_carries_no_more_than_the_link, WHY)
#endif

/*
 * commrun --network sets another network at run time: the same 8 KiB ping-pong on 100 Mb/s
 * links and 20 us switches takes at least that network's hop and wire time, which the
 * config's own network beats several times (a run that ignored the option would be fast).
 */
#if LC_NET_TIMED
Test(pipeline_timed, a_network_set_at_run_time_times_the_frames)
{
	static const char *const slow[] = { "--network", "link_mbps=100,hop_ns=20000", NULL };
	struct lc_t_out o;
	char prog[512];
	double us, floor_us = (20000.0 + (8192.0 + LC_FRAME_HDR_BYTES) * 8000.0 / 100) / 1000.0;

	lc_t_path(prog, sizeof prog, "bin/pingpong");
	lc_t_commrun_with(&o, slow, 2, 60, prog, "-s", "8192:8192", "-i", "20", "-w", "2", NULL);
	cr_assert_eq(o.status, 0, "exit status %d; output:\n%s", o.status, o.text);
	us = row_value(&o, "8192");
	cr_assert_geq(us, floor_us, "8 KiB one-way %.1f us on the slower network, below its %.1f us",
		      us, floor_us);
	lc_t_out_free(&o);
	cr_assert_lt(network_us(8192), floor_us / 4, "the config's own network is not faster: the test "
		     "would not tell the option from the config");
}
#else
LC_T_SKIPPED(pipeline_timed, a_network_set_at_run_time_times_the_frames, WHY)
#endif
