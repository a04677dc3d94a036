# shellcheck shell=bash
# scripts/benchmark/guest's the cost of a session (sourced by it;
# its variables and helpers are the guest's).

# --- the cost of a session (issue 71): what a user waits for beyond the
# stream. rpma-send --stats with no option set of 1 byte, 1 MiB and 128
# MiB into the devdax log (emptied first, unmeasured), into a receiver
# running and into one just started (it listens, its pool opens while
# the sender waits: the sender's hinted waits are part of its time); wall
# = the sender's process, fork to exit. Beside them perftest's own set-up
# and five 64-byte writes (ib_write_bw -n 5 -s 64: its client's wall) and
# the ceiling, ib_write_bw -s 1M.
session_sizes=(1 1048576 134217728)

# listening PID: that receiver's listener is up (rdma's list of connection
# ids shows it, whatever the build says in its log)
listening() { rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -qw "$1"; }

# session_restart: the devdax receiver stopped and started again, returning
# once it listens (its pool may still be opening); sets SESSION_T0
session_restart() {
	stop_receiver devdax
	set_target devdax || return 1
	recv_n=$((recv_n + 1))
	recv_log[devdax]=$LOGS/rpma-recv-$recv_n-devdax.log
	SESSION_T0=$EPOCHREALTIME
	spawn 0 "${recv_log[devdax]}" "$RECV" --listen "$server_ip:${recv_port[devdax]}" "${recv_opts[@]}" "$pool"
	recv_pid[devdax]=$SPAWN_PID
	local i
	for ((i = 0; i < 1000; i++)); do
		listening "$SPAWN_PID" && return 0
		running "$SPAWN_PID" || break
		nap 0.01
	done
	note "rpma-recv did not listen on devdax: $(tail -n 2 "${recv_log[devdax]}")"
	return 1
}

# session_ship STATE BYTES REP: one measured session (STATE running or
# started) of the input of BYTES bytes
session_ship() {
	local state=$1 sz=$2 rep=$3 in=$WORK/session-$2.bin
	local key="session kind=session topology=$topo state=$state bytes=$sz rep=$rep"
	local slog=$LOGS/session-$topo-$state-$sz-$rep.send.log
	[ -f "$in" ] || head -c "$sz" /dev/urandom >"$in"
	receiver_up devdax || start_receiver devdax || {
		record "$key status=fail why=receiver"
		return
	}
	: | timeout 60 "$SEND" --truncate=in-place "$server_ip:${recv_port[devdax]}" - >"$slog.empty" 2>&1
	local from=
	if [ "$state" = started ]; then
		session_restart || {
			record "$key status=fail why=receiver"
			return
		}
		from=$SESSION_T0
	fi
	local s0=$EPOCHREALTIME
	run_sender devdax "$slog" --stats ADDR "$in"
	local stats
	stats=$(send_stats "$slog")
	if [ "$RUN_RC" != 0 ] || [ -z "$stats" ]; then
		record "$key status=fail why=sender-exit-$RUN_RC"
		note "rpma-send failed (session $state $sz): $(tail -n 2 "$slog")"
		return
	fi
	# the receiver's start to the sender's exit
	[ -z "$from" ] || from=" from_recv_start=$(awk -v a="${from/,/.}" -v b="${s0/,/.}" -v s="$RUN_SECS" 'BEGIN { printf "%.3f", b - a + s }')"
	record "$key status=ok $stats wall=$RUN_SECS$from $RUN_RECV"
}

# session_run REP: the row's runs of one round
session_run() {
	local rep=$1 sz
	if perftest_pair ib_write_bw "$LOGS/session-setup-$topo-$rep.log" -s 64 -n 5; then
		record "session_setup kind=session_setup topology=$topo rep=$rep status=ok wall=$PAIR_CLIENT_SECS"
	else
		record "session_setup kind=session_setup topology=$topo rep=$rep status=fail"
	fi
	bw_run 1048576 "$rep"
	for sz in "${session_sizes[@]}"; do
		session_ship running "$sz" "$rep"
		session_ship started "$sz" "$rep"
	done
	# the rows after take a receiver started and warmed as theirs are
	stop_receiver devdax
}
