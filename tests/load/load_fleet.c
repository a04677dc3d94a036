#include "load_fleet.h"

#include "cli/log.h"
#include "error.h"
#include "replicas/fleet.h"
#include "stream/window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#define LOAD_FDS_MAX 4		  /* a session's descriptors (fleet_pollfds) */
#define LOAD_TICK_NS 100000000ull /* keepalives, reconnects */
#define LOAD_SWEEP_NS 1000000000ull /* every session looked at anyway */
/* Lines shipped and not yet committed, a session's at most: its window's
 * batches (4 KiB, 2 in flight, one filling) of 100-byte lines. */
#define LOAD_DUE_MAX 128

struct load_session {
	struct load_fleet *lf;
	unsigned index;	 /* in this fleet (rides along in epoll) */
	unsigned number; /* in the whole load: its log and its lines say it */
	char name[32];
	struct ship_config cfg;
	struct fleet *f;
	struct send_window *w;
	struct window_link link;
	uint64_t next_line_ns; /* 0: idle */
	uint64_t sent;
	/* When each line shipped and not yet committed was due, oldest
	 * first: its latency counts from then (a line that waited for room
	 * in the window waited too: no coordinated omission). */
	uint64_t due[LOAD_DUE_MAX];
	unsigned due_first, due_n;
	int fds[LOAD_FDS_MAX]; /* as registered with the epoll set */
	unsigned nfds;
};

struct load_fleet {
	struct load_fleet_config cfg;
	struct load_session *s;
	unsigned interval_ms;
	struct send_stats *stats; /* where commit latencies go, or NULL */
	int epfd;
	uint64_t next_tick_ns;
	unsigned sweep_at; /* the next session the sweep looks at */
	uint8_t *line;
	struct load_fleet_busy busy; /* since load_fleet_take_busy */
};

static int link_post(void *ctx, unsigned i, struct window_batch *b)
{
	struct load_session *s = ctx;
	if (s->lf->stats)
		send_stats_posted(s->lf->stats, b->posted_ns);
	return fleet_post(s->f, i, b);
}

/* Each line of the batch committed, from when it was due. */
static void link_committed(void *ctx, const struct window_batch *b)
{
	struct load_session *s = ctx;
	uint64_t now = send_stats_now_ns();
	uint32_t size = s->lf->cfg.line_size;
	for (uint32_t done = 0; done + size <= b->length; done += size) {
		uint64_t due = b->posted_ns;
		if (s->due_n) {
			due = s->due[s->due_first];
			s->due_first = (s->due_first + 1) % LOAD_DUE_MAX;
			s->due_n--;
		}
		if (s->lf->stats)
			send_stats_commit(s->lf->stats, size,
					  now > due ? now - due : 0, now);
	}
}

static void note_due(struct load_session *s, uint64_t due)
{
	if (s->due_n == LOAD_DUE_MAX)
		return; /* cannot be: the window holds fewer lines */
	s->due[(s->due_first + s->due_n) % LOAD_DUE_MAX] = due;
	s->due_n++;
}

struct load_fleet *load_fleet_new(const struct load_fleet_config *cfg)
{
	struct load_fleet *lf = calloc(1, sizeof(*lf));
	if (!lf)
		return 0;
	lf->cfg = *cfg;
	lf->s = calloc(cfg->sessions, sizeof(*lf->s));
	lf->line = malloc(cfg->line_size);
	lf->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!lf->s || !lf->line || lf->epfd < 0) {
		load_fleet_delete(lf);
		return 0;
	}
	for (unsigned i = 0; i < cfg->sessions; i++) {
		struct load_session *s = &lf->s[i];
		*s = (struct load_session){
		    .lf = lf, .index = i, .number = cfg->first + i};
		s->link = (struct window_link){s, link_post, link_committed};
		snprintf(s->name, sizeof(s->name), "%s%u", cfg->prefix,
			 s->number);
	}
	return lf;
}

void load_fleet_delete(struct load_fleet *lf)
{
	if (!lf)
		return;
	for (unsigned i = 0; lf->s && i < lf->cfg.sessions; i++)
		fleet_delete(lf->s[i].f);
	if (lf->epfd >= 0)
		close(lf->epfd);
	free(lf->s);
	free(lf->line);
	free(lf);
}

const char *load_fleet_log(const struct load_fleet *lf, unsigned i)
{
	return lf->s[i].name;
}

uint64_t load_fleet_lines_sent(const struct load_fleet *lf, unsigned i)
{
	return lf->s[i].sent;
}

uint64_t load_fleet_lines_committed(const struct load_fleet *lf, unsigned i)
{
	const struct load_session *s = &lf->s[i];
	return s->w ? window_committed_input(s->w) / lf->cfg.line_size : 0;
}

/* The epoll set holds exactly the session's descriptors of now (a
 * reconnection brings new ones); the session's index rides along. An ADD
 * that finds one there already is no error: a descriptor closed and
 * opened again under the same number is so registered again. */
static void sync_fds(struct load_session *s)
{
	struct pollfd pfd[LOAD_FDS_MAX];
	nfds_t n = s->f ? fleet_pollfds(s->f, pfd) : 0;
	for (unsigned j = 0; j < s->nfds; j++)
		epoll_ctl(s->lf->epfd, EPOLL_CTL_DEL, s->fds[j], 0);
	s->nfds = 0;
	for (nfds_t j = 0; j < n && j < LOAD_FDS_MAX; j++) {
		struct epoll_event ev = {.events = EPOLLIN,
					 .data.u32 = s->index};
		epoll_ctl(s->lf->epfd, EPOLL_CTL_ADD, pfd[j].fd, &ev);
		s->fds[s->nfds++] = pfd[j].fd;
	}
}

/* Whether the set still matches (no system call when it does). */
static bool fds_changed(const struct load_session *s)
{
	struct pollfd pfd[LOAD_FDS_MAX];
	nfds_t n = s->f ? fleet_pollfds(s->f, pfd) : 0;
	if (n != s->nfds)
		return true;
	for (nfds_t j = 0; j < n; j++)
		if (pfd[j].fd != s->fds[j])
			return true;
	return false;
}

int load_fleet_connect(struct load_fleet *lf, unsigned i)
{
	struct load_session *s = &lf->s[i];
	struct rs_error err = {0};
	char target[300];
	snprintf(target, sizeof(target), "%s/%s", lf->cfg.host, s->name);
	s->cfg = (struct ship_config){
	    .method = lf->cfg.method,
	    .batch_size = lf->cfg.line_size > 4096 ? lf->cfg.line_size : 4096,
	    .depth = 2,
	    .flush_interval_ms = 5,
	    .connect_timeout_ms = 10000,
	    .retries = lf->cfg.retries,
	};
	if (rs_target_parse(target, &s->cfg.remote, &err)) {
		rs_err("%s", err.msg);
		return RS_E_INVAL;
	}
	s->f = fleet_new(&s->cfg, &s->link);
	if (!s->f) {
		rs_err("out of memory");
		return RS_E_NOMEM;
	}
	s->w = fleet_window(s->f);
	int rc = fleet_start(s->f, 0);
	if (!rc)
		sync_fds(s);
	return rc;
}

void load_fleet_pace(struct load_fleet *lf, unsigned from, unsigned to,
		     unsigned interval_ms, struct send_stats *stats)
{
	uint64_t now = send_stats_now_ns();
	uint64_t interval = (uint64_t)interval_ms * 1000000ull;
	lf->interval_ms = interval_ms;
	lf->stats = stats;
	for (unsigned i = from; i < to; i++)
		lf->s[i].next_line_ns =
		    interval ? now + interval * (i - from) / (to - from) : 0;
}

/* "load s=SESSION n=LINE ", '.' up to the line's size, '\n'. */
static void make_line(struct load_fleet *lf, const struct load_session *s)
{
	uint32_t size = lf->cfg.line_size;
	memset(lf->line, '.', size);
	int n = snprintf((char *)lf->line, size, "load s=%u n=%llu ", s->number,
			 (unsigned long long)s->sent);
	if (n > 0 && (uint32_t)n < size)
		lf->line[n] = '.'; /* snprintf's NUL */
	lf->line[size - 1] = '\n';
}

/* Places the session's next line and commits it at once. False when the
 * window has no room for it now (a line still in flight, a full log that
 * is being archived and started over, which the line's size divides):
 * it stays due. */
static bool ship_line(struct load_session *s, uint64_t now)
{
	struct load_fleet *lf = s->lf;
	uint32_t room;
	uint8_t *space = window_space(s->w, &room);
	if (space && room == 0) { /* a full pool: archived, started over */
		fleet_make_room(s->f);
		return false;
	}
	if (!space || room < lf->cfg.line_size)
		return false;
	make_line(lf, s);
	memcpy(space, lf->line, lf->cfg.line_size);
	note_due(s, s->next_line_ns);
	window_filled(s->w, lf->cfg.line_size, now);
	window_flush(s->w, now);
	s->sent++;
	s->next_line_ns += (uint64_t)lf->interval_ms * 1000000ull;
	return true;
}

/* Every session's lines that are due; returns when the next one is. */
static uint64_t ship_due(struct load_fleet *lf, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	for (unsigned i = 0; i < lf->cfg.sessions; i++) {
		struct load_session *s = &lf->s[i];
		if (!s->next_line_ns || !s->w ||
		    window_state(s->w) != WINDOW_STREAMING)
			continue;
		if (s->next_line_ns <= now) {
			/* No room yet: the completion that makes it, or the
			 * tick that reconnects, wakes the loop; waiting for
			 * nothing would spin it while the receiver is away. */
			if (!ship_line(s, now))
				continue;
			if (fds_changed(s))
				sync_fds(s);
		}
		if (s->next_line_ns < next)
			next = s->next_line_ns;
	}
	return next;
}

static void take_events(struct load_session *s)
{
	if (!s->w || !window_streaming(s->w))
		return;
	fleet_take_events(s->f);
	if (fds_changed(s))
		sync_fds(s);
}

/* A closed descriptor leaves the epoll set, and a reconnection may open
 * a new one under its number, which fds_changed cannot see: the sweep adds
 * the session's descriptors again (EEXIST: still there). */
static void add_fds_again(struct load_session *s)
{
	for (unsigned j = 0; j < s->nfds; j++) {
		struct epoll_event ev = {.events = EPOLLIN,
					 .data.u32 = s->index};
		epoll_ctl(s->lf->epfd, EPOLL_CTL_ADD, s->fds[j], &ev);
	}
}

/* Each session's events whether or not its descriptors said so, and its
 * descriptors registered again: every session once per LOAD_SWEEP_NS, a
 * slice each tick. All at once, a thousand sessions' system calls stall
 * the loop for tens of milliseconds under TCG, and the commits that
 * complete meanwhile count it in their latency. */
static void sweep_slice(struct load_fleet *lf)
{
	unsigned n = lf->cfg.sessions;
	uint64_t per_tick =
	    (n * LOAD_TICK_NS + LOAD_SWEEP_NS - 1) / LOAD_SWEEP_NS;
	for (uint64_t k = 0; k < per_tick; k++) {
		struct load_session *s = &lf->s[lf->sweep_at];
		lf->sweep_at = (lf->sweep_at + 1) % n;
		if (!s->w || !window_streaming(s->w))
			continue;
		fleet_take_events(s->f);
		if (fds_changed(s))
			sync_fds(s);
		else
			add_fds_again(s);
	}
}

/* Keepalives and reconnects every tick, and a slice of the sweep. */
static void tick(struct load_fleet *lf, uint64_t now)
{
	for (unsigned i = 0; i < lf->cfg.sessions; i++) {
		struct load_session *s = &lf->s[i];
		if (!s->w || !window_streaming(s->w))
			continue;
		fleet_tick(s->f, now);
		if (fds_changed(s))
			sync_fds(s);
	}
	sweep_slice(lf);
	lf->next_tick_ns = now + LOAD_TICK_NS;
}

/* How long the loop went without waiting: a commit that completed
 * meanwhile waited for it too. */
static void count_busy(struct load_fleet *lf, uint64_t woke, uint64_t now)
{
	uint64_t busy = now - woke;
	if (busy > lf->busy.longest_ns)
		lf->busy.longest_ns = busy;
	if (busy > LOAD_BUSY_LONG_NS)
		lf->busy.long_turns++;
	lf->busy.turns++;
}

void load_fleet_take_busy(struct load_fleet *lf, struct load_fleet_busy *out)
{
	*out = lf->busy;
	lf->busy = (struct load_fleet_busy){0};
}

void load_fleet_serve(struct load_fleet *lf, unsigned ms)
{
	uint64_t end = send_stats_now_ns() + (uint64_t)ms * 1000000ull;
	struct epoll_event ev[64];
	for (uint64_t woke = 0;;) {
		uint64_t now = send_stats_now_ns();
		if (now >= lf->next_tick_ns)
			tick(lf, now);
		uint64_t next = ship_due(lf, now);
		if (now >= end)
			return;
		if (next > end)
			next = end;
		if (next > lf->next_tick_ns)
			next = lf->next_tick_ns;
		int wait =
		    next > now ? (int)((next - now + 999999) / 1000000) : 0;
		now = send_stats_now_ns();
		if (woke)
			count_busy(lf, woke, now);
		int n = epoll_wait(lf->epfd, ev, 64, wait);
		woke = send_stats_now_ns();
		for (int j = 0; j < n; j++)
			take_events(&lf->s[ev[j].data.u32]);
	}
}

static bool all_done(const struct load_fleet *lf)
{
	for (unsigned i = 0; i < lf->cfg.sessions; i++) {
		const struct load_session *s = &lf->s[i];
		if (s->w && window_state(s->w) != WINDOW_DONE)
			return false;
	}
	return true;
}

unsigned load_fleet_finish(struct load_fleet *lf, unsigned timeout_ms)
{
	uint64_t now = send_stats_now_ns();
	uint64_t end = now + (uint64_t)timeout_ms * 1000000ull;
	for (unsigned i = 0; i < lf->cfg.sessions; i++) {
		lf->s[i].next_line_ns = 0;
		if (lf->s[i].w && window_state(lf->s[i].w) == WINDOW_STREAMING)
			window_input_end(lf->s[i].w, now);
	}
	while (!all_done(lf) && send_stats_now_ns() < end)
		load_fleet_serve(lf, 100);
	unsigned bad = 0;
	for (unsigned i = 0; i < lf->cfg.sessions; i++) {
		struct load_session *s = &lf->s[i];
		if (!s->f) {
			bad++;
			continue;
		}
		if (window_state(s->w) != WINDOW_DONE)
			window_stop(s->w);
		bad += fleet_finish(s->f, 0) != 0;
	}
	return bad;
}
