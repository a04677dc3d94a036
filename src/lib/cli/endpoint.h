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

struct rs_error;

/* RS_E_INVAL saying what is wrong with text. */
int rs_endpoint_parse(const char *text, struct rs_endpoint *ep,
		      struct rs_error *err);

#endif
