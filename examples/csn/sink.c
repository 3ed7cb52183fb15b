/* SPDX-License-Identifier: MIT */
/* The filter pipeline's last stage: receive COUNT messages, check every byte, print the throughput. */
#include "csn_ex.h"

static const char usage[] = "usage: sink [SIZE [COUNT]]   (default 16K 500)\n";

int main(int argc, char **argv)
{
	unsigned size = csn_ex_arg(argc, argv, 1, 16384, usage);
	unsigned count = csn_ex_arg(argc, argv, 2, 500, usage);
	transport tpt;
	netid id;
	unsigned actual;
	uint8_t *buffer = malloc(size);
	double t0 = 0;

	if (!buffer)
		return 1;
	CSN_EX_OK(csn_open(&tpt));
	CSN_EX_OK(csn_registername(tpt, "sink"));
	for (unsigned i = 0; i < count; i++) {
		id = csn_nullnetid;
		CSN_EX_OK(csn_rx(tpt, &id, buffer, size, &actual));
		if (i == 0)
			t0 = csn_ex_now();
		if (actual != size) {
			printf("sink FAIL: message %u: %u bytes, not %u\n", i, actual, size);
			return 1;
		}
		for (unsigned j = 0; j < size; j++)
			if (buffer[j] != (uint8_t)(csn_ex_byte(i, j) ^ csn_ex_mask(j))) {
				printf("sink FAIL: message %u byte %u: %#x, not %#x\n", i, j, buffer[j],
				       (uint8_t)(csn_ex_byte(i, j) ^ csn_ex_mask(j)));
				return 1;
			}
	}
	double dt = csn_ex_now() - t0;
	/* the first message starts the clock: count - 1 messages in dt */
	printf("sink ok: %u messages of %u bytes, every byte checked, %.1f MB/s\n", count, size,
	       dt > 0 && count > 1 ? (double)(count - 1) * size / dt / 1e6 : 0.0);
	CSN_EX_OK(csn_close(&tpt));
	free(buffer);
	return 0;
}
