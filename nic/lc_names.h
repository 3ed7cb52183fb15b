/* SPDX-License-Identifier: MIT */
/* The limits of the job's name table: shared by nic/ (the table in the segment) and comm.h. */
#ifndef LC_NAMES_H
#define LC_NAMES_H

/* A name's bytes with its terminating NUL (so 1 .. LC_NAME_MAX - 1 characters). */
#define LC_NAME_MAX 64
/* Entries of the table of a job of `nodes` nodes: four names per node, at least 64. */
#define LC_NAME_ENTRIES(nodes) ((nodes) * 4u < 64u ? 64u : (nodes) * 4u)
/* lc_name_lookup's timeout: wait until the name is registered. */
#define LC_NAME_FOREVER (-1)

#endif /* LC_NAMES_H */
