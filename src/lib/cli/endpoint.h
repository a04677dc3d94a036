/* Network endpoints on the command line: HOST, HOST:PORT, [IPV6]:PORT or
 * :PORT. The port defaults to RS_DEFAULT_PORT.
 *
 * A target is where rpma-send ships to: an endpoint and, optionally, the
 * name of one of the logs the receiver serves, HOST[:PORT][/NAME] (IPv6 as
 * [ADDR]:PORT/NAME). The name follows the wire rule of proto/descriptor.h.
 * Targets parse from a span of text, so that a list of them (HOST1,HOST2)
 * can be cut into spans and each parsed here. */
#ifndef RS_ENDPOINT_H
#define RS_ENDPOINT_H

#include "proto/descriptor.h"

#include <stddef.h>

#define RS_DEFAULT_PORT "7204"

/* The most replicas one stream is shipped to (HOST1,HOST2,...). */
#define RS_TARGETS_MAX 16

struct rs_endpoint {
	char host[256]; /* empty: any address (listen) */
	char port[8];
};

struct rs_error;

/* RS_E_INVAL saying what is wrong with text. A log name (HOST/NAME) is
 * refused: an endpoint is an address only. */
int rs_endpoint_parse(const char *text, struct rs_endpoint *ep,
		      struct rs_error *err);

struct rs_target {
	struct rs_endpoint endpoint;	/* the host is never empty */
	char name[RS_LOG_NAME_MAX + 1]; /* "": the receiver's only log */
};

/* Parses one HOST[:PORT][/NAME] from the first len bytes of text (fewer
 * when a NUL comes first); nothing at or after text + len is read. On
 * failure RS_E_INVAL with one line saying what is wrong and, for a bad
 * name, what a name may contain; *t is then all zeros. */
int rs_target_parse_span(const char *text, size_t len, struct rs_target *t,
			 struct rs_error *err);

/* The same for a whole NUL-terminated string. */
int rs_target_parse(const char *text, struct rs_target *t,
		    struct rs_error *err);

/* Parses a comma-separated list of targets, HOST1[:PORT][/NAME],HOST2...,
 * into out[0 .. *n); a comma inside [ ] belongs to the IPv6 address. At
 * most max targets (out has room for max). Text without a comma behaves
 * exactly as rs_target_parse. On failure RS_E_INVAL with one line naming
 * the bad item and its position ("replica 2 of 3 ('h:0'): port must be
 * ..."); an empty item, more than max items and the same replica twice
 * (same host, ignoring case, same port number, same log name) are refused;
 * out[0 .. max) is then all zeros and *n is 0. Two spellings of one
 * machine (a name and its address) are not detected. */
int rs_target_list_parse(const char *text, struct rs_target *out, unsigned max,
			 unsigned *n, struct rs_error *err);

/* Room for any label rs_target_label() writes, with its NUL. */
#define RS_TARGET_LABEL_SIZE 320

/* How messages name the receiver: HOST when neither a log nor a port
 * other than the default is named, else HOST:PORT[/NAME] ([ADDR]:PORT...
 * for IPv6), so a user serving several logs or receivers on one host sees
 * which one; such a label parses back to the same target. Writes into buf
 * and returns it. */
const char *rs_target_label(const struct rs_target *t, char *buf, size_t size);

#endif
