/* What rpma-recv serves and how: the global settings and one entry per log.
 * Filled from the command line (`POOL`, `--log NAME=POOL` and options) and
 * from a configuration file in the spirit of rsyncd.conf:
 *
 *   # comment
 *   port = 7204            global settings first
 *   [app]                  then one section per log, named
 *   pool = /mnt/pmem/app.pool
 *
 * Every error names the place: "FILE:LINE: what is wrong, and the fix". */
#ifndef RECV_SETTINGS_H
#define RECV_SETTINGS_H

#include "cli/endpoint.h"
#include "proto/auth.h"
#include "proto/descriptor.h"
#include "settings/cidr.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#define RECV_ALLOW_MAX 32
#define RECV_LOGS_MAX 4096

/* The most max-senders may be (its row in settings/table.c; the status
 * line makes room for that many). Every other range is in the table. */
#define RECV_MAX_SENDERS_MAX 1024

/* One log: a pool and who may use it how. */
struct recv_log_settings {
	char name[RS_LOG_NAME_MAX + 1]; /* "" only for `rpma-recv POOL` */
	char pool_path[PATH_MAX];
	uint64_t create_size; /* 0: the pool must exist */
	struct recv_cidr allow[RECV_ALLOW_MAX];
	unsigned nallow;	      /* 0: anyone */
	char auth_key_path[PATH_MAX]; /* "" : no key */
	struct rs_auth_key auth_key;  /* loaded from auth_key_path */
	uint8_t methods;	      /* RS_METHOD_BIT() of each allowed */
	bool direct_write_to_pmem;    /* DDIO off: apm may be offered */
	bool append_only; /* no RDMA write reaches the pool: staged only */
	char archive_dir[PATH_MAX]; /* "" : no archive, a full pool is full */
	uint8_t rotate_at;	    /* percent of the pool that starts one */
	uint32_t archive_keep;	    /* files kept at most, 0: all */
	uint64_t archive_max;	    /* bytes kept at most, 0: all */
	/* The pool's file as it was when the log joined (st_dev, st_ino; 0:
	 * not there yet), so that a thousand logs are told apart without a
	 * million stat calls. */
	uint64_t pool_dev, pool_ino;
	unsigned line;	    /* of its [name], 0 off the file */
	unsigned pool_line; /* of its `pool =`, 0 off the file */
};

struct recv_settings {
	char path[PATH_MAX]; /* the configuration file, "" for none */
	struct rs_endpoint listen;
	uint16_t credits;	  /* batches in flight = staging slots */
	uint32_t staging_slot;	  /* bytes per staging ring slot */
	uint32_t peer_timeout_ms; /* a silent sender's session ends after */
	unsigned max_senders;	  /* connected senders, over all logs */
	unsigned workers;	  /* threads serving the logs, 0: a core each */
	bool busy_poll;
	char metrics_file[PATH_MAX];	/* "" for none */
	uint32_t metrics_interval_ms;	/* how often it is written */
	struct recv_log_settings *logs; /* malloc'd, nlogs of them */
	unsigned nlogs;
	unsigned logs_room; /* logs the array has room for */
};

/* The defaults of the global settings (settings/table.c), no logs. */
void recv_settings_init(struct recv_settings *s);

/* A log before its settings: the defaults of a log's settings (every
 * method, no rule, no key), no name, no pool. */
void recv_log_settings_init(struct recv_log_settings *log);
void recv_settings_free(struct recv_settings *s);

/* Reads a configuration file into s (over its defaults; the caller applies
 * command-line options after). Checks every line, then every log: unknown
 * key, bad value, duplicate name, two logs on one pool, a missing pool
 * without `create`, an unusable key file. On error returns RS_E_INVAL with
 * "FILE:LINE: what, and the fix" in err and leaves s as it was ("FILE:
 * what" for the whole file: unreadable, or no log in it nor in s). The
 * logs s holds already stay, the file's join them (start a reload from
 * recv_settings_init). A log of the file offers every method unless its
 * `methods` says otherwise. Creates and changes no file. */
int recv_settings_load(const char *path, struct recv_settings *s,
		       struct rs_error *err);

/* Adds a log (from the command line); RS_E_INVAL for a bad or duplicate
 * name or a pool another log uses, "--log NAME=POOL: what, and the fix".
 * The unnamed log (`rpma-recv POOL`) serves alone. Whether the pool
 * exists is for the code that opens it. */
int recv_settings_add_log(struct recv_settings *s,
			  const struct recv_log_settings *log,
			  struct rs_error *err);

/* The log of that name, or NULL. */
const struct recv_log_settings *
recv_settings_find_log(const struct recv_settings *s, const char *name);

#endif
