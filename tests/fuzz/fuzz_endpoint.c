/* Parsing HOST, HOST:PORT, [IPV6]:PORT or :PORT from the command line, and
 * rpma-send's targets, the same with an optional /NAME.
 * Endpoint properties: both fields are always terminated inside their
 * arrays; an accepted endpoint has a port that is a number from 1 to 65535,
 * has no '/', is exactly the text it came from put back together (the
 * default port standing in for an omitted one), and its canonical spelling
 * parses back to the same; a refused one is RS_E_INVAL with one line of
 * text saying why.
 * Target properties: the text up to its first '/' is an endpoint with a
 * host, the rest (if there is a '/') a name following the rule of
 * rpma-ship(7), and exactly such texts are accepted, into those fields; a
 * refused one leaves the target empty; parsing a span reads nothing past
 * it and means what the NUL-terminated copy means; a named target's label
 * parses back to the same target. */
#include "cli/endpoint.h"
#include "fuzz_check.h"

#include <string.h>

static bool port_valid(const char *port)
{
	char *end;
	long v = strtol(port, &end, 10);
	return *port >= '0' && *port <= '9' && !*end && v >= 1 && v <= 65535;
}

static bool target_empty(const struct rs_target *t)
{
	static const struct rs_target zero;
	return memcmp(t, &zero, sizeof(zero)) == 0;
}

static void check_endpoint(const char *text)
{
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
		return;
	}
	FUZZ_CHECK(port_valid(ep.port));
	FUZZ_CHECK(!strchr(text, '/')); /* never a log name */

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
}

/* Accepts text exactly when its address part is an endpoint with a host
 * and its name part (after the first '/', if any) follows the name rule. */
static void check_target_fields(const char *text, int rc,
				const struct rs_target *t)
{
	const char *slash = strchr(text, '/');
	size_t address_len = slash ? (size_t)(slash - text) : strlen(text);
	char *address = strndup(text, address_len);
	FUZZ_CHECK(address);
	struct rs_endpoint ep;
	bool address_ok =
	    rs_endpoint_parse(address, &ep, NULL) == 0 && ep.host[0] != '\0';
	free(address);
	const char *name = slash ? slash + 1 : "";
	bool name_ok =
	    !slash || fuzz_log_name_ok((const uint8_t *)name, strlen(name));
	FUZZ_CHECK((address_ok && name_ok) == (rc == 0));
	if (rc)
		return;
	FUZZ_CHECK(strcmp(t->endpoint.host, ep.host) == 0);
	FUZZ_CHECK(strcmp(t->endpoint.port, ep.port) == 0);
	FUZZ_CHECK(strcmp(t->name, name) == 0);
}

/* A target's label is its canonical spelling, or its host alone when it
 * names neither a log nor a port other than the default. Checked in a
 * buffer just big enough and in one too small. */
static void check_label(const struct rs_target *t)
{
	char label[RS_TARGET_LABEL_SIZE];
	rs_target_label(t, label, sizeof(label));
	FUZZ_CHECK(strnlen(label, sizeof(label)) < sizeof(label));
	if (!t->name[0] && strcmp(t->endpoint.port, RS_DEFAULT_PORT) == 0) {
		FUZZ_CHECK(strcmp(label, t->endpoint.host) == 0);
	} else {
		struct rs_target again;
		FUZZ_CHECK(rs_target_parse(label, &again, NULL) == 0);
		FUZZ_CHECK(memcmp(&again, t, sizeof(again)) == 0);
	}
	size_t n = strlen(label) / 2 + 1;
	char *small = malloc(n);
	FUZZ_CHECK(small);
	rs_target_label(t, small, n);
	FUZZ_CHECK(strlen(small) == n - 1 && !strncmp(small, label, n - 1));
	free(small);
}

static void check_target(const uint8_t *data, size_t size, const char *text)
{
	struct rs_target t, scratch;
	memset(&t, 0xa5, sizeof(t));
	struct rs_error err;
	fuzz_err_init(&err);
	int rc = rs_target_parse(text, &t, &err);
	FUZZ_CHECK(rs_target_parse(text, &scratch, NULL) == rc);
	check_target_fields(text, rc, &t);
	if (rc) {
		FUZZ_CHECK(rc == RS_E_INVAL && fuzz_err_ok(rc, &err));
		FUZZ_CHECK(target_empty(&t));
	} else {
		check_label(&t);
	}

	/* The raw bytes as a span of a longer text: ASan sees any read past
	 * it; the answer is the one for the text up to the first NUL. */
	char *span = (char *)fuzz_dup(data, size);
	struct rs_target from_span;
	memset(&from_span, 0x5a, sizeof(from_span));
	FUZZ_CHECK(rs_target_parse_span(span, size, &from_span, NULL) == rc);
	FUZZ_CHECK(memcmp(&from_span, &t, sizeof(t)) == 0);
	free(span);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	FUZZ_CHECK(text);
	memcpy(text, data, size);
	text[size] = '\0';
	check_endpoint(text);
	check_target(data, size, text);
	free(text);
	return 0;
}
