# shellcheck shell=bash
# Shell helpers shared by the end-to-end tests (through tests/e2e/lib.sh),
# the demo (scripts/demo) and the benchmark (scripts/benchmark/guest):
# running a program under a watchdog, starting rpma-recv and waiting until it
# listens, waiting for a line in a file, reading a pool's data back.
#
# Source it from bash; it sets no shell options and works with and without
# set -e. Callers set:
#   RECV          rpma-recv's path (for start_recv)
#   RECV_OPTS     array of options start_recv gives every receiver before
#                 its own (default none; the tests give -v --listen ADDR)
#   RECV_TIMEOUT  seconds after which start_recv's receiver is killed
#                 (default 300; 0: never)
#
# In the VM test bed every exec of a host binary costs 0.1-0.3 s (9p under
# TCG), so the waits below poll with builtins only.

# nap SECONDS: sleeps without an exec (a read that times out on a pipe that
# never gets data).
exec {nap_fd}<> <(:)
nap() { read -r -t "$1" -u "$nap_fd" || :; }

# softirq_nice N: the kernel's ksoftirqd threads at nice N (Soft-RoCE
# works its packets there, where an RNIC needs no host CPU: starved among
# many busy processes, its acknowledgements come late).
softirq_nice() {
	local p
	for p in $(pgrep -x 'ksoftirqd/[0-9]+'); do renice -n "$1" -p "$p" >/dev/null; done
}

# contains FILE TEXT: FILE (which may not exist yet) holds TEXT, a fixed
# string.
contains() {
	local text=
	{ IFS= read -r -d '' text <"$1"; } 2>/dev/null || :
	[[ $text == *"$2"* ]]
}

# wait_for FILE TEXT [SECONDS [PID]]: waits until FILE holds TEXT (a fixed
# string), for up to SECONDS (default 30). Returns 1 when the time runs out
# or, given PID, as soon as that process has exited without writing TEXT.
wait_for() {
	local file=$1 text=$2 end=$((SECONDS + ${3:-30})) pid=${4:-}
	while ! contains "$file" "$text"; do
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			# it may have written TEXT just before it exited
			contains "$file" "$text"
			return
		fi
		[ "$SECONDS" -lt "$end" ] || return 1
		nap 0.05
	done
}

# spawn SECONDS ERRLOG COMMAND...: runs COMMAND in the background with its
# stderr in ERRLOG (-: the caller's stderr), killed (SIGKILL) after SECONDS
# unless SECONDS is 0. Sets SPAWN_PID to COMMAND's own pid (not a wrapper's),
# so callers can signal the program itself.
declare -gA watchdogs=()
spawn() {
	local secs="$1" errlog="$2"
	shift 2
	# <&0: a background job's stdin would otherwise be /dev/null. 7>&-: a
	# test's own pipe writer (fd 7) must not keep the program's input open.
	if [ "$errlog" = - ]; then
		"$@" <&0 7>&- &
	else
		# Emptied here, not only by the child's 2>: a wait_for right after
		# (builtins, no exec) could otherwise still read an earlier run's log.
		: >"$errlog"
		"$@" 2>"$errlog" <&0 7>&- &
	fi
	SPAWN_PID=$!
	[ "$secs" != 0 ] || return 0
	(
		sleep "$secs"
		kill -9 "$SPAWN_PID" 2>/dev/null
	) </dev/null 7>&- &
	watchdogs[$SPAWN_PID]=$!
}

# reap PID: waits for a spawned program and stops its watchdog; sets REAP_RC
# to the program's exit status. (Not usable in $(...): a subshell cannot
# wait for its parent's children.)
# shellcheck disable=SC2034 # REAP_RC is for the callers
reap() {
	REAP_RC=0
	wait "$1" || REAP_RC=$?
	if [ -n "${watchdogs[$1]:-}" ]; then
		kill "${watchdogs[$1]}" 2>/dev/null || :
		wait "${watchdogs[$1]}" 2>/dev/null || :
		unset "watchdogs[$1]"
	fi
	return 0
}

# start_recv LOG ARGS...: starts "$RECV" "${RECV_OPTS[@]}" ARGS... (spawned,
# its stderr in LOG) and waits up to 60 s until it listens: it logs
# "rpma-recv: serving ..." once its rdma_cm listener is bound (so the word
# "serving" is what is matched). Sets RECV_PID. Returns 1 if the receiver
# exited instead, or did not get that far in time (then it may still run:
# RECV_PID).
start_recv() {
	local logf="$1"
	shift
	spawn "${RECV_TIMEOUT:-300}" "$logf" "$RECV" "${RECV_OPTS[@]}" "$@"
	RECV_PID=$SPAWN_PID
	wait_for "$logf" serving 60 "$RECV_PID"
}

# wait_recv: waits for the receiver of the last start_recv; sets REAP_RC to
# its exit status.
wait_recv() {
	reap "$RECV_PID"
}

# pool_data POOL OUT: the pool's committed log data, read by PMDK's own tool.
pool_data() {
	rm -f "$2"
	pmempool dump -b -o "$2" "$1" || return 1
	[ -f "$2" ] || : >"$2"
}
