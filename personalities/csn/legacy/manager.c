/* SPDX-License-Identifier: MIT */
/* A libcsn manager: sends plaintext and ciphertext to worker1..workerN, collects one answer each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csn.h"
#include "mw.h"

int main(int argc, char *argv[])
{
	transport t;
	netid w, workers[32];
	char plaintext[MAX], ciphertext[MAX], theanswer[MAX], name[32];
	int nBytes;
	int i, n, good = 0;
	unsigned int want;

	n = argc > 1 ? atoi(argv[1]) : 2;
	if (n < 1 || n > 32) {
		printf("usage: manager NWORKERS (1..32)\n");
		return 2;
	}
	if (csn_open(&t) != CsnOk || csn_registername(t, "manager") != CsnOk) {
		debugf("cannot open and register the manager");
		return 1;
	}
	for (i = 0; i < n; i++) {
		sprintf(name, "worker%d", i + 1);
		if (csn_lookupname(&workers[i], name) != CsnOk) {
			debugf("lookup failed");
			return 1;
		}
	}
	strcpy(plaintext, "the quick brown fox jumps over the lazy dog");
	for (i = 0; plaintext[i]; i++)
		ciphertext[i] = plaintext[i] ^ (char)(0x20 + i % 7);
	want = keysum(plaintext, ciphertext, strlen(plaintext));
	for (i = 0; i < n; i++) {
		csn_tx(t, workers[i], plaintext, strlen(plaintext));
		csn_tx(t, workers[i], ciphertext, strlen(plaintext));
	}
	for (i = 0; i < n; i++) {
		unsigned int got = 0;
		int who = 0;
		w = csn_nullnetid;
		if (csn_rx(t, &w, theanswer, MAX, &nBytes) != CsnOk) {
			debugf("rx failed");
			return 1;
		}
		theanswer[nBytes < MAX ? nBytes : MAX - 1] = 0;
		printf("manager: answer from {%u,%u}: %s\n", w.ip, w.port, theanswer);
		if (sscanf(theanswer, "worker%d key %x", &who, &got) == 2 && got == want)
			good++;
	}
	if (good != n) {
		printf("manager FAIL: %d of %d answers right\n", good, n);
		return 1;
	}
	printf("manager ok: %d workers answered %08x\n", n, want);
	csn_close(&t);
	return 0;
}
