/* What a test's calls write to stderr, captured: stderr_capture_start,
 * the calls, then stderr_capture_end gives their text (one capture at a
 * time). */
#ifndef TEST_STDERR_CAPTURE_H
#define TEST_STDERR_CAPTURE_H

#include <stdio.h>
#include <unistd.h>

static FILE *stderr_capture_file;
static int stderr_capture_saved = -1;

static inline void stderr_capture_start(void)
{
	fflush(stderr);
	stderr_capture_file = tmpfile();
	assert_non_null(stderr_capture_file);
	stderr_capture_saved = dup(STDERR_FILENO);
	dup2(fileno(stderr_capture_file), STDERR_FILENO);
}

/* The text written since the start (its first 4 KiB). */
static inline const char *stderr_capture_end(void)
{
	static char text[4096];
	fflush(stderr);
	dup2(stderr_capture_saved, STDERR_FILENO);
	close(stderr_capture_saved);
	rewind(stderr_capture_file);
	size_t n = fread(text, 1, sizeof(text) - 1, stderr_capture_file);
	text[n] = '\0';
	fclose(stderr_capture_file);
	return text;
}

#endif
