# shellcheck shell=bash
# The campaign's processes (scripts/campaign/guest): receivers under a
# supervisor that records how each one ended, stamped logs, and the marks
# by which the nemesis says which deaths it caused. Uses from the guest:
# RECV, RUN (the run's folder), violation (checker.sh), nap (scripts/lib.sh).

# stamp: stdin to stdout, each line after the time it came (seconds since
# the epoch, to the microsecond); a carriage return (--progress) ends a line
# too (tr line-buffered: into a pipe it would hold lines back).
stamp() {
	stdbuf -oL tr '\r' '\n' | while IFS= read -r line; do
		printf '%s %s\n' "$EPOCHREALTIME" "$line"
	done
}

# is_ours PID: PID is still one of our programs (not a pid used again).
is_ours() {
	local cmd=
	{ read -r -d '' cmd </proc/"$1"/cmdline; } 2>/dev/null
	[[ $cmd == */rpma-send || $cmd == */rpma-recv ]]
}

# signal SIG PID: sends SIG to PID if it is still ours.
signal() { is_ours "$2" && kill -s "$1" "$2" 2>/dev/null; }

# --- receivers: recv-NAME.{args,pid,exit,expected,gen} in $RUN

# recv_start NAME ARGS...: starts rpma-recv ARGS as receiver NAME and waits
# (up to 90 s) until it serves. Its log: recv-NAME.GEN.log, GEN counting
# its starts (stamped).
recv_start() {
	local name=$1
	shift
	printf '%s\0' "$@" >"$RUN/recv-$name.args"
	recv_launch "$name"
}

# recv_launch NAME: starts NAME again with the arguments it was given.
recv_launch() {
	local name=$1 args=() gen
	mapfile -d '' args <"$RUN/recv-$name.args"
	gen=$(($(cat "$RUN/recv-$name.gen" 2>/dev/null || echo 0) + 1))
	echo "$gen" >"$RUN/recv-$name.gen"
	rm -f "$RUN/recv-$name.exit" "$RUN/recv-$name.pid" "$RUN/recv-$name.expected"
	(
		"$RECV" "${args[@]}" 2> >(stamp >"$RUN/recv-$name.$gen.log") &
		echo "$!" >"$RUN/recv-$name.pid"
		rc=0
		wait "$!" || rc=$?
		echo "$rc $EPOCHREALTIME" >"$RUN/recv-$name.exit"
	) </dev/null &
	local end=$((SECONDS + 90))
	until grep -q serving "$RUN/recv-$name.$gen.log" 2>/dev/null; do
		if [ -e "$RUN/recv-$name.exit" ] || [ "$SECONDS" -ge "$end" ]; then
			violation "receiver $name did not start: $(tail -n 3 "$RUN/recv-$name.$gen.log" 2>/dev/null)"
			return 1
		fi
		nap 0.1
	done
	return 0
}

recv_pid() { cat "$RUN/recv-$1.pid" 2>/dev/null; }
# recv_log NAME: the log of its latest start.
recv_log() { echo "$RUN/recv-$1.$(cat "$RUN/recv-$1.gen").log"; }

# recv_kill NAME SIG: the nemesis ends receiver NAME with SIG, marked as
# expected, and waits (up to 60 s) until its supervisor saw it end.
# Prints its exit status.
recv_kill() {
	local name=$1 sig=$2 pid end=$((SECONDS + 60))
	pid=$(recv_pid "$1")
	echo "$sig" >"$RUN/recv-$name.expected"
	signal CONT "$pid" # a stopped one would not act on TERM
	signal "$sig" "$pid"
	until [ -e "$RUN/recv-$name.exit" ]; do
		[ "$SECONDS" -lt "$end" ] || {
			violation "receiver $name (pid $pid) did not end within 60 s of SIG$sig"
			signal KILL "$pid"
			return 1
		}
		nap 0.1
	done
	cut -d' ' -f1 "$RUN/recv-$name.exit"
}

# recv_watch NAME...: a receiver that ended without the nemesis ending it
# is a violation; it is started again so that the run goes on.
recv_watch() {
	local name status
	for name; do
		[ -e "$RUN/recv-$name.exit" ] && [ ! -e "$RUN/recv-$name.expected" ] || continue
		status=$(cut -d' ' -f1 "$RUN/recv-$name.exit")
		violation "receiver $name died on its own (exit status $status): $(tail -n 3 "$(recv_log "$name")" | cut -c 1-300)"
		recv_launch "$name"
	done
}
