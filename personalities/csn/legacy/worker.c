/* SPDX-License-Identifier: MIT */
/* A libcsn worker (args: id total): registers "worker<id>", takes two messages, answers the manager. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csn.h"
#include "mw.h"

int main(int argc, char *argv[])
{
	transport t;
	netid manager, from;
	char name[32], plain[MAX], cipher[MAX], answer[MAX];
	unsigned int n1, n2;
	int id;

	if (argc != 3) {
		printf("usage: worker ID TOTAL\n");
		return 2;
	}
	id = atoi(argv[1]);
	if (csn_open(&t) != CsnOk) {
		debugf("csn_open failed");
		return 1;
	}
	if (csn_lookupname(&manager, "manager") != CsnOk) {
		debugf("no manager");
		return 1;
	}
	sprintf(name, "worker%d", id);
	if (csn_registername(t, name) != CsnOk) {
		debugf("csn_registername failed");
		return 1;
	}
	from = manager;
	if (csn_rx(t, &from, plain, MAX, &n1) != CsnOk || csn_rx(t, &from, cipher, MAX, &n2) != CsnOk
	    || n1 != n2) {
		debugf("receive failed");
		return 1;
	}
	sprintf(answer, "worker%d key %08x", id, keysum(plain, cipher, n1));
	if (csn_tx(t, manager, answer, strlen(answer) + 1) != CsnOk) {
		debugf("csn_tx failed");
		return 1;
	}
	printf("worker%d of %s ok\n", id, argv[2]);
	csn_close(&t);
	return 0;
}
