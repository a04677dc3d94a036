/* The tests' knob: RPMA_SEND_STOP_AT=STEP stops the sender (SIGSTOP) the
 * first time it gets to STEP, so that a test can fail the link or the
 * receiver exactly there. Steps: window-asking (replicas/replica.c),
 * resume-checked (commands/resume.c). */
#ifndef SEND_STOP_FOR_TESTS_H
#define SEND_STOP_FOR_TESTS_H

void send_stop_for_tests_once(const char *step);

#endif
