/* What the encodings in connection private data share (descriptor.c,
 * connect_req.c, reject.c): the header every one starts with (magic, the
 * protocol version it is in, its own encoded length, since rdma_cm pads
 * private data with zeros), text fields and a log name's field. For
 * proto/ only. */
#ifndef RS_PROTO_FIELDS_H
#define RS_PROTO_FIELDS_H

#include "proto/wire.h"

#include <stddef.h>
#include <stdint.h>

struct rs_error;

/* RS_E_MALFORMED with why. */
int rs_fields_malformed(struct rs_error *err, const char *why);

/* The header of an encoding in version (0: RS_PROTO_VERSION) of size
 * bytes. */
void rs_fields_header_put(struct rs_wire *w, uint8_t version, uint8_t size);
/* Reads a header: our magic, a version this build speaks (its own: else
 * RS_E_VERSION, with *version the one read), and the encoded length that
 * version has (size_of(version)), all of it there. 0, RS_E_VERSION or
 * RS_E_MALFORMED with err. */
int rs_fields_header_get(struct rs_wire *w, uint8_t (*size_of)(uint8_t),
			 uint8_t *version, struct rs_error *err);

/* A text field of size bytes: the text, a NUL, then zeros to its end. */
void rs_fields_text_put(struct rs_wire *w, const char *text, size_t size);
/* Reads one; -1 unless it is NUL-terminated and zero after. */
int rs_fields_text_get(struct rs_wire *w, char *text, size_t size);

/* A log's name in RS_LOG_NAME_MAX bytes: zeros after the name (none when
 * it is that long). */
void rs_fields_name_put(struct rs_wire *w, const char *name);
/* Reads it into name (RS_LOG_NAME_MAX + 1 bytes); -1 unless it is zero
 * after its end. */
int rs_fields_name_get(struct rs_wire *w, char *name);

#endif
