/* Fixed little-endian encoding helpers shared by the descriptor and message
 * codecs. A cursor never reads or writes past its end: every get/put checks
 * the remaining length and latches a failure flag instead. */
#ifndef RS_WIRE_H
#define RS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct rs_wire {
	uint8_t *buf;
	size_t len;
	size_t pos;
	bool failed;
};

static inline struct rs_wire rs_wire_writer(void *buf, size_t len)
{
	return (struct rs_wire){.buf = buf, .len = len};
}

static inline struct rs_wire rs_wire_reader(const void *buf, size_t len)
{
	/* The reader never writes through buf; the cast keeps one cursor type.
	 */
	return (struct rs_wire){.buf = (uint8_t *)(uintptr_t)buf, .len = len};
}

static inline bool rs_wire_room(struct rs_wire *w, size_t n)
{
	if (w->failed || w->len - w->pos < n) {
		w->failed = true;
		return false;
	}
	return true;
}

static inline void rs_wire_put_bytes(struct rs_wire *w, const void *p, size_t n)
{
	if (!rs_wire_room(w, n))
		return;
	memcpy(w->buf + w->pos, p, n);
	w->pos += n;
}

static inline void rs_wire_get_bytes(struct rs_wire *w, void *p, size_t n)
{
	if (!rs_wire_room(w, n)) {
		memset(p, 0, n);
		return;
	}
	memcpy(p, w->buf + w->pos, n);
	w->pos += n;
}

static inline void rs_wire_put_u64(struct rs_wire *w, uint64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	rs_wire_put_bytes(w, b, sizeof(b));
}

static inline uint64_t rs_wire_get_u64(struct rs_wire *w)
{
	uint8_t b[8];
	uint64_t v = 0;
	rs_wire_get_bytes(w, b, sizeof(b));
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

static inline void rs_wire_put_u32(struct rs_wire *w, uint32_t v)
{
	uint8_t b[4];
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	rs_wire_put_bytes(w, b, sizeof(b));
}

static inline uint32_t rs_wire_get_u32(struct rs_wire *w)
{
	uint8_t b[4];
	uint32_t v = 0;
	rs_wire_get_bytes(w, b, sizeof(b));
	for (int i = 0; i < 4; i++)
		v |= (uint32_t)b[i] << (8 * i);
	return v;
}

static inline void rs_wire_put_u16(struct rs_wire *w, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
	rs_wire_put_bytes(w, b, sizeof(b));
}

static inline uint16_t rs_wire_get_u16(struct rs_wire *w)
{
	uint8_t b[2];
	rs_wire_get_bytes(w, b, sizeof(b));
	return (uint16_t)(b[0] | (b[1] << 8));
}

static inline void rs_wire_put_u8(struct rs_wire *w, uint8_t v)
{
	rs_wire_put_bytes(w, &v, 1);
}

static inline uint8_t rs_wire_get_u8(struct rs_wire *w)
{
	uint8_t v;
	rs_wire_get_bytes(w, &v, 1);
	return v;
}

#endif
