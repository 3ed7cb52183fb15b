/* SPDX-License-Identifier: MIT */
/*
 * Path marks (scons mode=marks; empty in every other build): callgrind
 * counts a node's instructions only from the moment a wait or test sees
 * the request it waited for complete (LC_PATH_BEGIN: framework/comm.c, the
 * single waits and tests; framework/match.c, the any- and all-of ones) to
 * the next frame's publication into a peer's Receive Ring (LC_PATH_END,
 * nic/nic.c lc_net_put) -- in a ping-pong, one node's turn: the receive's
 * completion, the program's and a personality's work, the reply's send.
 * tools/cg_path.py runs a program so and prints the turn's instructions.
 * The flag is a plain global: the marks measure single-threaded programs.
 */
#ifndef LC_MARKS_H
#define LC_MARKS_H

#ifdef LC_PATH_MARKS
#include <valgrind/callgrind.h>
/* inside a marked turn; weak: one flag however many objects include this */
__attribute__((weak)) int lc_path_on;
#define LC_PATH_BEGIN() \
	do { if (!lc_path_on) { lc_path_on = 1; CALLGRIND_TOGGLE_COLLECT; } } while (0)
#define LC_PATH_END() \
	do { if (lc_path_on) { CALLGRIND_TOGGLE_COLLECT; lc_path_on = 0; } } while (0)
#else
#define LC_PATH_BEGIN() ((void)0)
#define LC_PATH_END()   ((void)0)
#endif

#endif /* LC_MARKS_H */
