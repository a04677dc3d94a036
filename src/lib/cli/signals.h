/* Stop signals for both programs: SIGINT and SIGTERM set a flag and
 * interrupt blocking calls (no SA_RESTART), so a read or wait returns and the
 * program finishes the commit in progress; SIGPIPE is ignored. */
#ifndef RS_SIGNALS_H
#define RS_SIGNALS_H

void rs_signals_install(void (*on_stop)(int));

#endif
