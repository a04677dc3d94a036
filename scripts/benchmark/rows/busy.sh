# shellcheck shell=bash
# scripts/benchmark/guest's many senders at once (a busy fleet) (sourced by it;
# its variables and helpers are the guest's).

# --- many senders at once (issue 60's row): N rpma-send processes started
# together, each streaming busy_bytes into a log of its own of one receiver
# (plain tmpfs pools), against ib_write_bw -q N (N QPs) right before. Each
# reads a pipe that is fed once all N are connected (or after 300 s), so
# that the streams overlap as ib_write_bw's N QPs do: the steady figure is
# then the link shared by N, not N start-ups one after the other.
busy_bytes=$((4 << 20))

# busy_ceiling N: ib_write_bw -R -s 64K -q N, about busy_bytes per QP;
# prints its average MiB/s, or nothing
busy_ceiling() {
	local n=$1
	bw_tries "$LOGS/ib_write_bw-q$1.log" 65536 -n $((busy_bytes / 65536)) -q "$n"
	echo "${BW_FIELDS[3]:-}"
}

# link_counters: Soft-RoCE's counters summed over the guest's devices
# (rdma statistic) and the kernel's backlog drops (softnet_stat's second
# column, each CPU's), as "name value" lines: what the link did meanwhile
link_counters() {
	local _ dropped total=0
	rdma statistic show 2>/dev/null |
		awk '{ for (i = 3; i < NF; i += 2) s[$i] += $(i + 1) } END { for (k in s) print k, s[k] }'
	while read -r _ dropped _; do
		total=$((total + 16#$dropped))
	done </proc/net/softnet_stat
	echo "backlog_drops $total"
}

# link_delta BEFORE PREFIX: the counters that tell lost packets and their
# retries, since link_counters wrote BEFORE, as PREFIX_NAME=N fields
link_delta() {
	link_counters | awk -v p="$2" 'NR == FNR { was[$1] = $2; next }
		$1 ~ /^(backlog_drops|rcvd_seq_err|out_of_seq_request|duplicate_request|retry_exceeded_err|completer_retry_err|rcvd_rnr_err|sent_pkts)$/ {
			printf "%s%s_%s=%d", sep, p, $1, $2 - was[$1]; sep = " " }' "$1" -
}

# guest_cpu: the guest's CPU time so far (/proc/stat's cpu line: user nice
# system idle iowait irq softirq steal), in ticks
guest_cpu() {
	local _ rest
	read -r _ rest </proc/stat
	echo "$rest"
}

# guest_cpu_delta BEFORE: where the guest's CPU went since guest_cpu said
# BEFORE, as fields: percent of it all in user, system and softirq time,
# and idle
guest_cpu_delta() {
	echo "$1 $(guest_cpu)" | awk '{ n = (NF) / 2
		for (i = 1; i <= 8; i++) d[i] = $(n + i) - $i
		t = 0; for (i = 1; i <= 8; i++) t += d[i]
		if (t <= 0) { print "guest_cpu=NA"; exit }
		printf "guest_user_pct=%.0f guest_system_pct=%.0f guest_softirq_pct=%.0f guest_idle_pct=%.0f",
			100 * (d[1] + d[2]) / t, 100 * (d[3] + d[6]) / t, 100 * d[7] / t, 100 * (d[4] + d[5]) / t }'
}

# busy_sender_cpu TAG: the user and system seconds of a round's senders
# (TAG: N-rREP, as busy_run names their logs), summed (the last line of
# each sender's /usr/bin/time file)
busy_sender_cpu() {
	tail -q -n 1 "$LOGS"/busy-"$1"-s*.time |
		awk '{ u += $1; s += $2 } END { printf "senders_user_s=%g senders_sys_s=%g", u, s }'
}

# pctl P FILE: the P-th percentile of FILE's numbers (one a line, sorted)
pctl() {
	local n
	n=$(wc -l <"$2")
	[ "$n" -gt 0 ] || { echo NA; return; }
	sed -n "$(((n * $1 + 99) / 100))p" "$2"
}

# busy_steady TAG: a round's senders' bytes over the time data moved: from
# the first batch any of them posted to the last any had confirmed, each
# moment its start's time (the log's first line) plus its --stats phases
# up to to_first_write, and streaming; MB/s.
busy_steady() {
	local f
	for f in "$LOGS"/busy-"$1"-s*.log; do
		awk '/^started=/ { split($0, s, "="); t0 = s[2] }
			/stats: bytes=/ { for (i = 1; i <= NF; i++) if ($i ~ /^bytes=/) { split($i, b, "="); bytes = b[2] } }
			/stats: phases_ms / {
				for (i = 4; i <= NF; i++) {
					split($i, kv, "=")
					if (kv[1] == "streaming") stream = kv[2]
					else if (kv[1] != "teardown") up += kv[2]
				}
			}
			END { if (t0 && stream != "") printf "%.6f %.6f %d\n", t0 + up / 1e3, t0 + (up + stream) / 1e3, bytes }' "$f"
	done | awk '{ if (!n++ || $1 < a) a = $1; if ($2 > b) b = $2; total += $3 }
		END { if (b > a) printf "%.2f", total / (b - a) / 1e6; else printf "NA" }'
}

# busy_feed N RLOG: once the receiver (-v, its log RLOG) says N senders
# connected, or after 300 s, the feeders waiting on busy_gate (one `cat` a
# sender, already holding its FIFO open) are let go at once.
busy_feed() {
	local end=$((SECONDS + 300))
	while [ "$(grep -c ' connected at write offset' "$2")" -lt "$1" ] && [ "$SECONDS" -lt "$end" ]; do
		nap 0.2
	done
	flock -u "$busy_gate"
	wait_fed=$(grep -c ' connected at write offset' "$2")
}

# busy_run N REP: the N senders, round REP; records aggregate MB/s (all bytes over the wall
# time from the first start to the last exit, process start-up included),
# steady MB/s (busy_steady: start-up and teardown apart), the ceiling, connect answers p50/p99 (rpma-send
# -v), sessions lost, refusals and exits other than 0
busy_run() {
	local n=$1 key="busy kind=busy topology=$topo senders=$1 rep=$2" conf=$WORK/busy.conf
	local tag=$1-r$2
	local rlog=$LOGS/rpma-recv-busy-$tag.log bw i pids=() rc bad=0 w0 w1 secs wait_fed=0
	local bw_link senders_link recv0 cpu0 cpu_use busy_gate
	stop_receiver
	softirq_nice "${RPMA_BENCH_SOFTIRQ_NICE:-0}"
	link_counters >"$WORK/link.before"
	bw=$(busy_ceiling "$n")
	bw_link=$(link_delta "$WORK/link.before" ceiling)
	{
		printf 'listen = %s\nport = 7213\nmax-senders = %d\n' "$server_ip" $((n + 8))
		for ((i = 0; i < n; i++)); do
			printf '[b%d]\npool = %s/busy-%d.pool\ncreate = %dM\n' "$i" "$WORK" "$i" $(((busy_bytes >> 20) + 2))
		done
	} >"$conf"
	head -c "$busy_bytes" "$input" >"$WORK/busy.in"
	if ! start_recv "$rlog" -v --config "$conf" || ! wait_for "$rlog" "all logs opened" 600 "$RECV_PID"; then
		record "$key status=fail why=receiver"
		kill "$RECV_PID" 2>/dev/null
		reap "$RECV_PID" 2>/dev/null
		rm -f "$WORK"/busy-*.pool
		return
	fi
	recv_pid[busy]=$RECV_PID
	link_counters >"$WORK/link.before"
	w0=$EPOCHREALTIME
	# The feeders wait on a lock held until all are connected; each
	# sender reads its FIFO itself, as `producer | rpma-send -` would: no
	# relay process copies the input on its way.
	exec {busy_gate}>"$WORK/busy.gate"
	flock -x "$busy_gate"
	for ((i = 0; i < n; i++)); do
		rm -f "$WORK/busy-$i.fifo"
		mkfifo "$WORK/busy-$i.fifo"
		{ flock -s 8 && cat "$WORK/busy.in"; } 8<"$WORK/busy.gate" >"$WORK/busy-$i.fifo" {busy_gate}>&- &
		# its start's time first: --stats' phases count from there
		bash -c 'f=$1; shift; echo "started=$EPOCHREALTIME"; exec "$@" <"$f"' - "$WORK/busy-$i.fifo" \
			/usr/bin/time -f "$TIMEFMT" -o "$LOGS/busy-$tag-s$i.time" \
			timeout 600 "$SEND" -v --stats --retry 20 "$server_ip:7213/b$i" - \
			>"$LOGS/busy-$tag-s$i.log" 2>&1 {busy_gate}>&- &
		pids+=($!)
	done
	busy_feed "$n" "$rlog"
	recv0=$(recv_ticks busy) cpu0=$(guest_cpu)
	for i in "${pids[@]}"; do
		rc=0
		wait "$i" || rc=$?
		[ "$rc" = 0 ] || bad=$((bad + 1))
	done
	w1=$EPOCHREALTIME
	exec {busy_gate}>&-
	senders_link=$(link_delta "$WORK/link.before" senders)
	cpu_use="$(guest_cpu_delta "$cpu0") recv_cpu_s=$(awk -v t=$(($(recv_ticks busy) - recv0)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }') $(busy_sender_cpu "$tag")"
	softirq_nice 0
	stop_receiver busy
	rm -f "$WORK"/busy-*.pool "$WORK"/busy-*.fifo
	cat "$LOGS"/busy-"$tag"-s*.log | sed -n 's/.*connect request answered in \([0-9]*\) ms.*/\1/p' |
		sort -n >"$WORK/busy.answers"
	secs=$(awk -v a="${w0/,/.}" -v b="${w1/,/.}" 'BEGIN { printf "%.3f", b - a }')
	record "$key status=$([ "$bad" = 0 ] && echo ok || echo fail) exits_not_0=$bad" \
		"softirq_nice=${RPMA_BENCH_SOFTIRQ_NICE:-0}" \
		"bytes=$((n * busy_bytes)) seconds=$secs" \
		"MBps=$(awk -v b=$((n * busy_bytes)) -v t="$secs" 'BEGIN { printf "%.2f", b / t / 1e6 }')" \
		"steady_MBps=$(busy_steady "$tag")" \
		"bw_MiBps=${bw:-NA} connected_when_fed=$wait_fed connects=$(wc -l <"$WORK/busy.answers")" \
		"connect_p50_ms=$(pctl 50 "$WORK/busy.answers") connect_p99_ms=$(pctl 99 "$WORK/busy.answers")" \
		"lost=$(cat "$LOGS"/busy-"$tag"-s*.log | grep -c 'lost after committing')" \
		"refused=$(cat "$LOGS"/busy-"$tag"-s*.log | grep -c 'refused the connection')" \
		"qp_failures=$(grep -c 'cannot create a queue pair' "$rlog")" \
		"$bw_link $senders_link $cpu_use"
}

# replicas_stream NAMES REP N: one `rpma-send --stats --truncate` of the input to
# the logs NAMES (comma-separated) of the multi receiver; prints its MB/s
