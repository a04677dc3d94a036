/* Parsing HOST, HOST:PORT, [IPV6]:PORT or :PORT from the command line.
 * Properties: both fields are always terminated inside their arrays; an
 * accepted endpoint has a port that is a number from 1 to 65535, is exactly
 * the text it came from put back together (the default port standing in for
 * an omitted one), and its canonical spelling parses back to the same; a
 * refused one is RS_E_INVAL with one line of text saying why. */
#include "cli/endpoint.h"
#include "fuzz_check.h"

#include <string.h>

static bool port_valid(const char *port)
{
	char *end;
	long v = strtol(port, &end, 10);
	return *port >= '0' && *port <= '9' && !*end && v >= 1 && v <= 65535;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	FUZZ_CHECK(text);
	memcpy(text, data, size);
	text[size] = '\0';

	struct rs_endpoint ep, scratch;
	memset(&ep, 0xa5, sizeof(ep));
	struct rs_error err;
	fuzz_err_init(&err);
	int rc = rs_endpoint_parse(text, &ep, &err);
	/* Without an error record: the same answer. */
	FUZZ_CHECK(rs_endpoint_parse(text, &scratch, NULL) == rc);
	FUZZ_CHECK(strnlen(ep.host, sizeof(ep.host)) < sizeof(ep.host));
	FUZZ_CHECK(strnlen(ep.port, sizeof(ep.port)) < sizeof(ep.port));
	if (rc) {
		FUZZ_CHECK(rc == RS_E_INVAL && fuzz_err_ok(rc, &err));
		free(text);
		return 0;
	}
	FUZZ_CHECK(port_valid(ep.port));

	/* Put back together, with and without the port. */
	bool bracketed = text[0] == '[';
	if (!bracketed)
		FUZZ_CHECK(!strchr(ep.host, ':'));
	FUZZ_CHECK(!strchr(ep.host, bracketed ? ']' : ':'));
	char with[sizeof(ep.host) + sizeof(ep.port) + 3];
	char without[sizeof(ep.host) + 2];
	snprintf(without, sizeof(without), bracketed ? "[%s]" : "%s", ep.host);
	snprintf(with, sizeof(with), "%s:%s", without, ep.port);
	FUZZ_CHECK(strcmp(text, with) == 0 ||
		   (strcmp(text, without) == 0 &&
		    strcmp(ep.port, RS_DEFAULT_PORT) == 0));

	/* The canonical spelling means the same endpoint. */
	bool need_brackets = strchr(ep.host, ':') || ep.host[0] == '[';
	char canon[sizeof(with)];
	snprintf(canon, sizeof(canon), need_brackets ? "[%s]:%s" : "%s:%s",
		 ep.host, ep.port);
	struct rs_endpoint again;
	FUZZ_CHECK(rs_endpoint_parse(canon, &again, NULL) == 0);
	FUZZ_CHECK(strcmp(again.host, ep.host) == 0);
	FUZZ_CHECK(strcmp(again.port, ep.port) == 0);
	free(text);
	return 0;
}
