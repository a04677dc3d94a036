/* Descriptors carried in rdma_cm private data: what the sender asks for on
 * connect (<= 56 bytes), what the receiver grants on accept (<= 196 bytes),
 * and why it refused on reject. Fixed little-endian encoding with a magic, a
 * version and the encoded length, because the CM pads private data with zeros
 * and the received length is not the sent one. Decoders check every field. */
#ifndef RS_DESCRIPTOR_H
#define RS_DESCRIPTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/auth.h"
#include "proto/method.h"
#include "proto/version.h"

struct rs_error;

#define RS_PROTO_MAGIC 0x48535052u /* "RPSH" on the wire */
/* 2: session token, peer timeout, keepalive; 3: log names; 4: log
 * positions (the archive before the pool), rotation; 5: memory windows
 * (keys in messages); 7: liveness by probes of the link (a receiver probes
 * a silent sender, a sender's keepalive is a probe unless it names a key),
 * the encodings as in 6; 8: a window's end in the replies that carry its
 * key (a writer's windows reach only part of the tail); 9: flags in the
 * control messages, a windowed writer's lone commit; 10: the methods a
 * sender can do in its request (its log name's field 31 bytes, without a
 * NUL when full), the receiver grants only those; a reject says which
 * versions the receiver speaks.
 *
 * A build speaks every version from RS_PROTO_VERSION_MIN to
 * RS_PROTO_VERSION (a release and the one before it, in both roles). A
 * sender asks in its newest; a receiver answers in the version it was asked
 * in when it speaks it, else refuses (RS_REJECT_VERSION) saying which it
 * speaks, and the sender asks again in the newest both speak. The control
 * messages are the same in 9 and 10. */
#define RS_PROTO_VERSION 10
#define RS_PROTO_VERSION_MIN 9

#define RS_CONNECT_PRIVATE_MAX 56
#define RS_ACCEPT_PRIVATE_MAX 196
#define RS_REJECT_PRIVATE_MAX 148

/* A remote memory region: where, how long, and its key. */
struct rs_mr_desc {
	uint64_t addr;
	uint64_t length;
	uint32_t rkey;
	uint8_t usage; /* RS_MR_USAGE_* */
};
#define RS_MR_USAGE_WRITE_DST 0x1u
#define RS_MR_USAGE_READ_SRC 0x2u
#define RS_MR_DESC_SIZE 21

/* The sender's request. */
#define RS_CONNECT_TRUNCATE 0x1u /* rewind the log before writing */
#define RS_CONNECT_VERIFY 0x2u	 /* will read the replica back */
#define RS_CONNECT_AUTH 0x4u	 /* the sender holds an auth key */
#define RS_CONNECT_TAKEOVER 0x8u /* reconnecting: the token of its session */
/* will write a replacement (RS_MSG_REPLACE) */
#define RS_CONNECT_REPLACE 0x10u
#define RS_CONNECT_FLAGS_KNOWN                                                 \
	(RS_CONNECT_TRUNCATE | RS_CONNECT_VERIFY | RS_CONNECT_AUTH |           \
	 RS_CONNECT_TAKEOVER | RS_CONNECT_REPLACE)
/* What only a writer may ask: a reading session (RS_CONNECT_VERIFY) that
 * asks any of it is malformed. */
#define RS_CONNECT_WRITER_ONLY                                                 \
	(RS_CONNECT_TRUNCATE | RS_CONNECT_TAKEOVER | RS_CONNECT_REPLACE)

/* A log's name: 1 to 31 letters, digits, '.', '_' or '-', not starting
 * with '.' or '-'. A request without one asks for the only log. */
#define RS_LOG_NAME_MAX 31
bool rs_log_name_valid(const char *name);

struct rs_connect_req {
	/* The protocol version it is (to be) encoded in; 0 when encoding:
	 * RS_PROTO_VERSION. A version 9 request says nothing of the methods
	 * a writer can do: decoded as every one but flush, unless it insists
	 * on flush. */
	uint8_t version;
	uint8_t flags;	/* RS_CONNECT_* */
	uint8_t method; /* enum rs_method the sender insists on, or AUTO */
	/* RS_METHOD_BIT() of each method the sender can do (a writer's: its
	 * build and device; the one it insists on among them), 0 for a
	 * reader: the receiver grants no other. */
	uint8_t methods;
	struct rs_session_token token; /* with RS_CONNECT_TAKEOVER, else 0 */
	char log_name[RS_LOG_NAME_MAX + 1]; /* "": the receiver's only log */
};
#define RS_CONNECT_REQ_SIZE 56

/* The receiver's peer configuration. */
#define RS_PEER_DIRECT_WRITE_TO_PMEM 0x1u
/* The log rotates (it has an archive): a full pool is started over once
 * the sender asks (RS_MSG_REBASE), not the end. */
#define RS_PEER_ARCHIVE 0x2u
/* A reading session's grant: no method and no region it may write (data,
 * write offset and staging ring all empty), only what it may read. */
#define RS_PEER_READ_ONLY 0x4u
/* A writer's grant whose data range is reached through memory windows
 * over its unused tail: `data` names the range with no key, the key comes
 * in replies (RS_MSG_WINDOW first); apm, which needs the whole range, is
 * not offered. */
#define RS_PEER_WINDOWS 0x8u
#define RS_PEER_FLAGS_KNOWN                                                    \
	(RS_PEER_DIRECT_WRITE_TO_PMEM | RS_PEER_ARCHIVE | RS_PEER_READ_ONLY |  \
	 RS_PEER_WINDOWS)

/* The shortest peer timeout a grant may carry: the keepalive interval is a
 * fraction of it. */
#define RS_PEER_TIMEOUT_MIN_MS 100u

/* What the receiver grants on accept. */
struct rs_accept_info {
	uint8_t version;    /* the request's (0 when encoding: ours) */
	uint8_t peer_flags; /* RS_PEER_* */
	uint8_t methods;    /* RS_METHOD_BIT() of each method allowed */
	uint16_t credits;   /* control messages the sender may have in flight */
	struct rs_mr_desc data;		/* the pool's data range */
	struct rs_mr_desc write_offset; /* the 8-byte write-offset word (APM) */
	struct rs_mr_desc staging;	/* the DRAM staging ring (staged) */
	struct rs_mr_desc data_read;	/* the log's committed prefix, readable:
					 * readers only */
	struct rs_mr_desc staging_read; /* the ring, readable: verify only */
	uint32_t staging_slot_size;	/* bytes per ring slot */
	uint64_t start_offset; /* log geometry, absolute file offsets */
	uint64_t end_offset;
	uint64_t write_offset_value; /* committed end of data */
	uint8_t pool_uuid[16];
	struct rs_session_token token; /* presented to take the session over */
	uint32_t
	    peer_timeout_ms; /* silence after which a peer counts as dead */
	/* The log position of the data range's first byte: what the log
	 * holds before it is in its archive (rotated out of the pool). */
	uint64_t log_base;
};
#define RS_ACCEPT_INFO_SIZE 189

/* Instead of the grant, a receiver with --auth-key accepts with a random
 * challenge; the grant follows as a message once the sender answered it. */
struct rs_challenge {
	uint8_t version; /* the request's (0 when encoding: ours) */
	uint8_t nonce[RS_AUTH_NONCE_SIZE];
};
#define RS_CHALLENGE_SIZE 40

/* Why the receiver refused a connection. */
enum rs_reject_reason {
	RS_REJECT_BUSY = 1,	   /* another sender owns the pool */
	RS_REJECT_VERSION = 2,	   /* protocol version not understood */
	RS_REJECT_BAD_REQUEST = 3, /* malformed private data */
	RS_REJECT_METHOD = 4,	   /* the requested method is not allowed */
	RS_REJECT_NOT_ALLOWED = 5, /* address or authentication */
	RS_REJECT_INTERNAL = 6,	   /* the receiver failed to set up */
	RS_REJECT_NO_SUCH_LOG = 7, /* no log of the requested name */
	RS_REJECT_NAME_NEEDED = 8, /* several logs: the sender must name one */
	RS_REJECT_LIMIT = 9,	   /* the receiver serves max-senders already */
	RS_REJECT_STOPPING = 10,   /* the receiver is stopping or restarting */
	/* the receiver has not opened that log yet: ask again in retry_ms
	 * (version 10; told a version 9 sender as STOPPING) */
	RS_REJECT_STARTING = 11,
};
/* The names a refused sender may use, comma separated, ending in ",..."
 * when they do not all fit. */
#define RS_REJECT_LOGS_MAX 128
#define RS_REJECT_SIZE (12 + RS_REJECT_LOGS_MAX + 1) /* 4 less in 9 */

const char *rs_reject_reason_str(uint8_t reason);
/* Whether a sender that retries may get in later (the receiver is busy,
 * full or going down), rather than being refused whatever it does. */
bool rs_reject_reason_passes(uint8_t reason);

/* Encoders return the encoded length (always the *_SIZE constant). */
size_t rs_connect_req_encode(const struct rs_connect_req *req, void *buf,
			     size_t len);
size_t rs_accept_info_encode(const struct rs_accept_info *info, void *buf,
			     size_t len);
/* A reject carries the reason and the methods the receiver offers, so a
 * sender refused for its method can say what would work. */
struct rs_reject_info {
	/* The version it is in: the request's when the receiver speaks it,
	 * else its newest (0 when encoding: ours). */
	uint8_t version;
	/* The versions the receiver speaks (decoded; a version 9 receiver
	 * speaks 9 only). A receiver newer than us says them where version 10
	 * does, so they are read from it too. */
	uint8_t min_version, max_version;
	uint8_t reason;	 /* enum rs_reject_reason */
	uint8_t methods; /* RS_METHOD_BIT() of each method offered, or 0 */
	/* When to ask again, a hint (version 10; 0: none): with a reason a
	 * sender may retry after (rs_reject_reason_passes). */
	uint16_t retry_ms;
	char logs[RS_REJECT_LOGS_MAX + 1]; /* NO_SUCH_LOG, NAME_NEEDED */
};
size_t rs_reject_encode(const struct rs_reject_info *info, void *buf,
			size_t len);

/* Decoders return 0, RS_E_VERSION for a protocol version this build does
 * not speak (the version read is in the decoded struct's version), or
 * RS_E_MALFORMED saying what is wrong. They accept trailing zero padding
 * and reject anything shorter than the encoding. A reject of a version
 * newer than ours decodes to its reason, methods and versions. */
int rs_connect_req_decode(const void *buf, size_t len,
			  struct rs_connect_req *req, struct rs_error *err);
/* Of the methods offered (RS_METHOD_BIT()s), those a writer's request
 * says it can do. A version 9 writer that insists on none says nothing:
 * offered flush alone, it takes it, as 0.3.0 receivers granted it (it
 * could write to such a log before its receiver was upgraded). */
uint8_t rs_connect_req_usable(const struct rs_connect_req *req,
			      uint8_t offered);
int rs_accept_info_decode(const void *buf, size_t len,
			  struct rs_accept_info *info, struct rs_error *err);
size_t rs_challenge_encode(const struct rs_challenge *c, void *buf, size_t len);
int rs_challenge_decode(const void *buf, size_t len, struct rs_challenge *c,
			struct rs_error *err);
int rs_reject_decode(const void *buf, size_t len, struct rs_reject_info *info,
		     struct rs_error *err);

#endif
