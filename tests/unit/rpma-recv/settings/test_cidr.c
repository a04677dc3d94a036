/* Address ranges of the receiver's allow lists (settings/cidr.h): IPv4,
 * IPv6 and IPv4-mapped addresses, and the texts refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "settings/cidr.h"

#include <arpa/inet.h>
#include <netinet/in.h>

static struct sockaddr_in v4(const char *text)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	inet_pton(AF_INET, text, &sa.sin_addr);
	return sa;
}

static struct sockaddr_in6 v6(const char *text)
{
	struct sockaddr_in6 sa = {.sin6_family = AF_INET6};
	inet_pton(AF_INET6, text, &sa.sin6_addr);
	return sa;
}

static void cidr_ranges(void **state)
{
	(void)state;
	struct recv_cidr c;
	assert_int_equal(recv_cidr_parse("192.0.2.0/24", &c, 0), 0);
	struct sockaddr_in in = v4("192.0.2.77"), out = v4("192.0.3.1");
	assert_true(recv_cidr_match(&c, (struct sockaddr *)&in));
	assert_false(recv_cidr_match(&c, (struct sockaddr *)&out));
	struct sockaddr_in6 mapped = v6("::ffff:192.0.2.9");
	assert_true(recv_cidr_match(&c, (struct sockaddr *)&mapped));

	/* One address. */
	assert_int_equal(recv_cidr_parse("192.0.2.2", &c, 0), 0);
	struct sockaddr_in two = v4("192.0.2.2"), three = v4("192.0.2.3");
	assert_true(recv_cidr_match(&c, (struct sockaddr *)&two));
	assert_false(recv_cidr_match(&c, (struct sockaddr *)&three));

	/* Everyone. */
	assert_int_equal(recv_cidr_parse("10.1.2.3/0", &c, 0), 0);
	assert_true(recv_cidr_match(&c, (struct sockaddr *)&out));

	assert_int_equal(recv_cidr_parse("fe80::/10", &c, 0), 0);
	struct sockaddr_in6 link = v6("fe80::1"), global = v6("2001:db8::1");
	assert_true(recv_cidr_match(&c, (struct sockaddr *)&link));
	assert_false(recv_cidr_match(&c, (struct sockaddr *)&global));
	assert_false(recv_cidr_match(&c, (struct sockaddr *)&in));

	assert_int_equal(recv_cidr_parse("192.0.2.128/25", &c, 0), 0);
	assert_false(recv_cidr_match(&c, (struct sockaddr *)&in));

	assert_int_equal(recv_cidr_parse("192.0.2.0/33", &c, 0), RS_E_INVAL);
	assert_int_equal(recv_cidr_parse("192.0.2.0/", &c, 0), RS_E_INVAL);
	assert_int_equal(recv_cidr_parse("192.0.2.0/x", &c, 0), RS_E_INVAL);
	assert_int_equal(recv_cidr_parse("host.example/24", &c, 0), RS_E_INVAL);
	assert_int_equal(recv_cidr_parse("", &c, 0), RS_E_INVAL);
	assert_int_equal(recv_cidr_parse("/24", &c, 0), RS_E_INVAL);
	assert_int_equal(recv_cidr_parse("fe80::/129", &c, 0), RS_E_INVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(cidr_ranges),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
