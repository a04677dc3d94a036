# shellcheck shell=bash
# scripts/benchmark/guest's reading back: --verify, --fetch, --follow, ib_read_bw (sourced by it;
# its variables and helpers are the guest's).

# --- verify (when rpma-send has it): the shipped file against the replica
# verify_run MODE REP TARGET: rpma-send --verify=MODE of the input against the
# log of TARGET (which holds it), within verify_timeout seconds. Returns 1 if
# it ran out of time.
verify_run() {
	local mode=$1 rep=$2 target=$3 tag="verify-$1-$3-$2"
	local key="verify kind=verify topology=$topo mode=$mode target=$target rep=$rep"
	set_target "$target" || {
		record "$key status=skipped why=no-$target"
		return
	}
	local log="$LOGS/$tag.send.log"
	RUN_TIMEOUT=$verify_timeout run_sender "$target" "$log" --stats --verify="$mode" "$input" ADDR
	if [ "$RUN_RC" = 124 ]; then
		record "$key status=timeout seconds=$verify_timeout" \
			"MBps_below=$(awk -v n="$size" -v t="$verify_timeout" 'BEGIN { printf "%.2f", n / t / 1e6 }')"
		note "rpma-send --verify=$mode on $target: not done in ${verify_timeout}s"
		return 1
	fi
	if [ "$RUN_RC" != 0 ]; then
		record "$key status=fail why=exit-$RUN_RC"
		note "rpma-send --verify=$mode exited $RUN_RC: $(tail -n 2 "$log")"
		return
	fi
	# its own figure when it prints one, else the wall time (start-up included)
	local stats='' line
	while IFS= read -r line; do
		[[ $line == *"stats: verify "* ]] && stats=${line#*stats: verify }
	done <"$log"
	[ -n "$stats" ] ||
		stats="bytes=$size seconds=$RUN_SECS MBps=$(awk -v n="$size" -v t="$RUN_SECS" 'BEGIN { printf "%.2f", n / t / 1e6 }')"
	record "$key status=ok $stats wall=$RUN_SECS send_${RUN_SEND// / send_} $RUN_RECV"
}

# fetch_run REP TARGET: rpma-send --fetch --stats of the log the verify
# rounds read (the input), against ib_read_bw: its ceiling
fetch_run() {
	local rep=$1 target=$2 tag="fetch-$2-$1" stats='' line
	local key="fetch kind=fetch topology=$topo target=$target rep=$rep"
	set_target "$target" || {
		record "$key status=skipped why=no-$target"
		return
	}
	local log="$LOGS/$tag.send.log"
	RUN_TIMEOUT=$verify_timeout run_sender "$target" "$log" --stats --fetch ADDR "$WORK/fetched"
	rm -f "$WORK/fetched"
	if [ "$RUN_RC" != 0 ]; then
		record "$key status=fail why=exit-$RUN_RC"
		note "rpma-send --fetch exited $RUN_RC: $(tail -n 2 "$log")"
		return
	fi
	while IFS= read -r line; do
		[[ $line == *"stats: fetched="* ]] && stats=${line#*stats: }
	done <"$log"
	record "$key status=ok $stats wall=$RUN_SECS"
}

# The follow latency: a writer's timestamped 64-byte lines, one every 20 ms
# through a pipe into devdax (gpspm), read back by a --follow reader, which
# notes when each shows on its output.
cat >"$WORK/follow.py" <<'PY'
import sys, time
if sys.argv[1] == "writer":
    n, gap = int(sys.argv[2]), float(sys.argv[3])
    for i in range(n):
        line = "%.6f %d " % (time.time(), i)
        sys.stdout.write(line + "x" * (63 - len(line)) + "\n")
        sys.stdout.flush()
        time.sleep(gap)
else:
    lat = []
    for line in sys.stdin:
        lat.append((time.time() - float(line.split()[0])) * 1e6)
    lat.sort()
    if lat:
        print("lines=%d p50_us=%.0f p90_us=%.0f p99_us=%.0f" % (
            len(lat), lat[len(lat) // 2], lat[len(lat) * 9 // 10],
            lat[min(len(lat) - 1, len(lat) * 99 // 100)]))
PY

# follow_run REP: that, with its writer's own commit latency
follow_run() {
	local rep=$1 key="follow kind=follow topology=$topo target=devdax rep=$1 interval_ms=20"
	if ! set_target devdax; then
		record "$key status=skipped why=no-devdax"
		return
	fi
	receiver_up devdax || start_receiver devdax || {
		record "$key status=fail why=receiver"
		return
	}
	local addr=$server_ip:${recv_port[devdax]} fifo=$WORK/follow.fifo rlog=$LOGS/follow-$rep.reader.log
	rm -f "$fifo"
	mkfifo "$fifo"
	python3 "$WORK/follow.py" reader <"$fifo" >"$WORK/follow.out" &
	local py=$!
	"$SEND" --fetch --follow --from end "$addr" - >"$fifo" 2>"$rlog" &
	local reader=$!
	nap 2 # its first wait is parked at the receiver
	python3 "$WORK/follow.py" writer "$pipe_lines" 0.02 |
		timeout "$run_timeout" "$SEND" --stats --method gpspm "$addr" - >"$LOGS/follow-$rep.writer.log" 2>&1
	local rc=$?
	nap 1
	kill -INT "$reader" 2>/dev/null
	wait "$reader"
	wait "$py"
	local lat stats
	lat=$(cat "$WORK/follow.out")
	stats=$(send_stats "$LOGS/follow-$rep.writer.log")
	if [ "$rc" != 0 ] || [ -z "$lat" ]; then
		record "$key status=fail why=writer-$rc"
		note "follow run failed: $(tail -n 2 "$rlog" "$LOGS/follow-$rep.writer.log")"
		return
	fi
	record "$key status=ok $lat writer_${stats// / writer_}"
}

# rbw_run SIZE ITERS: ib_read_bw, the ceiling of verify's RDMA reads
rbw_run() {
	local sz=$1 n=$2 log="$LOGS/ib_read_bw-$1.log" f=()
	if perftest_pair ib_read_bw "$log" -s "$sz" -n "$n"; then
		read -r -a f <<<"$(result_line "$log" "$sz")"
	fi
	if [[ ${f[3]:-} =~ ^[0-9.]+$ ]]; then
		record "rbw kind=rbw topology=$topo batch=$sz status=ok MiBps=${f[3]} iters=$n"
	else
		record "rbw kind=rbw topology=$topo batch=$sz status=fail"
	fi
}
