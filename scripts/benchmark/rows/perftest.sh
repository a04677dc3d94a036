# shellcheck shell=bash
# scripts/benchmark/guest's perftest and ping: what the link and the machine do alone (sourced by it;
# its variables and helpers are the guest's).

# --- perftest: server on sdev, client on cdev to server_ip (the topology's
# devices).
# perftest_pair TOOL LOG ARGS...: runs both ends; the client's output in LOG,
# its wall time (fork to exit) in PAIR_CLIENT_SECS.
perftest_pair() {
	local tool=$1 log=$2
	shift 2
	next_port
	spawn 90 - "$tool" -d "$sdev" -R -F -p "$port" "$@" >"$log.server" 2>&1
	local spid=$SPAWN_PID i wchan
	# It listens once it waits for rdma_cm events (its output is buffered
	# until it exits, so it cannot tell us).
	for ((i = 0; i < 400; i++)); do
		wchan=
		read -r wchan <"/proc/$spid/wchan" 2>/dev/null
		[ "$wchan" = ucma_get_event ] && break
		kill -0 "$spid" 2>/dev/null || break
		nap 0.025
	done
	debug "$tool server waits for rdma_cm events after $i naps"
	local rc=0 c0=$EPOCHREALTIME
	timeout 80 "$tool" -d "$cdev" -R -F -p "$port" "$@" "$server_ip" >"$log" 2>&1 || rc=$?
	PAIR_CLIENT_SECS=$(awk -v a="${c0/,/.}" -v b="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%.3f", b - a }')
	debug "$tool client exited $rc"
	[ "$rc" = 0 ] || kill "$spid" 2>/dev/null
	reap "$spid" 2>/dev/null # (no "Terminated" notice)
	return "$rc"
}

# result_line LOG SIZE: the numbers of the result row (first field = SIZE)
result_line() {
	local line f
	while read -r -a f; do
		[ "${#f[@]}" -ge 4 ] && [ "${f[0]}" = "$2" ] && [[ ${f[1]} =~ ^[0-9]+$ ]] && line="${f[*]}"
	done <"$1"
	echo "${line:-}"
}

# bw_tries LOG SIZE ARGS...: ib_write_bw -s SIZE ARGS... (both ends, the
# client's output in LOG), up to 3 tries, as perftest now and then reports
# 0.00 (its cycle counter under TCG; a failed try's log kept as
# LOG.tryN); sets BW_FIELDS to the result row (#bytes #iterations BW-peak
# BW-average MsgRate, in MiB/s; empty when every try failed) and
# BW_TRIES; returns 1 when every try failed.
bw_tries() {
	local log=$1 sz=$2 try
	shift 2
	for try in 1 2 3; do
		BW_TRIES=$try
		BW_FIELDS=()
		perftest_pair ib_write_bw "$log" -s "$sz" "$@" || continue
		read -r -a BW_FIELDS <<<"$(result_line "$log" "$sz")"
		[[ ${BW_FIELDS[3]:-} =~ ^[0-9.]+$ ]] && [[ ${BW_FIELDS[3]} != 0.00 ]] && return 0
		cp "$log" "$log.try$try"
	done
	BW_FIELDS=()
	return 1
}

bw_run() {
	local sz=$1 rep=$2 log="$LOGS/ib_write_bw-$topo-$1-$2.log"
	# about as many bytes as the streamed file, and enough messages
	local n=$((size / sz))
	[ "$n" -ge 16 ] || n=16
	if bw_tries "$log" "$sz" -n "$n"; then
		record "bw kind=bw topology=$topo batch=$sz rep=$rep status=ok MiBps=${BW_FIELDS[3]} peak_MiBps=${BW_FIELDS[2]} iters=${BW_FIELDS[1]} tries=$BW_TRIES"
	else
		record "bw kind=bw topology=$topo batch=$sz rep=$rep status=fail"
		note "ib_write_bw -s $sz ($topo) failed 3 times: see $log*"
	fi
}

# lat_run REP [TOOL SIZE KIND]: ib_write_lat -s 64 (or TOOL -s SIZE), 1000 exchanges
lat_run() {
	local rep=$1 tool=${2:-ib_write_lat} sz=${3:-64} kind=${4:-lat}
	local log="$LOGS/$tool-$topo-$sz-$rep.log"
	if ! perftest_pair "$tool" "$log" -s "$sz" -n 1000; then
		record "$kind kind=$kind topology=$topo rep=$rep status=fail"
		note "$tool failed: see $log"
		return
	fi
	local f
	read -r -a f <<<"$(result_line "$log" "$sz")"
	# columns: #bytes #iterations t_min t_max t_typical t_avg t_stdev p99 p99.9
	if [[ ${f[4]:-} =~ ^[0-9.]+$ ]]; then
		record "$kind kind=$kind topology=$topo rep=$rep status=ok typical_us=${f[4]} avg_us=${f[5]} min_us=${f[2]} p99_us=${f[7]:-NA}"
	else
		record "$kind kind=$kind topology=$topo rep=$rep status=fail"
		note "no result row in $log"
	fi
}

# --- the machine's own cost of a pause, without RDMA: ping's round trip over
# the same route, back to back and one every 20 ms (the pipe's pace). Under
# an emulator a CPU that went idle wakes slowly, and every exchange after a
# pause pays for it, a commit of the pipe's lines among them.
# ping_median INTERVAL COUNT LOG: the median round trip in us
ping_median() {
	timeout 60 ping -n -I "$client_ip" -i "$1" -c "$2" "$server_ip" >"$3" 2>&1 || return
	grep -o 'time=[0-9.]*' "$3" | cut -d= -f2 | sort -n |
		awk '{ t[NR] = $1 } END { if (!NR) exit 1; printf "%.1f", t[int((NR + 1) / 2)] * 1000 }'
}

ping_run() {
	local rep=$1 log="$LOGS/ping-$topo-$rep" b2b gap
	local key="ping kind=ping topology=$topo rep=$rep"
	if b2b=$(ping_median 0 500 "$log-b2b.log") && gap=$(ping_median 0.02 150 "$log-20ms.log"); then
		record "$key status=ok b2b_us=$b2b gap20_us=$gap"
	else
		record "$key status=fail"
		note "ping failed: see $log-*.log"
	fi
}
