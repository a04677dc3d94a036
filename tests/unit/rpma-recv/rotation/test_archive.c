/* A log's archive directory (rotation/archive.h) on the host: stretches named
 * for their log position and durable before they count, leftovers of a crash
 * removed, a gap refused, pruning from the oldest, and finding a position.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "rotation/archive.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fixture {
	char dir[64];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	strcpy(f->dir, "/tmp/rs-test-archive-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	if (system(cmd))
		return -1;
	free(f);
	return 0;
}

static bool exists(const struct fixture *f, const char *name)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	return access(path, F_OK) == 0;
}

static void touch(const struct fixture *f, const char *name, size_t size)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	for (size_t i = 0; i < size; i++)
		fputc('x', fp);
	fclose(fp);
}

/* Archives len bytes of pattern c from pos. */
static void stretch(struct archive *a, uint64_t pos, size_t len, char c)
{
	char buf[4096];
	struct rs_error err = {0};
	memset(buf, c, sizeof(buf));
	assert_int_equal(archive_stretch_begin(a, pos, &err), 0);
	while (len) {
		size_t n = len < sizeof(buf) ? len : sizeof(buf);
		assert_int_equal(archive_stretch_append(a, buf, n, &err), 0);
		len -= n;
	}
	assert_int_equal(archive_stretch_seal(a, &err), 0);
}

static void stretches_are_named_for_their_position(void **state)
{
	struct fixture *f = *state;
	struct archive *a;
	struct rs_error err = {0};
	assert_int_equal(archive_open(f->dir, "app", &a, &err), 0);
	struct archive_usage u = archive_usage(a);
	assert_int_equal(u.files, 0);
	stretch(a, 0, 5000, 'a');
	stretch(a, 5000, 3000, 'b');
	u = archive_usage(a);
	assert_int_equal(u.files, 2);
	assert_int_equal(u.start, 0);
	assert_int_equal(u.end, 8000);
	assert_true(exists(f, "app-00000000000000000000.log"));
	assert_true(exists(f, "app-00000000000000005000.log"));
	/* A stretch that would leave a gap is refused. */
	assert_int_equal(archive_stretch_begin(a, 9000, &err), RS_E_INVAL);
	archive_close(&a);
	/* Opened again: the same. */
	assert_int_equal(archive_open(f->dir, "app", &a, &err), 0);
	u = archive_usage(a);
	assert_int_equal(u.files, 2);
	assert_int_equal(u.end, 8000);
	archive_close(&a);
}

/* Descriptors this process has open. */
static unsigned open_descriptors(void)
{
	unsigned n = 0;
	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) != -1;
	return n;
}

/* A receiver serving a thousand archived logs holds no descriptor for
 * their archives between calls, even with a stretch half written; what is
 * appended in pieces is the stretch, in order. */
static void an_archive_holds_no_descriptor(void **state)
{
	struct fixture *f = *state;
	struct archive *a;
	struct rs_error err = {0};
	unsigned before = open_descriptors();
	assert_int_equal(archive_open(f->dir, "app", &a, &err), 0);
	assert_int_equal(archive_stretch_begin(a, 0, &err), 0);
	assert_int_equal(archive_stretch_append(a, "one,", 4, &err), 0);
	assert_int_equal(archive_stretch_sync(a, &err), 0);
	assert_int_equal(archive_stretch_append(a, "two", 3, &err), 0);
	assert_int_equal(open_descriptors(), before);
	assert_true(exists(f, ".app-00000000000000000000.log.part"));
	assert_int_equal(archive_stretch_length(a), 7);
	assert_int_equal(archive_stretch_seal(a, &err), 0);
	assert_int_equal(open_descriptors(), before);
	char path[PATH_MAX], got[16] = {0};
	snprintf(path, sizeof(path), "%s/app-00000000000000000000.log", f->dir);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	assert_int_equal(fread(got, 1, sizeof(got), fp), 7);
	fclose(fp);
	assert_string_equal(got, "one,two");
	archive_close(&a);
	assert_int_equal(open_descriptors(), before);
}

static void unsealed_stretch_does_not_count(void **state)
{
	struct fixture *f = *state;
	struct archive *a;
	struct rs_error err = {0};
	assert_int_equal(archive_open(f->dir, "app", &a, &err), 0);
	stretch(a, 100, 50, 'a'); /* an archive may start anywhere */
	assert_int_equal(archive_stretch_begin(a, 150, &err), 0);
	assert_int_equal(archive_stretch_append(a, "xyz", 3, &err), 0);
	assert_int_equal(archive_stretch_length(a), 3);
	assert_false(exists(f, "app-00000000000000000150.log"));
	assert_true(exists(f, ".app-00000000000000000150.log.part"));
	/* As a crash leaves it: the next open removes it. */
	touch(f, ".app-00000000000000000150.log.part", 10);
	archive_close(&a); /* closing abandons the open stretch too */
	touch(f, ".app-00000000000000000150.log.part", 10);
	assert_int_equal(archive_open(f->dir, "app", &a, &err), 0);
	assert_false(exists(f, ".app-00000000000000000150.log.part"));
	struct archive_usage u = archive_usage(a);
	assert_int_equal(u.start, 100);
	assert_int_equal(u.end, 150);
	archive_close(&a);
}

static void a_gap_is_refused_and_others_ignored(void **state)
{
	struct fixture *f = *state;
	struct archive *a;
	struct rs_error err = {0};
	touch(f, "app-00000000000000000000.log", 10);
	touch(f, "app-00000000000000000020.log", 10);
	touch(f, "other-00000000000000000000.log", 10); /* another log's */
	touch(f, "app-0000000000000000002.log", 10);	/* not a name of ours */
	touch(f, "README", 10);
	assert_int_equal(archive_open(f->dir, "app", &a, &err), RS_E_MALFORMED);
	assert_non_null(strstr(err.msg, "app-00000000000000000020.log"));
	assert_non_null(strstr(err.msg, "ends at 10"));
	assert_int_equal(archive_open(f->dir, "other", &a, &err), 0);
	assert_int_equal(archive_usage(a).end, 10);
	archive_close(&a);
}

static void a_missing_directory_is_named(void **state)
{
	struct fixture *f = *state;
	struct archive *a;
	struct rs_error err = {0};
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/nope", f->dir);
	assert_int_equal(archive_open(dir, "app", &a, &err), RS_E_IO);
	assert_non_null(strstr(err.msg, dir));
	assert_non_null(strstr(err.msg, "create the directory"));
}

static void pruning_removes_the_oldest(void **state)
{
	struct fixture *f = *state;
	struct archive *a;
	struct rs_error err = {0};
	assert_int_equal(archive_open(f->dir, "", &a, &err), 0);
	for (int i = 0; i < 5; i++)
		stretch(a, (uint64_t)i * 100, 100, (char)('a' + i));
	assert_true(exists(f, "log-00000000000000000000.log"));
	assert_int_equal(archive_prune(a, 3, 0, &err), 2);
	struct archive_usage u = archive_usage(a);
	assert_int_equal(u.files, 3);
	assert_int_equal(u.start, 200);
	assert_false(exists(f, "log-00000000000000000100.log"));
	assert_int_equal(archive_prune(a, 0, 150, &err), 2);
	u = archive_usage(a);
	assert_int_equal(u.files, 1);
	assert_int_equal(u.start, 400);
	/* Never the newest, even over the limit. */
	assert_int_equal(archive_prune(a, 0, 10, &err), 0);
	assert_int_equal(archive_usage(a).files, 1);
	archive_close(&a);
}

static void positions_are_found_in_their_file(void **state)
{
	struct fixture *f = *state;
	struct archive *a;
	struct rs_error err = {0};
	assert_int_equal(archive_open(f->dir, "app", &a, &err), 0);
	stretch(a, 1000, 100, 'a');
	stretch(a, 1100, 50, 'b');
	char path[PATH_MAX];
	uint64_t off, left;
	assert_int_equal(archive_locate(a, 1100, path, &off, &left, &err), 0);
	assert_non_null(strstr(path, "app-00000000000000001100.log"));
	assert_int_equal(off, 0);
	assert_int_equal(left, 50);
	assert_int_equal(archive_locate(a, 1099, path, &off, &left, &err), 0);
	assert_non_null(strstr(path, "app-00000000000000001000.log"));
	assert_int_equal(off, 99);
	assert_int_equal(left, 1);
	assert_int_equal(archive_locate(a, 999, path, &off, &left, &err),
			 RS_E_INVAL);
	assert_int_equal(archive_locate(a, 1150, path, &off, &left, &err),
			 RS_E_INVAL);
	archive_close(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		stretches_are_named_for_their_position, setup, teardown),
	    cmocka_unit_test_setup_teardown(an_archive_holds_no_descriptor,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(unsealed_stretch_does_not_count,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(a_gap_is_refused_and_others_ignored,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(a_missing_directory_is_named, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(pruning_removes_the_oldest, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(positions_are_found_in_their_file,
					    setup, teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
