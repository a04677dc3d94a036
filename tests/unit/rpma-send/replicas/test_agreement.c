/* The start agreement (replicas/agreement.c): replicas holding the same
 * log agree, hashes asked of each over its whole length; logs of
 * different lengths diverge before any hash is asked, said one line per
 * replica; the same length with a different hash diverges, said with the
 * hashes; empty logs and a single replica agree without asking; a
 * receiver that cannot answer stops the check with its code, the rest not
 * asked; a log that changed while hashed diverges.
 * The replicas are fakes: the test links with --wrap for replica_label,
 * replica_target, replica_granted_end and verify_digest, which answer with
 * each fake's length and hash. stderr is a file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../stderr_capture.h"

#include "cli/log.h"
#include "error.h"
#include "replicas/agreement.h"
#include "verify/verifier.h"

#include <stdio.h>
#include <string.h>

#define NMAX 3
#define KIB4 4096u

/* ---- the replicas, as the agreement finds them ---- */

struct fake_replica {
	char label[32];
	struct rs_target target;
	uint64_t end;	  /* its grant's log end */
	uint64_t digest;  /* its receiver's hash of it */
	uint64_t covered; /* what the hash covers, if not end */
	int rc;		  /* its receiver's answer */
	unsigned asked;
};

static struct fake_replica fakes[NMAX];
static struct replica *replicas[NMAX];
static const struct rs_auth_key key = {.len = 16};
static const struct ship_config cfg = {.connect_timeout_ms = 1234,
				       .auth_key = &key};

static struct fake_replica *fake_of(const struct replica *r)
{
	return (struct fake_replica *)r;
}

const char *__wrap_replica_label(const struct replica *r);
const char *__wrap_replica_label(const struct replica *r)
{
	return fake_of(r)->label;
}

const struct rs_target *__wrap_replica_target(const struct replica *r);
const struct rs_target *__wrap_replica_target(const struct replica *r)
{
	return &fake_of(r)->target;
}

uint64_t __wrap_replica_granted_end(const struct replica *r);
uint64_t __wrap_replica_granted_end(const struct replica *r)
{
	return fake_of(r)->end;
}

/* The receiver cfg->remote names hashes its log from 0 to length, over a
 * session of the sender's options. */
int __wrap_verify_digest(const struct verify_config *vc, uint64_t *length,
			 uint64_t *digest);
int __wrap_verify_digest(const struct verify_config *vc, uint64_t *length,
			 uint64_t *digest)
{
	struct fake_replica *f = 0;
	for (unsigned i = 0; i < NMAX && !f; i++)
		if (!strcmp(fakes[i].target.endpoint.host,
			    vc->remote.endpoint.host))
			f = &fakes[i];
	assert_non_null(f);
	f->asked++;
	assert_int_equal(vc->method, VERIFY_HASH);
	assert_false(vc->whole_log);
	assert_int_equal(vc->offset, 0);
	assert_int_equal(vc->length, f->end);
	assert_int_equal(vc->timeout_ms, 1234);
	assert_ptr_equal(vc->auth_key, &key);
	*length = f->covered ? f->covered : vc->length;
	*digest = f->digest;
	return f->rc;
}

/* n replicas, each ending at end and hashing to 0x1234abcd. */
static void replicas_of(unsigned n, uint64_t end)
{
	memset(fakes, 0, sizeof(fakes));
	for (unsigned i = 0; i < n; i++) {
		struct fake_replica *f = &fakes[i];
		snprintf(f->label, sizeof(f->label), "receiver %u", i);
		snprintf(f->target.endpoint.host,
			 sizeof(f->target.endpoint.host), "10.0.0.%u", i + 1);
		f->end = end;
		f->digest = 0x1234abcd;
		replicas[i] = (struct replica *)f;
	}
}

/* The check of the first n, and what it said. */
static int check(unsigned n, const char **said)
{
	stderr_capture_start();
	int rc = agreement_check(replicas, n, &cfg);
	*said = stderr_capture_end();
	return rc;
}

static unsigned asked(unsigned n)
{
	unsigned sum = 0;
	for (unsigned i = 0; i < n; i++)
		sum += fakes[i].asked;
	return sum;
}

static const char *const advice =
    "test: the replicas do not hold the same log: start them all over with "
    "--truncate, or ship to each on its own\n";

/* ---- the tests ---- */

/* Three receivers holding 4 KiB that hash the same: agreed, each asked
 * once (said with -v only). */
static void the_same_length_and_hash_agree(void **state)
{
	(void)state;
	const char *said;
	replicas_of(3, KIB4);
	assert_int_equal(check(3, &said), 0);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(fakes[i].asked, 1);
	assert_string_equal(said,
			    "test: the 3 replicas hold the same 4096 bytes\n");
}

/* 4 KiB against 8 KiB: diverged, each replica's length said, no hash
 * asked (it could not be the same). */
static void different_lengths_diverge_unhashed(void **state)
{
	(void)state;
	const char *said;
	replicas_of(3, KIB4);
	fakes[1].end = 2 * KIB4;
	assert_int_equal(check(3, &said), RS_E_DIVERGED);
	assert_int_equal(asked(3), 0);
	char want[512];
	snprintf(want, sizeof(want),
		 "test: receiver 0 holds 4096 bytes\n"
		 "test: receiver 1 holds 8192 bytes\n"
		 "test: receiver 2 holds 4096 bytes\n%s",
		 advice);
	assert_string_equal(said, want);
}

/* The same length, the last replica's bytes different: diverged, each
 * said with its hash. */
static void a_different_hash_diverges(void **state)
{
	(void)state;
	const char *said;
	replicas_of(3, KIB4);
	fakes[2].digest = 0xfeed;
	assert_int_equal(check(3, &said), RS_E_DIVERGED);
	assert_int_equal(asked(3), 3);
	char want[512];
	snprintf(
	    want, sizeof(want),
	    "test: receiver 0 holds 4096 bytes (hash 000000001234abcd)\n"
	    "test: receiver 1 holds 4096 bytes (hash 000000001234abcd)\n"
	    "test: receiver 2 holds 4096 bytes (hash 000000000000feed)\n%s",
	    advice);
	assert_string_equal(said, want);
}

/* Empty logs agree, whatever they would hash to; one replica agrees
 * with itself: nothing asked. */
static void empty_logs_and_one_replica_agree_unasked(void **state)
{
	(void)state;
	const char *said;
	replicas_of(3, 0);
	fakes[1].digest = 0xfeed;
	assert_int_equal(check(3, &said), 0);
	replicas_of(1, KIB4);
	assert_int_equal(check(1, &said), 0);
	assert_int_equal(asked(3), 0);
}

/* The second receiver does not answer: its code, the third not asked,
 * nothing said of a divergence (what failed says itself). */
static void a_receiver_not_answering_stops_the_check(void **state)
{
	(void)state;
	const char *said;
	replicas_of(3, KIB4);
	fakes[1].rc = RS_E_UNREACHABLE;
	assert_int_equal(check(3, &said), RS_E_UNREACHABLE);
	assert_int_equal(fakes[0].asked, 1);
	assert_int_equal(fakes[1].asked, 1);
	assert_int_equal(fakes[2].asked, 0);
	assert_null(strstr(said, "do not hold the same log"));
}

/* A hash covering less than the log's length: the log changed while it
 * was hashed (another writer): diverged, named. */
static void a_log_that_changed_while_hashed_diverges(void **state)
{
	(void)state;
	const char *said;
	replicas_of(2, KIB4);
	fakes[1].covered = KIB4 + 100;
	assert_int_equal(check(2, &said), RS_E_DIVERGED);
	assert_string_equal(said, "test: the log on receiver 1 changed while "
				  "it was being checked\n");
}

static int verbose(void **state)
{
	(void)state;
	rs_log_init("test", RS_LOG_VERBOSE);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_same_length_and_hash_agree),
	    cmocka_unit_test(different_lengths_diverge_unhashed),
	    cmocka_unit_test(a_different_hash_diverges),
	    cmocka_unit_test(empty_logs_and_one_replica_agree_unasked),
	    cmocka_unit_test(a_receiver_not_answering_stops_the_check),
	    cmocka_unit_test(a_log_that_changed_while_hashed_diverges),
	};
	return cmocka_run_group_tests(tests, verbose, 0);
}
