/* SPDX-License-Identifier: MIT */
/* The seed's Figures 4-5: the middle stage, MaxFilterBuffers receives in flight, driven by csn_test. */
#include <string.h>
#include "csn_ex.h"

/*
 * usage: filter [MaxFilterBuffers [SIZE [COUNT]]]
 * Registers "filter", looks up "sink", posts MaxFilterBuffers non-blocking
 * receives (the seed's loop runs 0..MaxFilterBuffers, one buffer more than
 * it says: here MaxFilterBuffers is the number of buffers, so 2 is double
 * buffering as the seed's text says).  The main loop is Figure 5's: one
 * csn_test for both kinds with an infinite timeout; a received buffer is
 * filtered (xor with csn_ex_mask: checkable, where the seed zeroes it) and
 * sent on with csn_txnb; a sent buffer is posted again.  It ends once
 * COUNT messages went on (the seed's filter runs for ever).
 */
static const char usage[] = "usage: filter [MaxFilterBuffers [SIZE [COUNT]]]   (default 2 16K 500)\n";

int main(int argc, char **argv)
{
	unsigned MaxFilterBuffers = csn_ex_arg(argc, argv, 1, 2, usage);
	unsigned BytesToBeSent = csn_ex_arg(argc, argv, 2, 16384, usage);
	unsigned count = csn_ex_arg(argc, argv, 3, 500, usage);
	transport tpt;
	netid netid_, sinkId;
	void *buffer;
	void **bufs = calloc(MaxFilterBuffers, sizeof *bufs);
	unsigned *actual = calloc(MaxFilterBuffers, sizeof *actual);
	unsigned posted = 0, sent = 0, i;
	double t0 = 0;

	if (!bufs || !actual)
		return 1;
	CSN_EX_OK(csn_open(&tpt));
	CSN_EX_OK(csn_registername(tpt, "filter"));
	CSN_EX_OK(csn_lookupname(&sinkId, "sink"));
	for (i = 0; i < MaxFilterBuffers && posted < count; i++, posted++) {
		bufs[i] = malloc(BytesToBeSent);
		if (!bufs[i])
			return 1;
		CSN_EX_OK(csn_rxnb(tpt, bufs[i], BytesToBeSent, &actual[i]));
	}
	while (sent < count) {
		csn_status status;
		buffer = NULL;
		netid_ = csn_nullnetid;
		switch (csn_test(tpt, CSN_FLAG(CsnRxReady) | CSN_FLAG(CsnTxReady), CSN_WAIT_FOREVER,
				 &netid_, &buffer, &status)) {
		case CsnTxReady:
			CSN_EX_OK(status);
			if (++sent < count && posted < count) {
				for (i = 0; bufs[i] != buffer; i++)
					;
				CSN_EX_OK(csn_rxnb(tpt, buffer, BytesToBeSent, &actual[i]));
				posted++;
			}
			break;
		case CsnRxReady:
			CSN_EX_OK(status);
			if (t0 == 0)
				t0 = csn_ex_now();
			for (i = 0; bufs[i] != buffer; i++)
				;
			if (actual[i] != BytesToBeSent) {
				printf("filter FAIL: received %u bytes, not %u\n", actual[i], BytesToBeSent);
				return 1;
			}
			/* do some filtering on buffer */
			for (unsigned j = 0; j < BytesToBeSent; j++)
				((uint8_t *)buffer)[j] ^= csn_ex_mask(j);
			/* now transmit it to the next process (a sink) */
			CSN_EX_OK(csn_txnb(tpt, sinkId, buffer, BytesToBeSent));
			break;
		default:
			printf("filter FAIL: csn_test failed: %s\n", csn_last_error());
			return 1;
		}
	}
	double dt = csn_ex_now() - t0;
	printf("filter ok: %u buffers, %u messages of %u bytes, %.1f MB/s\n", MaxFilterBuffers,
	       count, BytesToBeSent, dt > 0 ? (double)count * BytesToBeSent / dt / 1e6 : 0.0);
	CSN_EX_OK(csn_close(&tpt));
	for (i = 0; i < MaxFilterBuffers; i++)
		free(bufs[i]);
	free(bufs);
	free(actual);
	return 0;
}
