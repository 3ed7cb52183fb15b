/* SPDX-License-Identifier: MIT */
/* Verdicts that pointcut hooks return (host side and NIC side). */
#ifndef LC_VERDICT_H
#define LC_VERDICT_H

/*
 * LC_CONTINUE  go on: the next protocol, then the pipeline, handle it
 * LC_DROP      discard the frame or message (counted by the pipeline)
 * LC_CONSUMED  the protocol took ownership; the pipeline forgets it
 * LC_RETRY     not now (no credit, window full): the pipeline keeps it queued
 *              and calls the pointcut again on a later progress step
 */
typedef enum lc_verdict {
	LC_CONTINUE = 0,
	LC_DROP = 1,
	LC_CONSUMED = 2,
	LC_RETRY = 3,
} lc_verdict;

#endif /* LC_VERDICT_H */
