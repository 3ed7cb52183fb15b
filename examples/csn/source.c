/* SPDX-License-Identifier: MIT */
/* The filter pipeline's first stage: send COUNT messages of SIZE bytes to "filter" (blocking Tx). */
#include "csn_ex.h"

static const char usage[] = "usage: source [SIZE [COUNT]]   (default 16K 500; K suffix)\n";

int main(int argc, char **argv)
{
	unsigned size = csn_ex_arg(argc, argv, 1, 16384, usage);
	unsigned count = csn_ex_arg(argc, argv, 2, 500, usage);
	transport tpt;
	netid filterId;
	uint8_t *buffer = malloc(size);

	if (!buffer)
		return 1;
	CSN_EX_OK(csn_open(&tpt));
	CSN_EX_OK(csn_lookupname(&filterId, "filter"));
	for (unsigned i = 0; i < count; i++) {
		for (unsigned j = 0; j < size; j++)
			buffer[j] = csn_ex_byte(i, j);
		CSN_EX_OK(csn_tx(tpt, filterId, buffer, size));
	}
	printf("source ok: %u messages of %u bytes sent\n", count, size);
	CSN_EX_OK(csn_close(&tpt));
	free(buffer);
	return 0;
}
