#include "pool/offset_word.h"

/* The word read and checked against the committed end; while a rotation
 * seals the log, any other value than that end breaks a rule: what a
 * writer committed past the seal, the pool's starting over would drop. */
static struct recv_offset_seen look(const struct recv_pmem_target *t)
{
	struct recv_offset_seen s = {.word = recv_pmem_target_offset_word(t)};
	uint64_t committed = recv_pmem_target_write_offset(t);
	s.rule = recv_offset_check(s.word, t->start, t->end, committed);
	if (s.rule == RECV_OFFSET_OK && t->end_sealed && s.word != committed)
		s.rule = RECV_OFFSET_WHILE_SEALED;
	return s;
}

/* A good word becomes the committed end, and the floor with it. */
static void adopt(struct recv_pmem_target *t, struct recv_offset_seen *s)
{
	recv_pmem_target_accept(t, s->word);
	recv_pmem_target_store_floor(t, s->word);
	s->adopted = true;
}

struct recv_offset_seen recv_offset_word_adopt(struct recv_pmem_target *t)
{
	struct recv_offset_seen s = look(t);
	if (s.rule != RECV_OFFSET_OK ||
	    s.word == recv_pmem_target_write_offset(t))
		return s;
	/* What is persistent is what was there when the line was flushed:
	 * the word read, if it is still there after. */
	recv_pmem_target_persist_word(t);
	if (recv_pmem_target_offset_word(t) == s.word)
		adopt(t, &s);
	return s;
}

struct recv_offset_seen recv_offset_word_settle(struct recv_pmem_target *t)
{
	struct recv_offset_seen s = look(t);
	if (s.rule != RECV_OFFSET_OK) {
		/* Put back, persistent: the committed end did not move. */
		recv_pmem_target_commit(t, recv_pmem_target_write_offset(t));
		return s;
	}
	recv_pmem_target_persist_word(t);
	if (s.word != recv_pmem_target_write_offset(t))
		adopt(t, &s);
	return s;
}

void recv_offset_floor_raise(struct recv_pmem_target *t)
{
	recv_pmem_target_store_floor(t, recv_pmem_target_write_offset(t));
}
