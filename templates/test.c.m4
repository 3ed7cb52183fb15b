/* SPDX-License-Identifier: MIT */
LC_COMMENT(LC_NAME[[ protocol: its Criterion tests, built and run in every config where it is active.]])
#include <criterion/criterion.h>
#include <stddef.h>

#include "lc_composite_host.h"

TestSuite(LC_NAME, .timeout = 30);

Test(LC_NAME, active_in_this_build)
{
	cr_expect_eq(LC_PROTO_[[]]LC_UNAME, 1, "LC_PROTO_[[]]LC_UNAME must be 1 where the test is built");
}

/* The scaffold's stubs are neutral: each returns what the pipeline does without protocols. */
m4_define([[LC_PC_ITEM]], [[m4_ifelse([[$2]], [[void]], [[	lc_[[]]LC_NAME[[]]_$1($8);]],
[[	cr_expect_eq(lc_[[]]LC_NAME[[]]_$1($8), $9, "$1 is not neutral");]])]])m4_dnl
Test(LC_NAME, stubs_are_neutral)
{
LC_PC_HOST_LIST
}
