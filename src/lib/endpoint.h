/* Network endpoints on the command line: HOST, HOST:PORT, [IPV6]:PORT or
 * :PORT. The port defaults to RS_DEFAULT_PORT. */
#ifndef RS_ENDPOINT_H
#define RS_ENDPOINT_H

#include <stddef.h>

#define RS_DEFAULT_PORT "7204"

struct rs_endpoint {
	char host[256]; /* empty: any address (listen) */
	char port[8];
};

/* Returns NULL, or what is wrong with text. */
const char *rs_endpoint_parse(const char *text, struct rs_endpoint *ep);

#endif
