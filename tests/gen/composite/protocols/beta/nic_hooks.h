/* SPDX-License-Identifier: MIT */
/* Test protocol beta: NIC-side hook. */
#ifndef LC_TEST_BETA_NIC_HOOKS_H
#define LC_TEST_BETA_NIC_HOOKS_H
#include "lc_verdict.h"
#include "trace.h"
struct lc_nic;
struct lc_frame_hdr;
static inline lc_verdict lc_beta_nic_tx(struct lc_nic *nic, struct lc_frame_hdr *hdr)
{
	(void)nic;
	(void)hdr;
	lc_test_note("bt");
	return (lc_verdict)lc_test_ret_beta;
}
#endif
