/* Persistence methods, in librpma's terms, and the rule that picks one from
 * what the receiver allows and what the user asked for. */
#ifndef RS_METHOD_H
#define RS_METHOD_H

#include <stddef.h>
#include <stdint.h>

struct rs_error;

enum rs_method {
	RS_METHOD_AUTO = 0,
	RS_METHOD_APM = 1,    /* direct write, flush by read-after-write */
	RS_METHOD_GPSPM = 2,  /* direct write, receiver persists on request */
	RS_METHOD_STAGED = 3, /* write to a DRAM ring, receiver copies */
	RS_METHOD_FLUSH = 4,  /* direct write, RDMA FLUSH, ATOMIC WRITE */
};
#define RS_METHOD_COUNT 5
#define RS_METHOD_BIT(m) (1u << (m))
/* Every method there is: what a receiver offers unless told otherwise. */
#define RS_METHOD_ALL                                                          \
	(RS_METHOD_BIT(RS_METHOD_APM) | RS_METHOD_BIT(RS_METHOD_GPSPM) |       \
	 RS_METHOD_BIT(RS_METHOD_STAGED) | RS_METHOD_BIT(RS_METHOD_FLUSH))
/* The methods whose sender writes the log's write offset itself. */
#define RS_METHOD_SENDER_COMMITS                                               \
	(RS_METHOD_BIT(RS_METHOD_APM) | RS_METHOD_BIT(RS_METHOD_FLUSH))

const char *rs_method_name(enum rs_method m);
/* Sets *m from its name; RS_E_INVAL for an unknown name. */
int rs_method_parse(const char *name, enum rs_method *m, struct rs_error *err);

/* Picks the method to use: the requested one if allowed, else with AUTO the
 * first allowed of flush, APM, GPSPM and staged. RS_E_INVAL when none
 * fits, with a sentence saying what the receiver would allow instead. */
int rs_method_choose(uint8_t allowed, enum rs_method requested,
		     enum rs_method *chosen, struct rs_error *err);

/* The methods' names, fastest first, comma separated, into buf ("nothing"
 * when there are none); returns buf. */
const char *rs_method_list(uint8_t methods, char *buf, size_t len);

/* Why the receiver does not offer m (given its configuration). */
const char *rs_method_requirement(enum rs_method m);

#endif
