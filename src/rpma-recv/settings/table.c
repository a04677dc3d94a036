#include "settings/table.h"

#include "pool/pmdk_log.h"
#include "proto/method.h"

/* The field a row sets: one member, or the members first to last. */
#define FIELD(type, member)                                                    \
	.offset = offsetof(type, member), .size = sizeof(((type *)0)->member)
#define SPAN(type, first, last)                                                \
	.offset = offsetof(type, first), .size = offsetof(type, last) +        \
						 sizeof(((type *)0)->last) -   \
						 offsetof(type, first)
#define GLOBAL(member)                                                         \
	.scope = SETTINGS_GLOBAL, FIELD(struct recv_settings, member)
#define OF_LOG(member)                                                         \
	.scope = SETTINGS_LOG, FIELD(struct recv_log_settings, member)
#define OF_LOG_SPAN(first, last)                                               \
	.scope = SETTINGS_LOG, SPAN(struct recv_log_settings, first, last)

/* In the order messages list them ("global keys: listen, port, ..."). */
static const struct cli_option rows[] = {
    {.name = "listen",
     .type = CLI_OPTION_ADDRESS,
     GLOBAL(listen),
     .reload = SETTINGS_RELOAD_RESTART,
     .short_flag = 'l',
     .arg = "ADDR[:PORT]",
     .help = "Listen on this address of an RDMA device"},
    {.name = "port",
     .file_only = true,
     .type = CLI_OPTION_PORT,
     .min = 1,
     .max = 65535,
     .def = 7204,
     GLOBAL(listen.port),
     .reload = SETTINGS_RELOAD_RESTART,
     .help = "The port to listen on"},
    {.name = "credits",
     .type = CLI_OPTION_COUNT,
     .min = 1,
     .max = 64,
     .def = 8,
     GLOBAL(credits),
     .reload = SETTINGS_RELOAD_RESTART,
     .arg = "N",
     .help = "Batches a sender may have in flight, and staging ring slots"},
    {.name = "staging-slot",
     .type = CLI_OPTION_SIZE,
     .min = 4u << 10,
     .max = 1u << 30,
     .def = 1u << 20,
     .like = "1M",
     GLOBAL(staging_slot),
     .reload = SETTINGS_RELOAD_RESTART,
     .arg = "SIZE",
     .help = "Size of one slot of the staged method's DRAM ring, the "
	     "largest staged batch"},
    {.name = "peer-timeout",
     .type = CLI_OPTION_DURATION,
     .min = 1000,
     .max = 3600000,
     .def = 10000,
     .like = "10s or 2m",
     GLOBAL(peer_timeout_ms),
     .reload = SETTINGS_RELOAD_RESTART,
     .arg = "SECONDS",
     .help = "End the session of a sender not heard from for this long "
	     "(e.g. 10, 30s, 2m), so a sender cut off by a network outage "
	     "does not hold the log; an idle sender keeps its session with "
	     "keepalives"},
    {.name = "max-senders",
     .type = CLI_OPTION_COUNT,
     .min = 1,
     .max = RECV_MAX_SENDERS_MAX,
     .def = 1024,
     GLOBAL(max_senders),
     .reload = SETTINGS_RELOAD_AT_ONCE,
     .arg = "N",
     .help = "Senders connected at once, over all logs; more are refused"},
    {.name = "workers",
     .type = CLI_OPTION_COUNT,
     .min = 0,
     .max = 1024,
     .def = 0,
     GLOBAL(workers),
     .reload = SETTINGS_RELOAD_RESTART,
     .arg = "N",
     .help = "Threads that serve the logs, each log always on the same "
	     "one, each thread many logs (0: one per CPU core)"},
    {.name = "busy-poll",
     .type = CLI_OPTION_BOOL,
     GLOBAL(busy_poll),
     .reload = SETTINGS_RELOAD_RESTART,
     .help = "Spin on the completion queue while serving a sender that "
	     "sends messages (gpspm, staged, a reader) instead of sleeping: "
	     "lowest commit latency, at the cost of a busy core"},
    {.name = "metrics-file",
     .type = CLI_OPTION_PATH,
     GLOBAL(metrics_file),
     .reload = SETTINGS_RELOAD_AT_ONCE,
     .arg = "FILE",
     .help = "Write each log's counters to FILE in Prometheus' text format "
	     "(for node-exporter's textfile collector), replaced whole every "
	     "metrics-interval"},
    {.name = "metrics-interval",
     .type = CLI_OPTION_DURATION,
     .min = 1000,
     .max = 3600000,
     .def = 15000,
     .like = "15s or 1m",
     GLOBAL(metrics_interval_ms),
     .reload = SETTINGS_RELOAD_AT_ONCE,
     .arg = "SECONDS",
     .help = "How often the metrics file is written (e.g. 15, 30s, 1m)"},
    {.name = "pool",
     .file_only = true,
     .type = CLI_OPTION_PATH,
     OF_LOG(pool_path),
     .reload = SETTINGS_RELOAD_NEW_LOG,
     .help = "The log's pmemlog pool: a file or a device-DAX"},
    /* A device-DAX is taken whole whatever the size: `--create 1` is how
     * the command line asks for one, so the flag takes any size. */
    {.name = "create",
     .type = CLI_OPTION_SIZE,
     .min = RECV_PMDK_LOG_MIN_POOL,
     .max = UINT64_MAX,
     .flag_min = 1,
     .note = "a log pool's minimum",
     .like = "1G",
     OF_LOG(create_size),
     .reload = SETTINGS_RELOAD_RESTART,
     .short_flag = 'c',
     .arg = "SIZE",
     .help = "Create POOL with SIZE bytes (e.g. 64M) if it does not exist; "
	     "on a devdax device any SIZE takes the whole device"},
    {.name = "allow",
     .type = CLI_OPTION_CIDR_LIST,
     OF_LOG_SPAN(allow, nallow),
     .reload = SETTINGS_RELOAD_NEW_SESSIONS,
     .repeatable = true,
     .short_flag = 'a',
     .arg = "CIDR",
     .help = "Accept senders only from this address range (e.g. "
	     "192.0.2.0/24, fe80::/10, or one address); repeatable. Others "
	     "are refused before any memory is registered or described"},
    {.name = "auth-key",
     .type = CLI_OPTION_KEY_FILE,
     OF_LOG_SPAN(auth_key_path, auth_key),
     .reload = SETTINGS_RELOAD_NEW_SESSIONS,
     .arg = "FILE",
     .help = "Require senders to prove this shared secret (16 to 4096 "
	     "bytes, a file only its owner can read) before any memory is "
	     "described to them"},
    {.name = "methods",
     .file_only = true,
     .type = CLI_OPTION_METHOD_LIST,
     .def = RS_METHOD_ALL,
     OF_LOG(methods),
     .reload = SETTINGS_RELOAD_NEW_SESSIONS,
     .help = "The persistence methods offered to the log's senders"},
    {.name = "direct-write-to-pmem",
     .type = CLI_OPTION_BOOL,
     OF_LOG(direct_write_to_pmem),
     .reload = SETTINGS_RELOAD_RESTART,
     .help = "Declare that RDMA writes land directly in PMem (DDIO off), "
	     "which allows the apm method on byte-addressable PMem"},
    {.name = "append-only",
     .type = CLI_OPTION_BOOL,
     OF_LOG(append_only),
     .reload = SETTINGS_RELOAD_RESTART,
     .help = "No sender can rewrite what is committed: gpspm writers reach "
	     "only the unused tail, through memory windows, where the device "
	     "keeps them to their range; elsewhere senders commit through the "
	     "staged method only (the receiver copies each batch to the write "
	     "offset); never apm"},
    /* Rotation: a full pool moves its committed bytes into plain files
     * and is used again, instead of stopping its stream (rotation/archive.h).
     */
    {.name = "archive",
     .type = CLI_OPTION_PATH,
     OF_LOG(archive_dir),
     .reload = SETTINGS_RELOAD_RESTART,
     .arg = "DIR",
     .help = "Rotate the log: when its pool fills to rotate-at, move its "
	     "committed bytes into plain files in DIR (in order, named for "
	     "their position) and use the pool again, so a full pool never "
	     "stops a stream"},
    {.name = "rotate-at",
     .type = CLI_OPTION_PERCENT,
     .min = 10,
     .max = 95,
     .def = 75,
     .like = "75%",
     OF_LOG(rotate_at),
     .reload = SETTINGS_RELOAD_RESTART,
     .arg = "PERCENT",
     .help = "With an archive: how full the pool is when archiving starts; "
	     "the rest takes the stream while it runs"},
    {.name = "archive-keep",
     .type = CLI_OPTION_COUNT,
     .min = 0,
     .max = 1000000,
     .def = 0,
     .note = "0 keeps every file",
     OF_LOG(archive_keep),
     .reload = SETTINGS_RELOAD_RESTART,
     .arg = "COUNT",
     .help = "Keep at most COUNT archive files, removing the oldest first "
	     "(0: keep all)"},
    {.name = "archive-max",
     .type = CLI_OPTION_SIZE,
     .min = 0,
     .max = UINT64_MAX,
     .def = 0,
     .note = "0 keeps every file",
     .like = "10G",
     OF_LOG(archive_max),
     .reload = SETTINGS_RELOAD_RESTART,
     .arg = "SIZE",
     .help = "Keep at most SIZE bytes of archive files, removing the "
	     "oldest first (0: no limit); the newest file is always kept"},
};

_Static_assert(sizeof(rows) / sizeof(*rows) <= CLI_OPTION_ROWS_MAX,
	       "raise CLI_OPTION_ROWS_MAX");
/* config/flags.c keeps a bit per row given on the command line */
_Static_assert(sizeof(rows) / sizeof(*rows) <= 32, "a bit per row in a set");

const struct cli_option_table settings_table = {
    rows, sizeof(rows) / sizeof(*rows), 0x200};

size_t settings_row_index(const struct cli_option *row)
{
	return (size_t)(row - rows);
}

void *settings_row_field(const struct cli_option *row, void *owner)
{
	return (char *)owner + row->offset;
}

uint64_t settings_row_min(const struct cli_option *row,
			  enum settings_source from)
{
	return from != SETTINGS_FROM_FILE && row->flag_min ? row->flag_min
							   : row->min;
}
