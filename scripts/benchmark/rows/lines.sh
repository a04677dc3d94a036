# shellcheck shell=bash
# scripts/benchmark/guest's a slow stream of lines through a pipe, and an idle stream (sourced by it;
# its variables and helpers are the guest's).

# --- a slow stream: 64-byte lines (63 characters and a newline) arriving
# every 20 ms through a pipe, as from a program writing its log, into
# rpma-send with default options (its idle flush commits each line): the
# commit latency a user sees for such a stream.
pipe_lines=150
# feed_lines N SECONDS: N lines of 63 characters and a newline, one every
# SECONDS (builtins only: an exec per line would cost more than the gap)
feed_lines() {
	local i
	for ((i = 1; i <= $1; i++)); do
		printf 'pipe line %04d %048d\n' "$i" 0 || return
		nap "$2"
	done
}

# pipe_run REP [METHOD]: rpma-send --stats --truncate --method METHOD
# (gpspm) ADDR - fed by feed_lines, into devdax (BUSY=1: both ends with
# --busy-poll)
pipe_run() {
	local rep=$1 method=${2:-gpspm} busy=${BUSY:-0} rkey=devdax extra=()
	[ "$busy" = 0 ] || rkey=devdax+bp extra=(--busy-poll)
	local tag="pipe-$topo-$method-devdax-$rep"
	[ "$busy" = 0 ] || tag+=-busy-poll
	local slog="$LOGS/$tag.send.log"
	local key="pipe kind=pipe topology=$topo method=$method target=devdax busy=$busy rep=$rep"
	key+=" lines=$pipe_lines interval_ms=20"
	if ! set_target devdax; then
		record "$key status=skipped why=no-devdax"
		return
	fi
	# started before the pipe exists: a receiver started by run_sender
	# would get the pipe as its standard input
	if ! receiver_up "$rkey" && ! start_receiver "$rkey"; then
		record "$key status=fail why=receiver"
		return
	fi
	run_sender "$rkey" "$slog" --stats --truncate=in-place --method "$method" "${extra[@]}" ADDR - \
		< <(feed_lines "$pipe_lines" 0.02)
	record_run "$key" "$tag" "$slog"
}

# --- an idle stream: rpma-send --method gpspm ADDR - (default options
# otherwise) reading a pipe that has nothing to say. One line first, so that
# the session is up and has committed; then idle_secs of nothing, over which
# both programs' CPU is taken from /proc/PID/stat (utime + stime); then the
# pipe closes and the sender must finish normally.
idle_secs=10
# count_of FILE TEXT: how many lines of FILE hold TEXT
count_of() {
	local n=0 line
	while IFS= read -r line; do
		[[ $line == *"$2"* ]] && n=$((n + 1))
	done <"$1"
	echo "$n"
}

# idle_session_up TARGET SPID MARKS: waits (30 s at most) for the idle
# sender's session: its receiver logs one more --truncate request than
# MARKS; then a second for the first line's commit (the idle flush, 5 ms,
# and a round trip). False when it did not come, or the sender ended.
idle_session_up() {
	local i
	for ((i = 0; i < 1200; i++)); do
		if [ "$(count_of "${recv_log[$1]}" "truncated at the request")" -gt "$3" ]; then
			nap 1
			return 0
		fi
		running "$2" || return 1
		nap 0.025
	done
	return 1
}

# idle_sender_ended SPID: waits (20 s at most) for the sender whose input
# ended to exit; false (and it is killed) when it does not.
idle_sender_ended() {
	local i
	for ((i = 0; i < 800; i++)); do
		running "$1" || return 0
		nap 0.025
	done
	running "$1" || return 0
	kill "$1" 2>/dev/null
	return 1
}

# idle_run REP
idle_run() {
	local rep=$1 t=devdax tag="idle-$topo-$1" fifo=$WORK/idle.fifo
	local key="idle kind=idle topology=$topo method=gpspm target=devdax rep=$rep"
	local slog="$LOGS/$tag.send.log"
	if ! set_target devdax; then
		record "$key status=skipped why=no-devdax"
		return
	fi
	if ! receiver_up "$t" && ! start_receiver "$t"; then
		record "$key status=fail why=receiver"
		return
	fi
	rm -f "$fifo"
	mkfifo "$fifo" || {
		record "$key status=fail why=mkfifo"
		return
	}
	local done0 marks0 spid wfd
	done0=$(sessions_done "$t")
	# the receiver logs each --truncate request: the session is up
	marks0=$(count_of "${recv_log[$t]}" "truncated at the request")
	# The sender opens the fifo in its own process (blocking until we open
	# the other end), so it holds no writing end: our closing it is the end
	# of its input.
	"$SEND" --stats --truncate=in-place --method gpspm "$server_ip:${recv_port[$t]}" - \
		<"$fifo" >"$slog" 2>&1 &
	spid=$!
	exec {wfd}>"$fifo"
	trap '' PIPE # a sender that has gone must not take this script along
	{ printf 'idle line %053d\n' 0 >&"$wfd"; } 2>/dev/null
	local up=0
	idle_session_up "$t" "$spid" "$marks0" && up=1
	local s0 s1 r0 r1 w0 w1 why=
	if [ "$up" = 0 ]; then
		why=no-session
	elif ! running "$spid"; then
		why=sender-exited-before-idle
	else
		s0=$(pid_ticks "$spid") r0=$(recv_ticks "$t") w0=$EPOCHREALTIME
		nap "$idle_secs"
		s1=$(pid_ticks "$spid") r1=$(recv_ticks "$t") w1=$EPOCHREALTIME
		running "$spid" || why=sender-exited-while-idle
	fi
	exec {wfd}>&-
	trap - PIPE
	# its input ended: it commits nothing more and exits
	idle_sender_ended "$spid" || why=${why:-still-running-20s-after-its-input-ended}
	local rc=0
	wait "$spid" || rc=$?
	session_end "$t" "$done0"
	rm -f "$fifo"
	[ -n "$why" ] || [ "$rc" = 0 ] || why=sender-exit-$rc
	if [ -n "$why" ]; then
		record "$key status=fail why=$why"
		note "idle stream failed ($tag, $why): $(tail -n 2 "$slog")"
		[ "$rc" = 0 ] || stop_receiver "$t"
		return
	fi
	local secs
	secs=$(awk -v a="${w0/,/.}" -v b="${w1/,/.}" 'BEGIN { printf "%.3f", b - a }')
	record "$key status=ok seconds=$idle_secs measured_s=$secs" \
		"send_cpu_pct=$(awk -v d=$((s1 - s0)) -v hz="$hz" -v t="$secs" 'BEGIN { printf "%.2f", 100 * d / hz / t }')" \
		"recv_cpu_pct=$(awk -v d=$((r1 - r0)) -v hz="$hz" -v t="$secs" 'BEGIN { printf "%.2f", 100 * d / hz / t }')" \
		"send_ticks=$((s1 - s0)) recv_ticks=$((r1 - r0)) hz=$hz"
}
