/* SPDX-License-Identifier: MIT */
/* The seed's Figure 3: register the transport as "sink" and receive one string from anyone. */
#include <string.h>
#include "csn_ex.h"

int main(void)
{
	transport tpt;
	unsigned int actual;
	netid id;
	char buffer[13];

	CSN_EX_OK(csn_open(&tpt));
	/* we register our transport */
	CSN_EX_OK(csn_registername(tpt, "sink"));
	id = csn_nullnetid;
	CSN_EX_OK(csn_rx(tpt, &id, buffer, sizeof buffer, &actual));
	printf("sink received string: %s\n", buffer);
	if (actual != 12 || strcmp(buffer, "Hello world") != 0 || id.ip == 0) {
		printf("hello_sink FAIL: %u bytes from {%u,%u}\n", actual, id.ip, id.port);
		return 1;
	}
	printf("hello_sink ok: %u bytes from {%u,%u}\n", actual, id.ip, id.port);
	CSN_EX_OK(csn_close(&tpt));
	return 0;
}
