# Helpers for end-to-end tests that run inside the VM test bed (real rxe,
# emulated NVDIMM). Source it from a test script: BUILD must be set to the
# build directory holding src/rpma-send/rpma-send and src/rpma-recv/rpma-recv.
set -u

SEND="$BUILD/src/rpma-send/rpma-send"
RECV="$BUILD/src/rpma-recv/rpma-recv"
RECV_IP="${RPMA_RECV_IP:-192.0.2.1}"
WORK="${RPMA_TMPDIR:-/tmp}/e2e.$$"
mkdir -p "$WORK"

passed=0
failed=0
case_name=""

log() { printf '%s\n' "$*" >&2; }

# start_case NAME: begins one case; fail marks it failed.
start_case() {
	case_name="$1"
	case_failed=0
	log "--- case: $case_name"
}

fail() {
	log "FAIL [$case_name]: $*"
	case_failed=1
}

end_case() {
	if [ "$case_failed" = 0 ]; then
		passed=$((passed + 1))
		log "ok: $case_name"
	else
		failed=$((failed + 1))
	fi
}

# summary: the closing line test runners read, and the exit status.
summary() {
	printf '%s passed, %s failed\n' "$passed" "$failed"
	[ "$failed" = 0 ]
}

# spawn SECONDS ERRLOG COMMAND...: runs COMMAND in the background with its
# stderr in ERRLOG, killed after SECONDS. Sets SPAWN_PID to COMMAND's own pid
# (not a wrapper's), so tests can signal the program itself.
declare -A watchdogs
spawn() {
	local secs="$1" errlog="$2"
	shift 2
	# <&0: a background job's stdin would otherwise be /dev/null. 7>&-: a
	# test's own pipe writer (fd 7) must not keep the program's input open.
	"$@" 2>"$errlog" <&0 7>&- &
	SPAWN_PID=$!
	(
		sleep "$secs"
		kill -9 "$SPAWN_PID" 2>/dev/null
	) </dev/null 7>&- &
	watchdogs[$SPAWN_PID]=$!
}

# reap PID: waits for a spawned program; sets REAP_RC to its exit status.
# (Not usable in $(...): a subshell cannot wait for its parent's children.)
reap() {
	REAP_RC=0
	wait "$1" || REAP_RC=$?
	kill "${watchdogs[$1]}" 2>/dev/null
	wait "${watchdogs[$1]}" 2>/dev/null
	return 0
}

# start_recv LOG ARGS...: starts rpma-recv in the background, waits until it
# listens. Sets RECV_PID. Returns non-zero if it exited instead.
start_recv() {
	local logf="$1"
	shift
	spawn 300 "$logf" "$RECV" -v --listen "$RECV_IP" "$@"
	RECV_PID=$SPAWN_PID
	local i
	for i in $(seq 1 100); do
		grep -q "serving" "$logf" 2>/dev/null && return 0
		kill -0 "$RECV_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# wait_recv: waits for the receiver; sets REAP_RC to its exit status.
wait_recv() {
	reap "$RECV_PID"
}

# wait_for FILE PATTERN: waits up to 20 s for a line matching PATTERN.
wait_for() {
	local i
	for i in $(seq 1 200); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# feed FILE: FILE in 64 chunks with pauses, so a test can act mid-stream.
feed() {
	local chunk i
	chunk=$((($(stat -c %s "$1") + 63) / 64))
	for i in $(seq 0 63); do
		dd if="$1" bs="$chunk" skip="$i" count=1 status=none || return
		sleep 0.03
	done
}

# start_fed_sender FILE ARGS...: rpma-send ARGS reading FILE through feed()
# and a fifo; its stderr goes to $WORK/send.log. Sets SEND_PID and FEED_PID.
start_fed_sender() {
	local file="$1"
	shift
	rm -f "$WORK/fifo"
	mkfifo "$WORK/fifo"
	feed "$file" >"$WORK/fifo" &
	FEED_PID=$!
	spawn 120 "$WORK/send.log" "$SEND" "$@" - <"$WORK/fifo"
	SEND_PID=$SPAWN_PID
}

# stop_feed: ends the feeder of start_fed_sender.
stop_feed() {
	kill "$FEED_PID" 2>/dev/null
	wait "$FEED_PID" 2>/dev/null
}

# pool_data POOL OUT: the pool's committed log data, read by PMDK's tools.
pool_data() {
	rm -f "$2"
	pmempool dump -b -o "$2" "$1" || return 1
	[ -f "$2" ] || : >"$2"
}

# check_pool POOL EXPECTED: the pool checks clean and holds exactly EXPECTED.
check_pool() {
	local out="$WORK/dump"
	pmempool check -v "$1" >"$WORK/check" 2>&1 || fail "pmempool check failed: $(cat "$WORK/check")"
	grep -q consistent "$WORK/check" || fail "pool not consistent: $(cat "$WORK/check")"
	pool_data "$1" "$out" || { fail "pmempool dump failed"; return; }
	cmp "$out" "$2" >&2 || fail "pool content differs from $2 ($(stat -c %s "$out") vs $(stat -c %s "$2") bytes)"
}

# one_line_error FILE: stderr holds exactly one line, naming the program.
one_line_error() {
	local n
	n=$(grep -c . "$1")
	[ "$n" = 1 ] || fail "expected one error line, got $n: $(cat "$1")"
	grep -q '^rpma-\(send\|recv\): ' "$1" || fail "error line does not name the program: $(cat "$1")"
}
