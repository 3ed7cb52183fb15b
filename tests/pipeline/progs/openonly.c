/* SPDX-License-Identifier: MIT */
/* Node program: open the node named by the environment and report the outcome (config checks). */
#define _POSIX_C_SOURCE 200809L
#include "lc_tprog.h"

/*
 * Prints "open -> <LC_ERR_...>: <lc_strerror>" and exits 0 when lc_open
 * succeeded (then closes), 4 when it failed.  The driver runs it against a
 * segment made for another config, a missing segment, or no LC_JOB at all.
 */
int main(void)
{
	lc_node *node = NULL;
	int rc = lc_open(&node);
	printf("open -> %s: %s\n", lc_tp_errname(rc), lc_strerror(rc));
	fflush(stdout);
	if (rc != 0)
		return 4;
	lc_close(node);
	return 0;
}
