# shellcheck shell=bash
# scripts/benchmark/guest's many logs at once: four senders into four logs, a fleet (sourced by it;
# its variables and helpers are the guest's).

# --- many logs at once: four senders into four logs of one receiver (a
# service, --config), against ib_write_bw -q 4 (four QPs) on the same link.
# bwq_run REP: ib_write_bw -s 1M -q 4, about as many bytes as the four streams
bwq_run() {
	local rep=$1 sz=1048576 log="$LOGS/ib_write_bw-q4-$1.log"
	local n=$((size / sz))
	[ "$n" -ge 16 ] || n=16
	if bw_tries "$log" "$sz" -n "$n" -q 4; then
		record "bwq kind=bwq topology=$topo batch=$sz qps=4 rep=$rep status=ok MiBps=${BW_FIELDS[3]} peak_MiBps=${BW_FIELDS[2]} tries=$BW_TRIES"
	else
		record "bwq kind=bwq topology=$topo batch=$sz qps=4 rep=$rep status=fail"
		note "ib_write_bw -q 4 failed 3 times: see $log*"
	fi
}

# multi_conf FILE: a config with four logs, one per target where there is
# one (devdax, fsdax), the rest plain files in tmpfs; prints the log names
multi_conf() {
	local conf=$1 names=() i
	printf 'listen = %s\nport = 7210\n' "$server_ip" >"$conf"
	if [ -n "$devdax" ]; then
		printf '[dax]\npool = %s\ncreate = 2M\ndirect-write-to-pmem = yes\n' "$devdax" >>"$conf"
		names+=(dax)
	fi
	if [ -n "$fsdax_dir" ]; then
		printf '[fs]\npool = %s\ncreate = %s\n' "$fsdax_dir/rpma-bench.pool" "$pool_size" >>"$conf"
		names+=(fs)
	fi
	for ((i = 1; ${#names[@]} < 4; i++)); do
		printf '[plain%d]\npool = %s\ncreate = %s\n' "$i" "$WORK/multi-$i.pool" "$pool_size" >>"$conf"
		names+=("plain$i")
	done
	echo "${names[*]}"
}

# multi_run REP: the four streams at once, default options; the aggregate
# is all bytes over the wall time from the first start to the last exit
# (process start-up included, so it errs low)
multi_run() {
	local rep=$1 key="multi kind=multi topology=$topo logs=4 rep=$1" conf=$WORK/multi.conf
	local names rlog="$LOGS/rpma-recv-multi-$1.log" pids=() n pid rc=0 w0 w1
	stop_receiver # the single-log receivers hold the devdax and fsdax pools
	read -r -a names <<<"$(multi_conf "$conf")"
	if ! start_recv "$rlog" --config "$conf"; then
		record "$key status=fail why=receiver"
		note "rpma-recv --config did not start: $(tail -n 2 "$rlog")"
		kill "$RECV_PID" 2>/dev/null
		reap "$RECV_PID" 2>/dev/null
		return
	fi
	recv_pid[multi]=$RECV_PID
	local c0 c1
	c0=$(recv_ticks multi)
	w0=$EPOCHREALTIME
	for n in "${names[@]}"; do
		timeout "$run_timeout" /usr/bin/time -f "$TIMEFMT" -o "$LOGS/multi-$n-$rep.time" \
			"$SEND" --stats --truncate=in-place "$server_ip:7210/$n" "$input" >"$LOGS/multi-$n-$rep.log" 2>&1 &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do wait "$pid" || rc=$?; done
	w1=$EPOCHREALTIME
	c1=$(recv_ticks multi)
	stop_receiver multi
	local per=() line stats
	for n in "${names[@]}"; do
		stats=
		while IFS= read -r line; do
			[[ $line == *"stats: bytes="* ]] && stats=${line#*stats: }
		done <"$LOGS/multi-$n-$rep.log"
		[[ $stats =~ MBps=([0-9.]+) ]] && per+=("$n:${BASH_REMATCH[1]}")
	done
	if [ "$rc" != 0 ] || [ "${#per[@]}" != 4 ]; then
		record "$key status=fail why=sender-exit-$rc"
		note "four logs at once failed (exit $rc): see $LOGS/multi-*-$rep.log"
		return
	fi
	local secs
	secs=$(awk -v a="${w0/,/.}" -v b="${w1/,/.}" 'BEGIN { printf "%.3f", b - a }')
	record "$key status=ok bytes=$((4 * size)) seconds=$secs" \
		"MBps=$(awk -v n=$((4 * size)) -v t="$secs" 'BEGIN { printf "%.2f", n / t / 1e6 }')" \
		"per_log=$(IFS=,; echo "${per[*]}")" \
		"recv_cpu=$(awk -v d=$((c1 - c0)) -v hz="$hz" 'BEGIN { printf "%.2f", d / hz }')"
}

# fleet_conf FILE N: a receiver of N logs on 2 MiB pool files (port 7212)
fleet_conf() {
	local i
	{
		printf 'listen = %s\nport = 7212\nmax-senders = 1024\n' "$server_ip"
		for ((i = 0; i < $2; i++)); do
			printf '[f%d]\npool = %s/fleet-%d.pool\ncreate = 2M\n' "$i" "$WORK" "$i"
		done
	} >"$1"
}

# fleet_run N: rpma-load (tests/load) holds N sender sessions, a log each,
# each shipping a 100-byte line a second, against one receiver started for
# them (a thousand pools take minutes to create); records its result line:
# commit latency of session 0 alone and of the whole fleet, the receiver's
# resident and pinned memory, threads, descriptors, idle and busy CPU
fleet_run() {
	local n=$1 key="fleet kind=fleet topology=$topo sessions=$1" conf=$WORK/fleet.conf
	local rlog=$LOGS/rpma-recv-fleet-$1.log out=$LOGS/fleet-$1.out line result= t0=$SECONDS up
	stop_receiver
	fleet_conf "$conf" "$n"
	if ! start_recv "$rlog" --config "$conf" && ! wait_for "$rlog" serving 900 "$RECV_PID"; then
		record "$key status=fail why=receiver"
		note "rpma-recv for the fleet of $n did not start: $(tail -n 2 "$rlog")"
		kill "$RECV_PID" 2>/dev/null
		reap "$RECV_PID" 2>/dev/null
		rm -f "$WORK"/fleet-*.pool
		return
	fi
	up=$((SECONDS - t0))
	recv_pid[fleet]=$RECV_PID
	timeout 1200 "$LOAD" --sessions "$n" --lone 10 --idle 10 --duration 30 \
		--receiver-pid "$RECV_PID" "$server_ip:7212" f >"$out" 2>&1
	local rc=$?
	stop_receiver fleet
	rm -f "$WORK"/fleet-*.pool
	while IFS= read -r line; do
		[[ $line == "rpma-load: result "* ]] && result=${line#rpma-load: result }
	done <"$out"
	if [ "$rc" != 0 ] || [ -z "$result" ]; then
		record "$key status=fail why=load-exit-$rc"
		note "rpma-load with $n sessions failed (exit $rc): see $out"
		return
	fi
	record "$key status=ok receiver_start_s=$up $result"
}
