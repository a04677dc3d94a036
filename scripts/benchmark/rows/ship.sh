# shellcheck shell=bash
# scripts/benchmark/guest's rpma-send into rpma-recv: the receivers, a run of the sender, ship (sourced by it;
# its variables and helpers are the guest's).

# --- rpma-send into rpma-recv. One receiver per target, each on its own
# port, runs for the whole benchmark and serves the runs of every method one
# after the other (like a real, long-running one); idle, it sleeps. So the
# runs can be ordered freely, and per-run receiver figures come from /proc:
# CPU as the difference of its utime+stime, peak RSS as VmHWM after resetting
# it (clear_refs 5).
max_batch=1048576
for b in "${batches[@]}"; do [ "$b" -le "$max_batch" ] || max_batch=$b; done

# A receiver is keyed by its target, plus "+bp" for one with --busy-poll;
# only one receiver per pool runs at a time.
declare -A recv_pid recv_log recv_port=([devdax]=7204 [fsdax]=7205 [tmpfs]=7206
	[devdax+bp]=7207 [fsdax+bp]=7208 [tmpfs+bp]=7209)
recv_n=0
# set_target TARGET: pool and receiver options; fails when the target is missing
pool=
recv_opts=()
set_target() {
	case "$1" in
	devdax)
		[ -n "$devdax" ] || return 1
		pool=$devdax recv_opts=(--create 1 --direct-write-to-pmem)
		;;
	fsdax)
		[ -n "$fsdax_dir" ] || return 1
		pool=$fsdax_dir/rpma-bench.pool recv_opts=(--create "$pool_size")
		;;
	tmpfs)
		pool=$WORK/plain.pool recv_opts=(--create "$pool_size")
		;;
	esac
	# a staged batch is at most one ring slot (default 1M)
	[ "$max_batch" -le 1048576 ] || recv_opts+=(--staging-slot "$max_batch")
}

# start_receiver KEY: rpma-recv for KEY (TARGET or TARGET+bp), listening;
# fails if it is not
start_receiver() {
	local t=$1 base=${1%+bp} k
	for k in "$base" "$base+bp"; do stop_receiver "$k"; done
	set_target "$base" || return 1
	[ "$t" = "$base" ] || recv_opts+=(--busy-poll)
	recv_n=$((recv_n + 1))
	recv_log[$t]=$LOGS/rpma-recv-$recv_n-$t.log
	local rc=0
	start_recv "${recv_log[$t]}" --listen "$server_ip:${recv_port[$t]}" "${recv_opts[@]}" "$pool" || rc=$?
	recv_pid[$t]=$RECV_PID
	[ "$rc" != 0 ] || {
		warm_receiver "$t"
		return 0
	}
	note "rpma-recv did not start on $t: $(tail -n 2 "${recv_log[$t]}")"
	stop_receiver "$t"
	return 1
}

# warm_receiver TARGET: one byte through each method the receiver offers,
# so that no measured row pays a log's first session (its registrations,
# in the receiver's CPU and the row's time) for the rows after it.
warm_receiver() {
	local m
	for m in flush apm gpspm staged; do
		printf x | timeout 60 "$SEND" --method "$m" "$server_ip:${recv_port[$1]}" >/dev/null 2>&1 || :
	done
}

# stop_receiver [TARGET]: stops that receiver, or all
stop_receiver() {
	local t
	for t in ${1:-"${!recv_pid[@]}"}; do
		[ -n "${recv_pid[$t]:-}" ] || continue
		kill "${recv_pid[$t]}" 2>/dev/null
		reap "${recv_pid[$t]}" 2>/dev/null
		unset "recv_pid[$t]"
	done
}

receiver_up() { [ -n "${recv_pid[$1]:-}" ] && kill -0 "${recv_pid[$1]}" 2>/dev/null; }

# sessions_done TARGET: how many senders that receiver has finished with
sessions_done() {
	local n=0 line
	while IFS= read -r line; do
		[[ $line == *"sender "*" done"* || $line == *"connection to "*" lost"* ||
			$line == *"closing the connection"* ]] && n=$((n + 1))
	done <"${recv_log[$1]}"
	echo "$n"
}

# pid_ticks PID: that process's utime+stime in clock ticks
pid_ticks() {
	local stat f
	{ IFS= read -r stat <"/proc/$1/stat"; } 2>/dev/null || { echo 0; return; }
	read -r -a f <<<"${stat##*) }" # fields from the 3rd on: state is f[0]
	echo $((f[11] + f[12]))
}

# recv_ticks TARGET: that receiver's utime+stime in clock ticks
recv_ticks() { pid_ticks "${recv_pid[$1]}"; }

# running PID: that process exists and has not exited (kill -0 also
# succeeds on a zombie that is not reaped yet)
running() {
	local stat
	{ IFS= read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

recv_hwm_kb() {
	local line
	while IFS= read -r line; do
		[[ $line =~ ^VmHWM:[[:space:]]*([0-9]+) ]] && { echo "${BASH_REMATCH[1]}"; return; }
	done <"/proc/${recv_pid[$1]}/status"
	echo NA
}
hz=$(getconf CLK_TCK)

# session_end TARGET DONE: waits (up to 10 s) until that receiver has
# finished with more than DONE senders: the receiver is done with a sender
# before the next may connect
session_end() {
	local i
	for ((i = 0; i < 400; i++)); do
		[ "$(sessions_done "$1")" -gt "$2" ] && break
		receiver_up "$1" || break
		nap 0.025
	done
}

# send_stats LOG: the fields of rpma-send's "stats: bytes=..." line in LOG
send_stats() {
	local stats='' line
	while IFS= read -r line; do
		[[ $line == *"stats: bytes="* ]] && stats=${line#*stats: }
	done <"$1"
	echo "$stats"
}

# run_sender TARGET LOG ARGS...: runs rpma-send ARGS (stderr and stdout in
# LOG) against the receiver of TARGET, whose address replaces the word ADDR
# in ARGS, starting it if need be. Sets RUN_RC, RUN_SECS (wall time, start-up
# included), RUN_SEND ("user= sys= rss_kb=" of the sender) and RUN_RECV
# ("recv_cpu= recv_rss_kb=" for this run).
run_sender() {
	local t=$1 log=$2
	shift 2
	RUN_RC=0 RUN_SECS=NA RUN_SEND='' RUN_RECV=''
	if ! receiver_up "$t"; then
		start_receiver "$t" || { RUN_RC=receiver; return; }
	fi
	local args=() a
	for a in "$@"; do
		[ "$a" = ADDR ] && a=$server_ip:${recv_port[$t]}
		args+=("$a")
	done
	local done0 c0 c1 w0 w1
	done0=$(sessions_done "$t")
	echo 5 >"/proc/${recv_pid[$t]}/clear_refs" 2>/dev/null
	c0=$(recv_ticks "$t")
	w0=$EPOCHREALTIME
	timeout "${RUN_TIMEOUT:-$run_timeout}" /usr/bin/time -f "$TIMEFMT" -o "$log.time" "$SEND" "${args[@]}" >"$log" 2>&1 || RUN_RC=$?
	w1=$EPOCHREALTIME
	session_end "$t" "$done0"
	c1=$(recv_ticks "$t")
	RUN_RECV="recv_cpu=$(awk -v d=$((c1 - c0)) -v hz="$hz" 'BEGIN { printf "%.2f", d / hz }')"
	RUN_RECV+=" recv_rss_kb=$(recv_hwm_kb "$t")"
	RUN_SECS=$(awk -v a="${w0/,/.}" -v b="${w1/,/.}" 'BEGIN { printf "%.3f", b - a }')
	RUN_SEND=$(cpu_rss "$log.time")
	# after a failure start afresh: the receiver may be stuck in that session
	[ "$RUN_RC" = 0 ] || stop_receiver "$t"
}

# record_run KEY TAG SLOG: the line of the run_sender just done (its
# --stats in SLOG, its exit status, wall time and CPU), or its failure
record_run() {
	local key=$1 tag=$2 slog=$3 stats
	stats=$(send_stats "$slog")
	if [ "$RUN_RC" != 0 ] || [ -z "$stats" ]; then
		local why=sender-exit-$RUN_RC
		[ "$RUN_RC" != 124 ] || why=stalled-killed-after-${RUN_TIMEOUT:-$run_timeout}s
		record "$key status=fail why=$why${stats:+ partial=${stats// /,}}"
		note "rpma-send failed ($tag, $why): $(tail -n 2 "$slog")"
		return
	fi
	record "$key status=ok $stats wall=$RUN_SECS send_${RUN_SEND// / send_} $RUN_RECV"
}

# ship KIND METHOD TARGET BATCH DEPTH REP INPUT: one rpma-send --stats run
# in the current topology (BUSY=1 in the environment: both ends with
# --busy-poll; DEPTH "default": no --depth, what a user gets)
ship() {
	local kind=$1 method=$2 target=$3 batch=$4 depth=$5 rep=$6 in=$7
	local busy=${BUSY:-0} rkey=$target extra=()
	[ "$busy" = 0 ] || rkey=$target+bp extra=(--busy-poll)
	[ "$depth" = default ] || extra+=(--depth "$depth")
	local tag="$kind-$topo-$method-$target-$batch-$rep"
	[ "$busy" = 0 ] || tag+=-busy-poll
	local slog="$LOGS/$tag.send.log"
	local key="$kind kind=$kind topology=$topo method=$method target=$target batch=$batch depth=$depth busy=$busy rep=$rep"
	if ! set_target "$target"; then
		record "$key status=skipped why=no-$target"
		return
	fi
	run_sender "$rkey" "$slog" --stats --truncate=in-place --method "$method" \
		--batch "$batch" "${extra[@]}" ADDR "$in"
	record_run "$key" "$tag" "$slog"
}
