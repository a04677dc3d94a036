# shellcheck shell=bash
# scripts/benchmark/guest's a stream to replicas, through rotation, through windows (sourced by it;
# its variables and helpers are the guest's).

replicas_stream() {
	local names=$1 rep=$2 n=$3 targets="" name line stats=
	for name in ${names//,/ }; do targets+="${targets:+,}$server_ip:7210/$name"; done
	timeout "$run_timeout" "$SEND" --stats --truncate=in-place "$targets" "$input" \
		>"$LOGS/replicas-$n-$rep.log" 2>&1 || return 1
	while IFS= read -r line; do
		[[ $line == *"stats: bytes="* ]] && stats=${line#*stats: }
	done <"$LOGS/replicas-$n-$rep.log"
	[[ $stats =~ MBps=([0-9.]+) ]] && echo "${BASH_REMATCH[1]}"
}

# replicas_run REP: one stream to three replicas (three logs of one receiver:
# the link and the CPU are shared, as across hosts the link would be) against
# the same stream to the first of them alone, default options
replicas_run() {
	local rep=$1 key="replicas kind=replicas topology=$topo rep=$1" conf=$WORK/multi.conf
	local names rlog="$LOGS/rpma-recv-replicas-$1.log" one three
	stop_receiver
	read -r -a names <<<"$(multi_conf "$conf")"
	if ! start_recv "$rlog" --config "$conf"; then
		record "$key status=fail why=receiver"
		kill "$RECV_PID" 2>/dev/null
		reap "$RECV_PID" 2>/dev/null
		return
	fi
	recv_pid[multi]=$RECV_PID
	one=$(replicas_stream "${names[0]}" "$rep" 1)
	three=$(replicas_stream "${names[0]},${names[1]},${names[2]}" "$rep" 3)
	stop_receiver multi
	if [ -z "$one" ] || [ -z "$three" ]; then
		record "$key status=fail why=sender"
		note "replicated stream failed: see $LOGS/replicas-*-$rep.log"
		return
	fi
	record "$key status=ok one_MBps=$one three_MBps=$three replicas=${names[0]},${names[1]},${names[2]}"
}

# rotation_stream TAG REP POOL ARGS...: one `rpma-send --stats --truncate` of
# the input into a receiver of POOL started with ARGS (port 7211); prints
# "MBps p50 p99" (commit latency in us)
rotation_stream() {
	local tag=$1 rep=$2 pool=$3 line stats=
	shift 3
	rm -f "$pool"
	if ! start_recv "$LOGS/rpma-recv-rotation-$tag-$rep.log" --listen "$server_ip:7211" "$@" "$pool"; then
		kill "$RECV_PID" 2>/dev/null
		reap "$RECV_PID" 2>/dev/null
		return 1
	fi
	recv_pid[rotation]=$RECV_PID
	timeout "$run_timeout" "$SEND" --stats --truncate=in-place "$server_ip:7211" "$input" \
		>"$LOGS/rotation-$tag-$rep.log" 2>&1
	local rc=$?
	stop_receiver rotation
	[ "$rc" = 0 ] || return 1
	while IFS= read -r line; do
		[[ $line == *"stats: bytes="* ]] && stats=${line#*stats: }
	done <"$LOGS/rotation-$tag-$rep.log"
	[[ $stats =~ MBps=([0-9.]+).*commit_us_p50=([0-9.]+).*commit_us_p99=([0-9.]+) ]] &&
		echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}"
}

# rotation_run REP: the input through a pool a quarter of its size with an
# archive (three rotations or more, archive on tmpfs) against the same
# stream into a pool that holds it all, gpspm on plain tmpfs files
rotation_run() {
	local rep=$1 key="rotation kind=rotation topology=$topo rep=$1"
	local quarter=$((size / 4)) plain rot arch=$WORK/archive
	[ "$quarter" -ge $((3 << 20)) ] || quarter=$((3 << 20))
	rm -rf "$arch"
	mkdir -p "$arch"
	stop_receiver
	plain=$(rotation_stream plain "$rep" "$WORK/rotation.pool" --create $((size + (4 << 20))))
	rot=$(rotation_stream rotating "$rep" "$WORK/rotation.pool" --create "$quarter" --archive "$arch")
	local files
	files=$(ls "$arch" | grep -c '\.log$')
	rm -rf "$arch" "$WORK/rotation.pool"
	if [ -z "$plain" ] || [ -z "$rot" ]; then
		record "$key status=fail why=sender"
		note "rotation stream failed: see $LOGS/rotation-*-$rep.log"
		return
	fi
	read -r pm p50 p99 <<<"$plain"
	read -r rmbps r50 r99 <<<"$rot"
	record "$key status=ok plain_MBps=$pm rotating_MBps=$rmbps plain_p50_us=$p50 rotating_p50_us=$r50" \
		"plain_p99_us=$p99 rotating_p99_us=$r99 pool_bytes=$quarter archive_files=$files"
}

# windows_stream MODE REP INPUT OPTS...: one `rpma-send --stats --truncate
# --method gpspm OPTS HOST INPUT` into a fresh plain tmpfs pool served with memory
# windows (MODE on) or without (MODE off: RPMA_RECV_WINDOWS=off, the
# pool's own key as before windows); prints "MBps p50 p99 reach_bytes
# reach_ms" (commit latency in us; the receiver's measure of how far
# behind the head, and how long, a window still reached, NA without)
windows_stream() {
	local mode=$1 rep=$2 in=$3 line stats= reach="NA NA" pool=$WORK/windows.pool
	shift 3
	local tag=$mode-$rep-${in##*/}
	local rlog="$LOGS/rpma-recv-windows-$tag.log" slog="$LOGS/windows-$tag.log"
	rm -f "$pool"
	[ "$mode" = on ] || export RPMA_RECV_WINDOWS=off
	local rc=0
	start_recv "$rlog" --listen "$server_ip:7212" --create $((size + (4 << 20))) "$pool" || rc=$?
	unset RPMA_RECV_WINDOWS
	recv_pid[windows]=$RECV_PID
	[ "$rc" = 0 ] || { stop_receiver windows; return 1; }
	timeout "$run_timeout" "$SEND" --stats --truncate=in-place --method gpspm "$@" \
		"$server_ip:7212" "$in" >"$slog" 2>&1
	rc=$?
	stop_receiver windows
	rm -f "$pool"
	[ "$rc" = 0 ] || return 1
	stats=$(send_stats "$slog")
	while IFS= read -r line; do
		[[ $line =~ moved\ past\ what\ it\ committed\ within\ ([0-9]+)\ bytes\ and\ ([0-9.]+)\ ms ]] &&
			reach="${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
	done <"$rlog"
	[[ $stats =~ MBps=([0-9.]+).*commit_us_p50=([0-9.]+).*commit_us_p99=([0-9.]+) ]] &&
		echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]} $reach"
}

# windows_run REP: a gpspm stream of the input (1 MiB batches) and 64-byte
# commits back to back (--batch 64 --depth 1), with memory windows and
# without, one right after the other
windows_run() {
	local rep=$1 key="windows kind=windows topology=$topo rep=$1" mode out
	local -A got
	stop_receiver
	for mode in on off; do
		out=$(windows_stream "$mode" "$rep" "$input" --batch 1M) || out=
		got[stream_$mode]=$out
		out=$(windows_stream "$mode" "$rep" "$small" --batch 64 --depth 1) || out=
		got[lat_$mode]=$out
	done
	for mode in stream_on stream_off lat_on lat_off; do
		if [ -z "${got[$mode]}" ]; then
			record "$key status=fail why=$mode"
			note "windows run failed ($mode): see $LOGS/windows-*-$rep-*.log"
			return
		fi
	done
	local a b c d e
	read -r a b c d e <<<"${got[stream_on]}"
	local fields="on_MBps=$a on_p50_us=$b on_p99_us=$c on_reach_bytes=$d on_reach_ms=$e"
	read -r a b c d e <<<"${got[stream_off]}"
	fields+=" off_MBps=$a off_p50_us=$b off_p99_us=$c"
	read -r a b c d e <<<"${got[lat_on]}"
	fields+=" on_lat64_p50_us=$b on_lat64_p99_us=$c on_lat64_reach_bytes=$d on_lat64_reach_ms=$e"
	read -r a b c d e <<<"${got[lat_off]}"
	fields+=" off_lat64_p50_us=$b off_lat64_p99_us=$c"
	record "$key status=ok $fields"
}
