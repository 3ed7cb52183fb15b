/* SPDX-License-Identifier: MIT */
/* The generated composite of tests/gen/composite: call order, verdict folding, dummies, header layout. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <string.h>

#include "lc_config.h"
#include "lc_protocols.h"
#include "lc_frame_hdr.h"
#include "lc_proto_state.h"
#include "lc_composite_host.h"
#include "lc_composite_nic.h"

char lc_test_trace[64];
int lc_test_ret_alpha;
int lc_test_ret_beta;

static void reset(void)
{
	lc_test_trace[0] = '\0';
	lc_test_ret_alpha = 0;
	lc_test_ret_beta = 0;
}

TestSuite(composite, .init = reset);

/*
 * Table rows: what alpha and beta return, the composite's result, the calls
 * made.  send_frame folds "verdict_reverse": beta (order after alpha) first.
 */
static const struct {
	int alpha, beta, want;
	const char *trace;
} verdict_rows[] = {
	{ LC_CONTINUE, LC_CONTINUE, LC_CONTINUE, "bsas" },
	{ LC_DROP, LC_CONTINUE, LC_DROP, "bsas" },
	{ LC_CONTINUE, LC_RETRY, LC_RETRY, "bs" },
	{ LC_CONSUMED, LC_DROP, LC_DROP, "bs" },
	{ LC_CONSUMED, LC_CONTINUE, LC_CONSUMED, "bsas" },
};

Test(composite, verdict_reverse_stops_at_first_non_continue_in_reverse_order)
{
	for (size_t i = 0; i < sizeof(verdict_rows) / sizeof(verdict_rows[0]); i++) {
		reset();
		lc_test_ret_alpha = verdict_rows[i].alpha;
		lc_test_ret_beta = verdict_rows[i].beta;
		struct lc_frame_hdr h = { .magic = LC_FRAME_MAGIC };
		lc_verdict v = lc_pc_send_frame(NULL, &h, NULL);
		cr_expect_eq((int)v, verdict_rows[i].want, "row %zu", i);
		cr_expect_str_eq(lc_test_trace, verdict_rows[i].trace, "row %zu", i);
	}
}

Test(composite, status_stops_at_first_error)
{
	cr_expect_eq(lc_pc_init(NULL), 0);
	cr_expect_str_eq(lc_test_trace, "aibi");
	reset();
	lc_test_ret_alpha = -7;
	lc_test_ret_beta = -3;
	cr_expect_eq(lc_pc_init(NULL), -7);
	cr_expect_str_eq(lc_test_trace, "ai");
	reset();
	lc_test_ret_beta = -3;
	cr_expect_eq(lc_pc_init(NULL), -3);
	cr_expect_str_eq(lc_test_trace, "aibi");
}

Test(composite, all_in_order_and_reverse)
{
	lc_pc_poll(NULL, 5);
	cr_expect_str_eq(lc_test_trace, "apbp");
	reset();
	lc_pc_fini(NULL);
	cr_expect_str_eq(lc_test_trace, "bfaf");
}

Test(composite, pointcuts_nobody_implements_are_neutral)
{
	cr_expect_eq((int)lc_pc_send_msg(NULL, NULL), LC_CONTINUE);
	cr_expect_eq((int)lc_pc_recv_frame(NULL, NULL, NULL), LC_CONTINUE);
	cr_expect_eq((int)lc_pc_nic_rx(NULL, NULL), LC_CONTINUE);
	cr_expect_str_eq(lc_test_trace, "");
	lc_test_ret_beta = LC_DROP;
	cr_expect_eq((int)lc_pc_nic_tx(NULL, NULL), LC_DROP);
	cr_expect_str_eq(lc_test_trace, "bt");
}

Test(composite, reference_values)
{
	cr_expect_eq(LC_PC_REF_init, 0);
	cr_expect_eq((int)LC_PC_REF_send_frame, LC_CONTINUE);
	cr_expect_eq((int)LC_PC_REF_nic_tx, LC_CONTINUE);
	LC_PC_REF_poll;
}

#define NAME_OF(name, ...) #name,
static const char *const active_names[] = { LC_ACTIVE_PROTOCOLS(NAME_OF) };
static const char *const all_names[] = { LC_ALL_PROTOCOLS(NAME_OF) };
#undef NAME_OF

Test(composite, protocol_lists_in_composition_order)
{
	cr_assert_eq(sizeof(active_names) / sizeof(active_names[0]), 2);
	cr_expect_str_eq(active_names[0], "alpha");
	cr_expect_str_eq(active_names[1], "beta");
	cr_assert_eq(sizeof(all_names) / sizeof(all_names[0]), 3);
	cr_expect_str_eq(all_names[2], "gamma");
	cr_expect_eq(LC_PROTO_ALPHA + LC_PROTO_BETA + LC_PROTO_GAMMA, 2);
	cr_expect_eq(LC_PROTO_GAMMA, 0);
}

Test(composite, parameters)
{
	cr_expect_eq(LC_ALPHA_LEVEL, 3);   /* set by the config */
	cr_expect_eq(LC_ALPHA_FAST, 1);    /* default */
	cr_expect_str_eq(LC_BETA_MODE, "b");
	cr_expect_eq(LC_BETA_MODE_A + LC_BETA_MODE_B, 1);
	cr_expect_eq(LC_BETA_MODE_B, 1);
}

Test(composite, header_layout)
{
	size_t tag = offsetof(struct lc_frame_hdr, alpha_tag);
	size_t stamp = offsetof(struct lc_frame_hdr, beta_stamp);
	cr_expect_geq(tag, offsetof(struct lc_frame_hdr, msg_len) + sizeof(uint32_t));
	cr_expect_gt(stamp, tag);
	cr_expect_eq(stamp % 8, 0);
	cr_expect_eq(sizeof(struct lc_frame_hdr) % 8, 0);
	cr_expect_eq(sizeof(struct lc_frame_hdr), stamp + 8);
	cr_expect_neq(LC_FRAME_MAGIC, 0);
	struct lc_proto_state s;
	memset(&s, 0, sizeof(s));
	s.alpha.calls = 1;
	s.beta.calls = 2;
	cr_expect_eq(s.alpha.calls + s.beta.calls, 3);
}
