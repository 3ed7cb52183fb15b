/* SPDX-License-Identifier: MIT */
/* A sink written for libcsn's C API (register "sink", receive one message from anyone, print it). */
#include <stdio.h>
#include <stdlib.h>
#include "csn.h"

/* As libcsn programs are written: &buffer of a char array, an unsigned actual, debugf on failure. */
int main(void)
{
	transport tpt;
	netid id;
	char buffer[100];
	unsigned int actual;

	if (csn_open(&tpt) != CsnOk) {
		debugf("csn_open failed");
		exit(1);
	}
	if (csn_registername(tpt, "sink") != CsnOk) {
		debugf("csn_registername failed");
		exit(1);
	}
	id = csn_nullnetid;
	if (csn_rx(tpt, &id, &buffer, sizeof(buffer), &actual) != CsnOk) {
		debugf("csn_rx failed");
		exit(1);
	}
	printf("sink has received: %s (%d bytes)\n", buffer, actual);
	csn_close(&tpt);
	return 0;
}
