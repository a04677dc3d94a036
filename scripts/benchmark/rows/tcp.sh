# shellcheck shell=bash
# scripts/benchmark/guest's the TCP baseline (sourced by it;
# its variables and helpers are the guest's).

# --- TCP baseline: socat over the same two addresses into a file on the
# fsdax mount, then fsync (dd conv=fsync), 1 MiB buffers and writes; timed
# from accept (socat's log) to fsync done.
epoch_of() { # "YYYY/MM/DD HH:MM:SS.ffffff" (socat's log, local time) -> seconds
	local d=${1%% *} t=${1#* }
	echo "$(date -d "${d//\//-} ${t%.*}" +%s).${t#*.}"
}
tcp_run() {
	local rep=$1 tag="tcp-$1"
	local key="tcp kind=tcp topology=$topo rep=$rep"
	if [ -z "$fsdax_dir" ] || [ -z "$client_ip" ] || ! command -v socat >/dev/null; then
		record "$key status=skipped why=no-fsdax-or-client-ip-or-socat"
		return
	fi
	local dst=$fsdax_dir/rpma-bench.tcp slog="$LOGS/$tag.socat.log"
	rm -f "$dst"
	next_port
	: >"$slog"
	timeout 300 /usr/bin/time -f "$TIMEFMT" -o "$LOGS/$tag.recv.time" bash -c '
		socat -b 1048576 -d -d -lu -u TCP-LISTEN:"$1",bind="$2",reuseaddr STDOUT 2>"$3" |
			dd of="$4" bs=1M iflag=fullblock conv=fsync status=none' _ "$port" "$server_ip" "$slog" "$dst" &
	local rpid=$!
	wait_for "$slog" "listening on" 20 "$rpid" || :
	local rc=0
	timeout 300 /usr/bin/time -f "$TIMEFMT" -o "$LOGS/$tag.send.time" \
		socat -b 1048576 -u OPEN:"$input",rdonly TCP:"$server_ip:$port",bind="$client_ip" 2>"$LOGS/$tag.send.log" || rc=$?
	local rrc=0
	wait "$rpid" || rrc=$?
	local end=$EPOCHREALTIME
	local got
	got=$(stat -c %s "$dst" 2>/dev/null || echo 0)
	local acc
	acc=$(sed -n 's/^\([0-9/]* [0-9:.]*\) .* accepting connection.*/\1/p' "$slog")
	if [ "$rc" != 0 ] || [ "$rrc" != 0 ] || [ "$got" != "$size" ] || [ -z "$acc" ]; then
		record "$key status=fail why=send-$rc-recv-$rrc-bytes-$got"
		note "TCP baseline failed ($tag): $(tail -n 3 "$slog")"
		return
	fi
	local start secs
	start=$(epoch_of "$acc")
	secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
	local s r
	s=$(cpu_rss "$LOGS/$tag.send.time") r=$(cpu_rss "$LOGS/$tag.recv.time")
	record "$key status=ok bytes=$size seconds=$secs" \
		"MBps=$(awk -v n="$size" -v t="$secs" 'BEGIN { printf "%.2f", n / t / 1e6 }')" \
		"send_${s// / send_} recv_${r// / recv_}"
	rm -f "$dst"
}
