/* SPDX-License-Identifier: MIT */
/* The seed's Figure 2: look up the transport named "sink" and send it "Hello world" (blocking Tx). */
#include <string.h>
#include "csn_ex.h"

int main(void)
{
	transport tpt;
	netid sinkId;
	char buffer[13];

	CSN_EX_OK(csn_open(&tpt));
	CSN_EX_OK(csn_lookupname(&sinkId, "sink"));
	strcpy(buffer, "Hello world");
	CSN_EX_OK(csn_tx(tpt, sinkId, buffer, (unsigned)strlen(buffer) + 1));
	printf("hello_source ok: sent \"%s\" to {%u,%u}\n", buffer, sinkId.ip, sinkId.port);
	CSN_EX_OK(csn_close(&tpt));
	return 0;
}
