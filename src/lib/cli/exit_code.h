/* Exit codes of both programs, documented in rpma-send(1) and rpma-recv(1).
 * With --verify, rpma-send follows cmp(1): 0 same, 1 different, 2 trouble. */
#ifndef RS_EXIT_CODE_H
#define RS_EXIT_CODE_H

enum rs_exit_code {
	RS_EXIT_OK = 0,
	RS_EXIT_DIFFERENT = 1, /* --verify: the replica differs */
	RS_EXIT_USAGE = 2,     /* bad option, unreadable input, not a pool */
	RS_EXIT_CONNECT = 3,   /* nobody listening, connection lost */
	RS_EXIT_LOG_FULL = 4,  /* the remote log has no room left */
	RS_EXIT_REFUSED = 5,   /* the peer refused us (busy, version, method) */
	RS_EXIT_NOT_PREFIX = 6, /* --resume: the log is not a prefix of FILE;
				   replicas that do not hold the same log */
	RS_EXIT_FEWER_REPLICAS =
	    7,			  /* committed on fewer replicas than listed */
	RS_EXIT_INPUT_LOST = 8,	  /* -f: input went before it was read */
	RS_EXIT_INPUT_LEFT = 9,	  /* -f: stopped with input left unread */
	RS_EXIT_INTERRUPTED = 20, /* SIGINT or SIGTERM before the run's end
				     (as rsync's 20) */
};

#endif
