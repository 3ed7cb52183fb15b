/* SPDX-License-Identifier: MIT */
/* Unit tests of the public API without a peer: names, error texts, misuse, open/close. */
#define _GNU_SOURCE        /* RTLD_DEFAULT */

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "fake_nic.h"
#include "geom.h"
#include "node.h"          /* limit_ns: the limit the node runs with */

static void env_fake(const char *node, const char *nodes)
{
	setenv("LC_JOB", "fake", 1);
	setenv("LC_NODE", node, 1);
	setenv("LC_NODES", nodes, 1);
}

TestSuite(api, .timeout = 20);

/*
 * Each suite's processes find tests/criterion_nocerts.c's definition before
 * libmbedx509's: Criterion's libgit2 parses no CA bundle at a test's start.
 */
int mbedtls_x509_crt_parse_file(void *chain, const char *path);

Test(api, the_suites_parse_no_ca_bundle)
{
	void *found = dlsym(RTLD_DEFAULT, "mbedtls_x509_crt_parse_file");

	cr_assert_eq(found, (void *)mbedtls_x509_crt_parse_file,
		     "mbedtls_x509_crt_parse_file resolves to %p, not the suite's own %p",
		     found, (void *)mbedtls_x509_crt_parse_file);
	cr_assert_eq(mbedtls_x509_crt_parse_file(NULL, "/etc/ssl/certs/ca-certificates.crt"), -0x2900);
}

Test(api, strerror_covers_every_code)
{
#define LC_X_CHECK(name, value, text) cr_expect_str_eq(lc_strerror(name), text, #name);
	LC_ERROR_LIST(LC_X_CHECK)
#undef LC_X_CHECK
	cr_expect_str_eq(lc_strerror(-1000), "unknown error");
	cr_expect_str_eq(lc_strerror(1), "unknown error");
}

Test(api, stat_names_are_unique_and_bounded)
{
	int i, j;

	for (i = 0; i < LC_STAT_COUNT; i++) {
		cr_assert_not_null(lc_stat_name(i), "counter %d has no name", i);
		for (j = 0; j < i; j++)
			cr_expect_str_neq(lc_stat_name(i), lc_stat_name(j));
	}
	cr_expect_null(lc_stat_name(-1));
	cr_expect_null(lc_stat_name(LC_STAT_COUNT));
	cr_expect_str_eq(lc_stat_name(LC_STAT_tx_msgs), "tx_msgs");
	cr_expect_str_eq(lc_stat_name(LC_STAT_doorbells), "doorbells");
}

Test(api, open_without_env_says_commrun)
{
	lc_node *n = (lc_node *)1;

	unsetenv("LC_JOB");
	unsetenv("LC_NODE");
	unsetenv("LC_NODES");
	cr_assert_eq(lc_open(&n), LC_ERR_INVAL);
	cr_expect_null(n);
	cr_expect_not_null(strstr(lc_last_error(NULL), "commrun"), "%s", lc_last_error(NULL));
	cr_expect_not_null(strstr(lc_last_error(NULL), "LC_JOB"));
	cr_expect_eq(lc_open(NULL), LC_ERR_INVAL);
}

Test(api, open_env_checks)
{
	lc_node *n;

	env_fake("2", "2");
	cr_expect_eq(lc_open(&n), LC_ERR_RANGE);
	cr_expect_not_null(strstr(lc_last_error(NULL), "LC_NODE=2 out of range 0..1"), "%s",
			   lc_last_error(NULL));
	env_fake("x1", "2");
	cr_expect_eq(lc_open(&n), LC_ERR_INVAL);
	env_fake("0", "0");
	cr_expect_eq(lc_open(&n), LC_ERR_RANGE);
	env_fake("0", "257");
	cr_expect_eq(lc_open(&n), LC_ERR_RANGE);
	setenv("LC_JOB", "no-such-job", 1);
	setenv("LC_NODES", "2", 1);
	cr_expect_eq(lc_open(&n), LC_ERR_CONFIG);
	cr_expect_not_null(strstr(lc_last_error(NULL), "no such job"), "%s", lc_last_error(NULL));
	cr_expect_eq(lc_fake_attached(), 0);
}

/* LC_LINK_ENGINE overrides nic.link_engine for the process; a wrong value opens nothing and says why. */
/* var=v in the environment, or var unset when v is NULL. */
static void env_put(const char *var, const char *v)
{
	if (v)
		setenv(var, v, 1);
	else
		unsetenv(var);
}

/* lc_open refuses var=value with LC_ERR_INVAL and the text why, attaching nothing; var unset after. */
static void env_refused(const char *var, const char *value, const char *why)
{
	lc_node *n;

	setenv(var, value, 1);
	cr_expect_eq(lc_open(&n), LC_ERR_INVAL, "%s=%s", var, value);
	cr_expect_str_eq(lc_last_error(NULL), why);
	cr_expect_eq(lc_fake_attached(), 0, "nothing attached");
	unsetenv(var);
}

Test(api, link_engine_from_the_config_or_the_environment)
{
	static const struct { const char *v; int pull; } run[] = {
		{ NULL, LC_NIC_LINK_ENGINE_EITHER }, { "", LC_NIC_LINK_ENGINE_EITHER },
		{ "either", 1 }, { "sender", 0 },
	};
	lc_node *n;

	env_fake("0", "2");
	for (size_t i = 0; i < sizeof run / sizeof run[0]; i++) {
		env_put("LC_LINK_ENGINE", run[i].v);
		cr_assert_eq(lc_open(&n), 0, "%s", lc_last_error(NULL));
		cr_expect_eq(lc_fake_geom_pull(), run[i].pull, "LC_LINK_ENGINE=%s", run[i].v ? run[i].v : "(unset)");
		cr_assert_eq(lc_close(n), 0);
	}
	env_refused("LC_LINK_ENGINE", "receiver", "LC_LINK_ENGINE=receiver: not \"sender\" or \"either\"");
}

/*
 * LC_BACKPRESSURE_US: the job's backpressure limit instead of the config's, in
 * the geometry (so that a segment refuses a node run with another) and in the
 * node; anything but 1 .. 3600000000 us refused with its reason.
 */
Test(api, backpressure_limit_from_the_environment)
{
	static const struct { const char *v; uint64_t ns; } ok[] = {
		{ NULL, (uint64_t)LC_BACKPRESSURE_TIMEOUT_US * 1000u }, { "", (uint64_t)LC_BACKPRESSURE_TIMEOUT_US * 1000u },
		{ "1", 1000u }, { "100000", 100000000u }, { "3600000000", 3600000000000ull },
	};
	static const char *const bad[] = { "0", "-5", "3600000001", "1e5", "12ms", "99999999999999999999999" };
	struct lc_nic_geom g;
	lc_node *n;
	char why[160];

	env_fake("0", "2");
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		env_put("LC_BACKPRESSURE_US", ok[i].v);
		cr_expect_eq(lc_backpressure_ns(), ok[i].ns, "LC_BACKPRESSURE_US=%s", ok[i].v ? ok[i].v : "(unset)");
		cr_assert_eq(lc_geom_from_config(&g, 2), 0);
		cr_expect_eq(g.backpressure_timeout_ns, ok[i].ns);
		cr_assert_eq(lc_open(&n), 0, "%s", lc_last_error(NULL));
		cr_expect_eq(n->limit_ns, ok[i].ns, "the node runs with the job's limit");
		cr_assert_eq(lc_close(n), 0);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		setenv("LC_BACKPRESSURE_US", bad[i], 1);
		cr_expect_eq(lc_backpressure_ns(), 0, "LC_BACKPRESSURE_US=%s", bad[i]);
		cr_expect_eq(lc_geom_from_config(&g, 2), LC_ERR_CONFIG, "LC_BACKPRESSURE_US=%s", bad[i]);
		snprintf(why, sizeof why, LC_BACKPRESSURE_US_WHY, bad[i]);
		env_refused("LC_BACKPRESSURE_US", bad[i], why);
	}
}

/* LC_HOLD_SENDS: 1 or 0 (what it changes: test_rel_e2e, relhold), anything else refused with its reason. */
Test(api, hold_sends_from_the_environment)
{
	static const char *const ok[] = { "1", "0", "" };
	lc_node *n;

	env_fake("0", "2");
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		setenv("LC_HOLD_SENDS", ok[i], 1);
		cr_assert_eq(lc_open(&n), 0, "LC_HOLD_SENDS=%s: %s", ok[i], lc_last_error(NULL));
		cr_assert_eq(lc_close(n), 0);
	}
	env_refused("LC_HOLD_SENDS", "yes", "LC_HOLD_SENDS=yes: not 1 or 0");
}

Test(api, null_and_foreign_node)
{
	lc_req *r;
	int x = 0, done;
	uint64_t st[LC_STAT_COUNT];

	cr_expect_eq(lc_rank(NULL), LC_ERR_INVAL);
	cr_expect_eq(lc_size(NULL), LC_ERR_INVAL);
	cr_expect_eq(lc_send(NULL, 0, &x, 4), LC_ERR_INVAL);
	cr_expect_eq(lc_recv(NULL, 0, &x, 4, NULL), LC_ERR_INVAL);
	cr_expect_eq(lc_isend(NULL, 0, &x, 4, &r), LC_ERR_INVAL);
	cr_expect_eq(lc_irecv(NULL, 0, &x, 4, &r), LC_ERR_INVAL);
	cr_expect_eq(lc_test(NULL, NULL, &done, NULL), LC_ERR_INVAL);
	cr_expect_eq(lc_wait(NULL, NULL, NULL), LC_ERR_INVAL);
	cr_expect_eq(lc_progress(NULL), LC_ERR_INVAL);
	cr_expect_eq(lc_stats(NULL, st), LC_ERR_INVAL);
	cr_expect_eq(lc_close(NULL), LC_ERR_INVAL);
	cr_expect_eq(lc_rank((lc_node *)&x), LC_ERR_INVAL);
	cr_expect_not_null(strstr(lc_last_error(NULL), "lc_rank"));
	cr_expect_str_eq(lc_config_name(), LC_CONFIG_NAME);
}

Test(api, misuse_on_open_node)
{
	lc_node *n;
	lc_req *r;
	char b[8];

	env_fake("1", "4");
	cr_assert_eq(lc_open(&n), 0, "%s", lc_last_error(NULL));
	cr_expect_eq(lc_rank(n), 1);
	cr_expect_eq(lc_size(n), 4);
	cr_expect_eq(lc_isend(n, 7, b, 8, &r), LC_ERR_RANGE);
	cr_expect_str_eq(lc_last_error(n), "lc_isend: node 7 out of range 0..3");
	cr_expect_eq(lc_isend(n, -1, b, 8, &r), LC_ERR_RANGE);
	cr_expect_eq(lc_irecv(n, 4, b, 8, &r), LC_ERR_RANGE);
	cr_expect_eq(lc_irecv(n, -2, b, 8, &r), LC_ERR_RANGE);
	cr_expect_eq(lc_isend(n, 0, NULL, 8, &r), LC_ERR_INVAL);
	cr_expect_eq(lc_irecv(n, 0, NULL, 8, &r), LC_ERR_INVAL);
	cr_expect_eq(lc_isend(n, 0, b, 8, NULL), LC_ERR_INVAL);
	cr_expect_eq(lc_irecv(n, 0, b, 8, NULL), LC_ERR_INVAL);
	cr_expect_eq(lc_isend(n, 0, b, LC_MAX_MSG + (size_t)1, &r), LC_ERR_TOOBIG);
	cr_expect_eq(lc_wait(n, NULL, NULL), LC_ERR_INVAL);
	cr_expect_eq(lc_wait(n, (lc_req *)b, NULL), LC_ERR_INVAL);
	cr_expect_eq(lc_test(n, (lc_req *)b, NULL, NULL), LC_ERR_INVAL);
	/* NULL buffer is fine with zero length */
	cr_expect_eq(lc_isend(n, 0, NULL, 0, &r), 0);
	lc_node *n2 = n;
	cr_expect_eq(lc_open(&n2), LC_ERR_BUSY);
	cr_expect_null(n2);
	/*
	 * node 0 exists only as the fake's wire: nothing acknowledges the 0-byte
	 * send, and a protocol's drain at close would wait for its give-up time
	 * (as lc_fake_close, fake_nic.h)
	 */
	lc_fake_set_alive(0, 0);
	cr_expect_eq(lc_close(n), 0, "%s", lc_last_error(n));
}

Test(api, calls_after_close)
{
	lc_node *n;
	lc_req *r;
	int x = 0, done;
	uint64_t st[LC_STAT_COUNT];

	env_fake("0", "2");
	cr_assert_eq(lc_open(&n), 0, "%s", lc_last_error(NULL));
	cr_assert_eq(lc_close(n), 0);
	cr_expect_eq(lc_fake_attached(), 0);
	cr_expect_eq(lc_rank(n), LC_ERR_CLOSED);
	cr_expect_eq(lc_size(n), LC_ERR_CLOSED);
	cr_expect_eq(lc_send(n, 1, &x, 4), LC_ERR_CLOSED);
	cr_expect_eq(lc_recv(n, 1, &x, 4, NULL), LC_ERR_CLOSED);
	cr_expect_eq(lc_isend(n, 1, &x, 4, &r), LC_ERR_CLOSED);
	cr_expect_eq(lc_irecv(n, 1, &x, 4, &r), LC_ERR_CLOSED);
	cr_expect_eq(lc_test(n, NULL, &done, NULL), LC_ERR_CLOSED);
	cr_expect_eq(lc_progress(n), LC_ERR_CLOSED);
	cr_expect_eq(lc_stats(n, st), LC_ERR_CLOSED);
	cr_expect_eq(lc_close(n), LC_ERR_CLOSED);
	cr_expect_not_null(strstr(lc_last_error(n), "closed"));
	/* a node may be opened again after close */
	cr_expect_eq(lc_open(&n), 0);
	cr_expect_eq(lc_close(n), 0);
}

Test(api, geometry_from_config)
{
	struct lc_nic_geom g;

	unsetenv("LC_BACKPRESSURE_US");
	cr_assert_eq(lc_geom_from_config(&g, 3), 0);
	cr_expect_eq(g.nodes, 3);
	cr_expect_eq(g.mtu, LC_MTU);
	cr_expect_eq(g.hdr_bytes, sizeof(struct lc_frame_hdr));
	cr_expect_eq(g.slot_bytes, LC_NIC_SLOT_BYTES);
	cr_expect_geq(g.slot_bytes, LC_NIC_RECV_WORD_BYTES + g.hdr_bytes + g.mtu);
	cr_expect_eq(g.send_ring, LC_NIC_SEND_RING);
	cr_expect_eq(g.off_rx_fifo, LC_NIC_OFF_RX_FIFO);
	cr_expect_eq(g.staging_slots, LC_HOST_STAGING_SLOTS);
	cr_expect_eq(g.fingerprint, LC_CONFIG_FINGERPRINT);
	cr_expect_eq(g.backpressure_timeout_ns, (uint64_t)LC_BACKPRESSURE_TIMEOUT_US * 1000);
	cr_expect_eq(g.mcp_thread, LC_NIC_MCP_THREAD);
	cr_expect_eq(lc_geom_from_config(&g, 0), LC_ERR_RANGE);
	cr_expect_eq(lc_geom_from_config(&g, LC_MAX_NODES), 0);
	cr_expect_eq(lc_geom_from_config(&g, LC_MAX_NODES + 1), LC_ERR_RANGE);
	cr_expect_eq(lc_geom_from_config(NULL, 2), LC_ERR_INVAL);
}

/* The name service's checks and answers, on the fake NIC's table. */
Test(api, names_register_lookup_and_errors)
{
	lc_node *n;
	int at = -1;
	uint32_t port = 0;
	char longname[LC_NAME_MAX + 1];

	env_fake("1", "3");
	cr_assert_eq(lc_open(&n), 0, "%s", lc_last_error(NULL));
	cr_expect_eq(lc_name_register(n, "sink", 7), 0, "%s", lc_last_error(n));
	cr_expect_eq(lc_name_lookup(n, "sink", 0, &at, &port), 0, "%s", lc_last_error(n));
	cr_expect_eq(at, 1);
	cr_expect_eq(port, 7u);
	/* a duplicate, ours or another node's */
	cr_expect_eq(lc_name_register(n, "sink", 8), LC_ERR_BUSY);
	cr_expect_str_eq(lc_last_error(n), "lc_name_register: \"sink\" is registered already, by node 1");
	cr_expect_eq(lc_fake_name_put(2, "filter", 3), 0);
	cr_expect_eq(lc_name_register(n, "filter", 1), LC_ERR_BUSY);
	cr_expect_eq(lc_name_unregister(n, "filter"), LC_ERR_INVAL);
	cr_expect_not_null(strstr(lc_last_error(n), "belongs to node 2"), "%s", lc_last_error(n));
	cr_expect_eq(lc_name_unregister(n, "nobody"), LC_ERR_INVAL);
	cr_expect_not_null(strstr(lc_last_error(n), "not registered"), "%s", lc_last_error(n));
	/* bad names: NULL, empty, a space, a control byte, LC_NAME_MAX bytes */
	cr_expect_eq(lc_name_register(n, NULL, 0), LC_ERR_INVAL);
	cr_expect_eq(lc_name_register(n, "", 0), LC_ERR_INVAL);
	cr_expect_eq(lc_name_register(n, "a b", 0), LC_ERR_INVAL);
	cr_expect_eq(lc_name_lookup(n, "a\tb", 0, NULL, NULL), LC_ERR_INVAL);
	memset(longname, 'x', LC_NAME_MAX);
	longname[LC_NAME_MAX] = '\0';
	cr_expect_eq(lc_name_register(n, longname, 0), LC_ERR_INVAL);
	longname[LC_NAME_MAX - 1] = '\0';       /* LC_NAME_MAX - 1 characters: the longest name */
	cr_expect_eq(lc_name_register(n, longname, 0), 0, "%s", lc_last_error(n));
	/* unknown: polled, then with a short timeout (it waits, then says so) */
	cr_expect_eq(lc_name_lookup(n, "nobody", 0, &at, NULL), LC_ERR_TIMEOUT);
	cr_expect_eq(lc_name_lookup(n, "nobody", 30000, &at, NULL), LC_ERR_TIMEOUT);
	cr_expect_not_null(strstr(lc_last_error(n), "within 30000 us"), "%s", lc_last_error(n));
	/* unregister, then the name is free again */
	cr_expect_eq(lc_name_unregister(n, "sink"), 0, "%s", lc_last_error(n));
	cr_expect_eq(lc_name_lookup(n, "sink", 0, NULL, NULL), LC_ERR_TIMEOUT);
	/* a dead node's names go with it; with every peer gone a wait for ever ends */
	lc_fake_set_alive(2, 0);
	cr_expect_eq(lc_name_lookup(n, "filter", 0, NULL, NULL), LC_ERR_TIMEOUT);
	cr_expect_eq(lc_name_register(n, "filter", 9), 0, "%s", lc_last_error(n));
	lc_fake_set_alive(0, 0);
	cr_expect_eq(lc_name_lookup(n, "nobody", LC_NAME_FOREVER, NULL, NULL), LC_ERR_PEER_DEAD);
	cr_expect_eq(lc_close(n), 0);
	cr_expect_eq(lc_name_register(n, "late", 0), LC_ERR_CLOSED);
	cr_expect_eq(lc_name_lookup(n, "filter", 0, NULL, NULL), LC_ERR_CLOSED);
}
