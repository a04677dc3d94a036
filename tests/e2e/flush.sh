#!/bin/bash
# The flush method (IBTA 1.5's RDMA FLUSH and ATOMIC WRITE) with the other
# features, on a devdax pool (32 MiB NVDIMMs, so a rotation is quick): it
# is the default there and the receiver counts its commits; a follower
# wakes within milliseconds of a commit though no message announces it;
# rotation into an archive; --truncate (a replacement, which flush does not
# write: gpspm does); replicas with another method; --retry through a
# receiver killed -9; an append-only log, which never offers it; and an
# ended session's queue pair, which can no longer store or flush the write
# offset; a writer's broken, unflushed or stale-keyed offset stores
# (one_sided_lib.sh). Only where the build has the method (rdma-core 45 or
# later).
# Runs inside the VM test bed: scripts/vm-run -- tests/e2e/flush.sh BUILD
BUILD="$1"
. "$(dirname "$0")/lib.sh"
ROGUE="$BUILD/tests/rogue/rogue_sender"
dax="$RPMA_DEVDAX"

if [ -z "$HAVE_FLUSH" ] || [ -z "$dax" ]; then
	start_case "the build has the flush method and the test bed a devdax"
	fail "HAVE_FLUSH='$HAVE_FLUSH' RPMA_DEVDAX='$dax'"
	end_case
	summary
	exit
fi

head -c 8M /dev/urandom >"$WORK/in8"

start_case "flush is the default on devdax; the done line, --info and the metrics file count its bytes"
if start_recv "$WORK/recv.log" --once --create 1 --metrics-file "$WORK/m.prom" --metrics-interval 1s "$dax"; then
	rc=0
	timeout 120 "$SEND" -v --truncate=in-place "$RECV_IP" "$WORK/in8" 2>"$WORK/send.log" || rc=$?
	[ "$rc" = 0 ] || fail "rpma-send exited $rc: $(cat "$WORK/send.log")"
	grep -q "method flush" "$WORK/send.log" || fail "not flush: $(cat "$WORK/send.log")"
	nap 1.5
	grep -q "^rpma_recv_committed_bytes_total{.*} 8388608$" "$WORK/m.prom" ||
		fail "the metrics file lacks the 8 MiB: $(grep committed_bytes "$WORK/m.prom")"
	wait_recv
	grep -q "done: [1-9][0-9]* commits, 8388608 bytes" "$WORK/recv.log" ||
		fail "the done line does not count them: $(grep done: "$WORK/recv.log")"
	"$RECV" --info --metrics-file "$WORK/m.prom" "$dax" >"$WORK/info" 2>&1 || fail "--info failed: $(cat "$WORK/info")"
	grep -q "8388608" "$WORK/info" || fail "--info does not show the 8 MiB: $(cat "$WORK/info")"
	check_pool "$dax" "$WORK/in8"
else
	fail "receiver did not start: $(cat "$WORK/recv.log")"
fi
end_case

# lines N PAUSE: N lines, each with the time it was written (ns), PAUSE s
# apart.
lines() {
	local i
	for i in $(seq 1 "$1"); do
		printf 'line %03d %s\n' "$i" "$(date +%s%N)"
		sleep "$2"
	done
}

# follow_lag METHOD: 20 lines 0.1 s apart shipped with METHOD while a
# --fetch --follow reader stamps each as it arrives; sets LAG to the median
# lag in ms (the sender's commit, the reader's wake-up and its read, and a
# date(1) on each side).
follow_lag() {
	LAG=""
	timeout 60 "$SEND" --fetch --follow --from end "$RECV_IP" - 2>"$WORK/follow.log" |
		while read -r _ n sent; do printf '%s %s %s\n' "$n" "$sent" "$(date +%s%N)"; done >"$WORK/arrived" &
	local follower=$! rc=0 n
	nap 2
	lines 20 0.1 | timeout 60 "$SEND" -v --method "$1" "$RECV_IP" - 2>"$WORK/send.log" || rc=$?
	[ "$rc" = 0 ] || fail "rpma-send --method $1 exited $rc: $(cat "$WORK/send.log")"
	nap 1
	pkill -INT -f -- "--fetch --follow --from end" || :
	wait "$follower" 2>/dev/null
	n=$(wc -l <"$WORK/arrived")
	[ "$n" = 20 ] || fail "$1: the follower got $n of 20 lines: $(cat "$WORK/follow.log")"
	[ "$(cut -d' ' -f1 "$WORK/arrived" | tr '\n' ' ')" = "$(seq -f %03g 1 20 | tr '\n' ' ')" ] ||
		fail "$1: lines out of order: $(cut -d' ' -f1 "$WORK/arrived" | tr '\n' ' ')"
	LAG=$(awk '{print int(($3 - $2) / 1000000)}' "$WORK/arrived" | sort -n | sed -n 10p)
	log "$1: follower lag, median of 20: ${LAG:-?} ms"
}

# No message tells the receiver of a flush commit: it looks at the write
# offset every 2 ms while a reader waits (it would be 200 ms, its idle
# pace, without). Gpspm's commit request wakes it at once: the baseline.
start_case "--fetch --follow wakes within milliseconds of each flush commit, as of a gpspm one"
if start_recv "$WORK/recv.log" "$dax"; then
	lag_close() { [ -n "$base" ] && [ -n "$LAG" ] && [ "$LAG" -le $((base + 30)) ]; }
	follow_lag gpspm
	base=$LAG
	follow_lag flush
	# Once more if not: a slow moment of the machine under TCG added 31 ms
	# to one measure once (118 against 87 ms); a follower left at the idle
	# pace is late in both.
	if ! lag_close; then
		log "(measured again)"
		follow_lag gpspm
		base=$LAG
		follow_lag flush
	fi
	lag_close ||
		fail "flush's median lag ${LAG:-?} ms, gpspm's ${base:-?} ms: want at most 30 ms more"
	kill -TERM "$RECV_PID"
	wait_recv
else
	fail "receiver did not start: $(cat "$WORK/recv.log")"
fi
end_case

start_case "--busy-poll spins for a gpspm writer's messages, not for a flush writer, which sends none"
if start_recv "$WORK/recv.log" --busy-poll "$dax"; then
	for m in flush gpspm; do
		spawn_piped 120 "$WORK/send.log" "$SEND" -v --method "$m" --truncate=in-place "$RECV_IP" -
		send_pid=$SPAWN_PID
		echo "$m 0" >&7
		wait_for "$WORK/send.log" "method $m" || fail "$m sender did not connect: $(cat "$WORK/send.log")"
		nap 0.5
		r0=$(cpu_ms "$RECV_PID") t0=$(date +%s%3N)
		for i in 1 2 3 4 5 6; do
			echo "$m $i" >&7
			nap 0.5
		done
		r1=$(cpu_ms "$RECV_PID") t1=$(date +%s%3N)
		exec 7>&-
		reap "$send_pid"
		[ "$REAP_RC" = 0 ] || fail "$m sender exited $REAP_RC: $(cat "$WORK/send.log")"
		used=$(((r1 - r0) * 100 / (t1 - t0)))
		log "$m writer, a line every 0.5 s for $((t1 - t0)) ms: the --busy-poll receiver used $((r1 - r0)) ms of CPU ($used% of a core)"
		# a spinning receiver uses a core; one that sleeps, a few percent
		if [ "$m" = flush ]; then
			[ "$used" -lt 25 ] || fail "the receiver spun for a flush writer: $used% of a core"
		else
			[ "$used" -ge 50 ] || fail "the receiver did not spin for a gpspm writer: $used% of a core"
		fi
	done
	kill -TERM "$RECV_PID"
	wait_recv
else
	fail "receiver did not start: $(cat "$WORK/recv.log")"
fi
end_case

# A flush writer's commits need nothing of the receiver, so a receiver
# serving one sleeps: its loop wakes for a request or a signal, its
# threads for their timers, each about once a second (five times that
# before; an idle receiver's wake-ups were its whole CPU under flush).
start_case "a receiver serving an idle flush writer sleeps: a few wake-ups a second over all its threads"
if start_recv "$WORK/recv.log" --metrics-file "$WORK/m.prom" --metrics-interval 2s "$dax"; then
	spawn_piped 120 "$WORK/send.log" "$SEND" -v --truncate=in-place "$RECV_IP" -
	send_pid=$SPAWN_PID
	echo "one line" >&7
	wait_for "$WORK/send.log" "method flush" || fail "the sender did not connect: $(cat "$WORK/send.log")"
	nap 1
	w0=$(wakeups "$RECV_PID") t0=$(date +%s%3N)
	nap 6
	w1=$(wakeups "$RECV_PID") t1=$(date +%s%3N)
	per_s=$(((w1 - w0) * 1000 / (t1 - t0)))
	log "idle flush writer: the receiver's threads woke $((w1 - w0)) times in $((t1 - t0)) ms ($per_s a second)"
	[ "$per_s" -le 8 ] || fail "the receiver woke $per_s times a second serving an idle flush writer: want at most 8"
	# the line counted all the same, within a second and the interval
	grep -q "^rpma_recv_committed_bytes_total{.*} 9$" "$WORK/m.prom" ||
		fail "the metrics file lacks the line's 9 bytes: $(grep committed_bytes "$WORK/m.prom")"
	exec 7>&-
	reap "$send_pid"
	[ "$REAP_RC" = 0 ] || fail "the sender exited $REAP_RC: $(cat "$WORK/send.log")"
	t0=$(date +%s%3N)
	kill -TERM "$RECV_PID"
	wait_recv
	t1=$(date +%s%3N)
	log "the receiver stopped $((t1 - t0)) ms after SIGTERM"
else
	fail "receiver did not start: $(cat "$WORK/recv.log")"
fi
end_case

start_case "--truncate replaces the log with gpspm (flush stores the offset itself, so it writes no replacement; --method flush --truncate is refused saying so)"
head -c 1M /dev/urandom >"$WORK/in1"
if start_recv "$WORK/recv.log" --once "$dax"; then
	rc=0
	timeout 120 "$SEND" --method flush --truncate "$RECV_IP" "$WORK/in1" 2>"$WORK/send.log" || rc=$?
	[ "$rc" = 5 ] && grep -q "method flush cannot replace a log's content.*--truncate=in-place" "$WORK/send.log" ||
		fail "--method flush --truncate: exit $rc, not refused for the replacement: $(cat "$WORK/send.log")"
	rc=0
	timeout 120 "$SEND" -v --truncate "$RECV_IP" "$WORK/in1" 2>"$WORK/send.log" || rc=$?
	[ "$rc" = 0 ] || fail "rpma-send exited $rc: $(cat "$WORK/send.log")"
	grep -q "method gpspm" "$WORK/send.log" || fail "not gpspm: $(cat "$WORK/send.log")"
	wait_recv
	check_pool "$dax" "$WORK/in1"
else
	fail "receiver did not start: $(cat "$WORK/recv.log")"
fi
end_case

start_case "two replicas, flush on devdax and gpspm on a plain file, --quorum 2"
plain="$WORK/plain.pool"
if start_recv "$WORK/recv0.log" --listen "$RECV_IP:7301" "$dax"; then
	r0=$RECV_PID
	if start_recv "$WORK/recv1.log" --listen "$RECV_IP:7302" --create 64M "$plain"; then
		r1=$RECV_PID
		rc=0
		timeout 120 "$SEND" --truncate=in-place --quorum 2 "$RECV_IP:7301,$RECV_IP:7302" "$WORK/in8" 2>"$WORK/send.log" || rc=$?
		[ "$rc" = 0 ] || fail "rpma-send exited $rc: $(cat "$WORK/send.log")"
		kill -TERM "$r1"
		reap "$r1"
		check_pool "$plain" "$WORK/in8"
	else
		fail "receiver 1 did not start: $(cat "$WORK/recv1.log")"
	fi
	kill -TERM "$r0"
	reap "$r0"
	check_pool "$dax" "$WORK/in8"
else
	fail "receiver 0 did not start: $(cat "$WORK/recv0.log")"
fi
end_case

start_case "--retry through a receiver killed -9 mid-stream: the log exact"
head -c 24M /dev/urandom >"$WORK/in24"
if start_recv "$WORK/recv.log" "$dax"; then
	FEED_PAUSE=0.05 start_fed_sender "$WORK/in24" -v --retry 50 --truncate=in-place "$RECV_IP"
	wait_for "$WORK/send.log" "method flush" 60 "$SEND_PID" || fail "not flush: $(cat "$WORK/send.log")"
	nap 1
	kill -9 "$RECV_PID"
	wait_recv
	nap 1
	start_recv "$WORK/recv2.log" "$dax" || fail "receiver did not restart: $(cat "$WORK/recv2.log")"
	reap "$SEND_PID"
	stop_feed
	[ "$REAP_RC" = 0 ] || fail "rpma-send exited $REAP_RC: $(tail -n 5 "$WORK/send.log")"
	kill -TERM "$RECV_PID"
	wait_recv
	check_pool "$dax" "$WORK/in24"
else
	fail "receiver did not start: $(cat "$WORK/recv.log")"
fi
end_case

start_case "an append-only log never offers flush: asked for, refused naming what it offers"
if start_recv "$WORK/recv.log" --append-only "$dax"; then
	rc=0
	timeout 60 "$SEND" --method flush "$RECV_IP" "$WORK/in1" 2>"$WORK/send.log" || rc=$?
	[ "$rc" = 5 ] || fail "exit $rc, want 5: $(cat "$WORK/send.log")"
	one_line_error "$WORK/send.log"
	grep -q "append-only" "$WORK/send.log" || fail "it does not say append-only: $(cat "$WORK/send.log")"
	grep -q "not offering flush: the log is append-only" "$WORK/recv.log" ||
		fail "the receiver does not say why with -v: $(cat "$WORK/recv.log")"
	kill -TERM "$RECV_PID"
	wait_recv
	check_pool "$dax" "$WORK/in24"
else
	fail "receiver did not start: $(cat "$WORK/recv.log")"
fi
end_case

start_case "an ended flush session's queue pair cannot store or flush the write offset"
if start_recv "$WORK/recv.log" "$dax"; then
	rc=0
	out=$(timeout 120 "$ROGUE" stale-flush "$RECV_IP" 2>"$WORK/rogue.err") || rc=$?
	log "$out"
	[ "$rc" = 0 ] || fail "rogue_sender exited $rc: $out $(cat "$WORK/rogue.err")"
	kill -TERM "$RECV_PID"
	wait_recv
	check_pool "$dax" "$WORK/in24"
else
	fail "receiver did not start: $(cat "$WORK/recv.log")"
fi
end_case

# The other release's build (scripts/test-release writes its path into
# BUILD/peer-build): a Debian 12 build, without FLUSH, runs unchanged in
# this Debian 13 guest (the same library sonames, TESTBED.md).
peer=$(cat "$BUILD/peer-build" 2>/dev/null)
if [ -n "$peer" ] && [ -x "$peer/src/rpma-send/rpma-send" ]; then
	PSEND="$peer/src/rpma-send/rpma-send" PRECV="$peer/src/rpma-recv/rpma-recv"
	start_case "mixed builds: the other release's rpma-send, no option set, into this receiver offering flush; --verify"
	if start_recv "$WORK/recv.log" "$dax"; then
		rc=0
		timeout 120 "$PSEND" -v --truncate=in-place "$RECV_IP" "$WORK/in8" 2>"$WORK/send.log" || rc=$?
		[ "$rc" = 0 ] || fail "the other build's rpma-send exited $rc: $(cat "$WORK/send.log")"
		log "$(grep -m1 'method' "$WORK/send.log")"
		rc=0
		timeout 120 "$PSEND" --verify "$WORK/in8" "$RECV_IP" 2>"$WORK/verify.log" || rc=$?
		[ "$rc" = 0 ] || fail "--verify from the other build exited $rc: $(cat "$WORK/verify.log")"
		kill -TERM "$RECV_PID"
		wait_recv
		check_pool "$dax" "$WORK/in8"
	else
		fail "receiver did not start: $(cat "$WORK/recv.log")"
	fi
	end_case

	start_case "mixed builds: this rpma-send, no option set, into the other release's rpma-recv; --verify"
	RECV_SAVED=$RECV RECV=$PRECV
	if start_recv "$WORK/recv.log" "$dax"; then
		rc=0
		timeout 120 "$SEND" -v --truncate=in-place "$RECV_IP" "$WORK/in1" 2>"$WORK/send.log" || rc=$?
		[ "$rc" = 0 ] || fail "rpma-send exited $rc: $(cat "$WORK/send.log")"
		log "$(grep -m1 'method' "$WORK/send.log")"
		rc=0
		timeout 120 "$SEND" --verify "$WORK/in1" "$RECV_IP" 2>"$WORK/verify.log" || rc=$?
		[ "$rc" = 0 ] || fail "--verify exited $rc: $(cat "$WORK/verify.log")"
		kill -TERM "$RECV_PID"
		wait_recv
		check_pool "$dax" "$WORK/in1"
	else
		fail "the other build's receiver did not start: $(cat "$WORK/recv.log")"
	fi
	RECV=$RECV_SAVED
	end_case
else
	log "no other release's build beside this one ($BUILD/peer-build): the mixed-build cases did not run"
fi

# A flush writer's stored offset and kept keys (rogue_sender).
. "$(dirname "$0")/one_sided_lib.sh"
one_sided_run flush
. "$(dirname "$0")/reach_lib.sh"
reach_run flush

# Last: the pool keeps its rotated position from here on.
start_case "rotation: 100 MiB through the 32 MiB pool into an archive, flush all along"
head -c 100M /dev/urandom >"$WORK/in100"
arch="$WORK/arch"
mkdir -p "$arch"
if start_recv "$WORK/recv.log" --once --archive "$arch" "$dax"; then
	rc=0
	timeout 300 "$SEND" -v --truncate=in-place "$RECV_IP" "$WORK/in100" 2>"$WORK/send.log" || rc=$?
	[ "$rc" = 0 ] || fail "rpma-send exited $rc: $(cat "$WORK/send.log")"
	grep -q "method flush" "$WORK/send.log" || fail "not flush: $(cat "$WORK/send.log")"
	wait_recv
	files=$(ls "$arch" | grep -c '\.log$')
	[ "$files" -ge 2 ] || fail "only $files archive files"
	pool_data "$dax" "$WORK/pooldata" || fail "pmempool dump failed"
	# shellcheck disable=SC2046 # one word a file
	cat $(ls "$arch"/*.log | sort) "$WORK/pooldata" | cmp - "$WORK/in100" >&2 ||
		fail "archive + pool differ from the input"
else
	fail "receiver did not start: $(cat "$WORK/recv.log")"
fi
rm -rf "$arch" "$WORK/in100" "$WORK/pooldata"
end_case

summary
