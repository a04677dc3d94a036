/* window_check: do type-2 memory windows hold on this device? Both ends of
 * tests/e2e/hostile.sh's case for rdma/mw.h, over the real link.
 *
 *   window_check serve HOST:PORT   (the receiver's side: run first)
 *   window_check write HOST:PORT   (the writer's side)
 *
 * The writer opens two connections. The server registers a buffer for
 * window binding only (no remote access of its own), binds a window on the
 * first connection's queue pair over [4096, +4096) and sends its key; the
 * writer writes there (must land), asks for the next, and the server binds
 * the same window over [8192, +4096) with a new key; the writer writes
 * there (must land), then with that key from its second connection (a
 * queue pair the window is not bound to) and with the first key over the
 * first range (the window moved): both must fail at the server's NIC with
 * a remote access error. The server then checks that exactly the two
 * allowed writes landed. Each side prints one line and exits 0 (held), 1
 * (a write landed that must not have, or one that must did not), 2 (could
 * not run). */
#include "cli/endpoint.h"
#include "error.h"
#include "rdma/conn.h"
#include "rdma/listener.h"
#include "rdma/mr.h"
#include "rdma/mw.h"
#include "rdma/peer.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HELD 0
#define BROKEN 1
#define NORUN 2

#define BUF 65536
#define MSG_AT 0     /* the message sent */
#define RECV_AT 1024 /* the message received */
#define RANGE1 4096  /* the window's first binding */
#define RANGE2 8192  /* its second */
#define WINDOW 4096
#define WAIT_MS 10000
#define REMOTE_ACCESS_ERROR "remote access error"

struct key_msg { /* server to writer: where the window is now */
	uint64_t addr, length;
	uint32_t rkey;
};

static int fail(int rc, const char *what, const struct rs_error *e)
{
	fprintf(stderr, "window_check: %s%s%s\n", what, e ? ": " : "",
		e ? rs_error_str(e) : "");
	return rc;
}

/* Waits for the completion of work request id (an error completion's
 * opcode means nothing, its wr_id does). */
static bool wait_id(struct rs_conn *c, uint64_t id, struct rs_completion *wc)
{
	for (int spent = 0; spent < WAIT_MS; spent += 100) {
		enum rs_wait_result w = rs_conn_next_completion(c, wc, 100);
		if (w == RS_WAIT_CM_EVENT)
			rs_conn_next_event(c);
		else if (w == RS_WAIT_COMPLETION && wc->wr_id == id)
			return true;
		else if (w == RS_WAIT_ERROR)
			return false;
	}
	return false;
}

static bool wait_established(struct rs_conn *c)
{
	struct rs_completion wc;
	for (int spent = 0; spent < WAIT_MS; spent += 100) {
		enum rs_wait_result w = rs_conn_next_completion(c, &wc, 100);
		if (w == RS_WAIT_CM_EVENT &&
		    rs_conn_next_event(c) == RS_CONN_EVENT_ESTABLISHED)
			return true;
		if (w == RS_WAIT_ERROR)
			return false;
	}
	return false;
}

/* ---- the receiver's side ---- */

static struct rs_conn *accept_one(struct rs_listener *l, struct rs_peer **peer,
				  struct rs_mr **mr, uint8_t *buf,
				  struct rs_error *e)
{
	struct rs_listener_event ev = {0};
	for (int spent = 0; ev.type != RS_LISTENER_REQUEST; spent += 200) {
		if (spent > WAIT_MS || rs_listener_next_event(l, 200, &ev, e))
			return 0;
	}
	struct rs_conn *c = ev.conn;
	if ((!*peer && rs_peer_new(c, peer, e)) ||
	    rs_conn_create_qp(c, *peer, 8, 2, e) ||
	    (!*mr &&
	     rs_mr_reg(*peer, buf, BUF, RS_MR_LOCAL | RS_MR_BIND, mr, e)) ||
	    rs_conn_recv(c, *mr, RECV_AT, 64, 1) ||
	    rs_conn_accept(c, 0, 0, RS_MR_REMOTE_WRITE | RS_MR_REMOTE_READ,
			   e)) {
		rs_conn_delete(&c);
		return 0;
	}
	if (!wait_established(c)) {
		rs_conn_delete(&c);
		return 0;
	}
	return c;
}

/* Binds the window over [at, +WINDOW) on c and sends the writer its key. */
static bool bind_and_tell(struct rs_conn *c, struct rs_mw *w, struct rs_mr *mr,
			  uint8_t *buf, size_t at)
{
	struct rs_completion wc = {0};
	if (rs_mw_bind(c, w, mr, at, WINDOW, RS_MR_REMOTE_WRITE, 7,
		       RS_POST_SIGNALED) ||
	    !wait_id(c, 7, &wc) || !wc.ok) {
		fprintf(stderr, "window_check: binding the window failed: %s\n",
			wc.status ? wc.status : "no completion");
		return false;
	}
	struct rs_mr_desc d = rs_mw_describe(w, RS_MR_USAGE_WRITE_DST);
	struct key_msg m = {d.addr, d.length, d.rkey};
	memcpy(buf + MSG_AT, &m, sizeof(m));
	return !rs_conn_send(c, mr, MSG_AT, sizeof(m), 8, RS_POST_SIGNALED) &&
	       wait_id(c, 8, &wc) && wc.ok;
}

/* What landed: 0xaa at the first range, 0xbb at the second, 0xcc and 0xdd
 * nowhere from the first range on. Below it lie the messages, whose bytes
 * (a key, the buffer's address) may be anything: a key message with 0xcc
 * in its address once failed this check. */
static int judge_buffer(const uint8_t *buf)
{
	for (size_t i = RANGE1; i < BUF; i++)
		if (buf[i] == 0xcc || buf[i] == 0xdd) {
			fprintf(stderr,
				"window_check: a write that must fail LANDED "
				"at byte %zu\n",
				i);
			return BROKEN;
		}
	if (buf[RANGE1] != 0xaa || buf[RANGE2] != 0xbb) {
		fprintf(stderr,
			"window_check: an allowed write did not land\n");
		return BROKEN;
	}
	fprintf(stderr,
		"window_check: served: exactly the two writes through the "
		"window landed\n");
	return HELD;
}

static int serve(const struct rs_endpoint *ep)
{
	struct rs_error e = {0};
	struct rs_listener *l = 0;
	struct rs_peer *peer = 0;
	struct rs_mr *mr = 0;
	struct rs_mw *w = 0;
	uint8_t *buf = aligned_alloc(4096, BUF);
	if (!buf || rs_listener_new(ep->host, ep->port, &l, &e) ||
	    rs_listener_open(l, &e))
		return fail(NORUN, "cannot listen", &e);
	memset(buf, 0, BUF);
	fprintf(stderr, "window_check: listening\n");

	struct rs_conn *c1 = accept_one(l, &peer, &mr, buf, &e);
	struct rs_conn *c2 = c1 ? accept_one(l, &peer, &mr, buf, &e) : 0;
	if (!c2)
		return fail(NORUN, "cannot accept the writer's connections",
			    &e);
	if (!rs_peer_has_windows(peer))
		return fail(NORUN, "the device has no type-2 windows", 0);
	if (rs_mw_new(peer, &w, &e))
		return fail(NORUN, "no window", &e);
	struct rs_completion wc;
	if (!bind_and_tell(c1, w, mr, buf, RANGE1) ||
	    rs_conn_recv(c1, mr, RECV_AT, 64, 2) || !wait_id(c1, 1, &wc) ||
	    !wc.ok || !bind_and_tell(c1, w, mr, buf, RANGE2))
		return fail(NORUN, "the exchange with the writer failed", 0);
	/* The writer's last writes fail and end both connections. */
	sleep(3);
	return judge_buffer(buf);
}

/* ---- the writer's side ---- */

static struct rs_conn *connect_one(const struct rs_endpoint *ep,
				   struct rs_peer **peer, struct rs_mr **mr,
				   uint8_t *buf, struct rs_error *e)
{
	struct rs_conn *c = 0;
	struct rs_private_data reply;
	if (rs_conn_resolve(ep->host, ep->port, 3000, &c, e) ||
	    (!*peer && rs_peer_new(c, peer, e)) ||
	    rs_conn_create_qp(c, *peer, 8, 2, e) ||
	    (!*mr && rs_mr_reg(*peer, buf, BUF, RS_MR_LOCAL, mr, e)) ||
	    rs_conn_recv(c, *mr, RECV_AT, 64, 1) ||
	    rs_conn_connect(c, 0, 0, 5000, &reply, e)) {
		rs_conn_delete(&c);
		return 0;
	}
	return c;
}

/* The key the server sent in receive id; posts the next receive. */
static bool take_key(struct rs_conn *c, struct rs_mr *mr, const uint8_t *buf,
		     uint64_t id, struct rs_mr_desc *d)
{
	struct rs_completion wc;
	if (!wait_id(c, id, &wc) || !wc.ok)
		return false;
	struct key_msg m;
	memcpy(&m, buf + RECV_AT, sizeof(m));
	*d = (struct rs_mr_desc){m.addr, m.length, m.rkey,
				 RS_MR_USAGE_WRITE_DST};
	return !rs_conn_recv(c, mr, RECV_AT, 64, id + 1);
}

/* Writes 16 bytes of pattern to d on c: "landed", or what failed. */
static const char *write16(struct rs_conn *c, struct rs_mr *mr, uint8_t *buf,
			   const struct rs_mr_desc *d, uint8_t pattern)
{
	memset(buf + 2048, pattern, 16);
	struct rs_completion wc;
	if (rs_conn_write(c, d, 0, mr, 2048, 16, pattern, RS_POST_SIGNALED))
		return "not posted";
	if (!wait_id(c, pattern, &wc))
		return "no completion";
	return wc.ok ? "landed" : wc.status;
}

static int write_side(const struct rs_endpoint *ep)
{
	struct rs_error e = {0};
	struct rs_peer *peer = 0;
	struct rs_mr *mr = 0;
	uint8_t *buf = aligned_alloc(4096, BUF);
	struct rs_conn *c1 = buf ? connect_one(ep, &peer, &mr, buf, &e) : 0;
	struct rs_conn *c2 = c1 ? connect_one(ep, &peer, &mr, buf, &e) : 0;
	struct rs_mr_desc k1, k2;
	if (!c2 || !take_key(c1, mr, buf, 1, &k1))
		return fail(NORUN, "no window from the server", &e);
	const char *in1 = write16(c1, mr, buf, &k1, 0xaa);
	memcpy(buf + MSG_AT, "next", 4);
	struct rs_completion wc;
	if (rs_conn_send(c1, mr, MSG_AT, 4, 9, RS_POST_SIGNALED) ||
	    !wait_id(c1, 9, &wc) || !take_key(c1, mr, buf, 2, &k2))
		return fail(NORUN, "no second window from the server", 0);
	const char *in2 = write16(c1, mr, buf, &k2, 0xbb);
	const char *other_qp = write16(c2, mr, buf, &k2, 0xcc);
	const char *moved = write16(c1, mr, buf, &k1, 0xdd);
	fprintf(stderr,
		"window_check: wrote: in the window %s; in it moved %s; with "
		"its key from another queue pair: %s; with the key before it "
		"moved: %s\n",
		in1, in2, other_qp, moved);
	bool held = !strcmp(in1, "landed") && !strcmp(in2, "landed") &&
		    !strcmp(other_qp, REMOTE_ACCESS_ERROR) &&
		    !strcmp(moved, REMOTE_ACCESS_ERROR);
	return held ? HELD : BROKEN;
}

int main(int argc, char **argv)
{
	struct rs_endpoint ep;
	struct rs_error e = {0};
	if (argc != 3 || rs_endpoint_parse(argv[2], &ep, &e)) {
		fprintf(stderr, "usage: window_check serve|write HOST:PORT\n");
		return NORUN;
	}
	alarm(60);
	if (!strcmp(argv[1], "serve"))
		return serve(&ep);
	if (!strcmp(argv[1], "write"))
		return write_side(&ep);
	fprintf(stderr, "usage: window_check serve|write HOST:PORT\n");
	return NORUN;
}
