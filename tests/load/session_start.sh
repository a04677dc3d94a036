#!/bin/bash
# What a writer's session start costs the receiver: N senders one after the
# other, each shipping one line and leaving, into one log on the test bed's
# device-DAX, three rounds; per session, the receiver's CPU and the wall
# time of a sender from start to exit. For the one-sided methods (apm,
# flush) each session registers the log's whole data range as its own
# keys (reach/writer_keys.h): this shows what that costs.
#   scripts/vm-run --memory 3G --pmem-size 1G -- tests/load/session_start.sh BUILD N METHOD [LOG OPTIONS]
# e.g. ... session_start.sh build/release 10 apm direct-write-to-pmem=yes
BUILD="$1" N=$2 METHOD=$3 OPTS=${4:+,$4}
. "$(dirname "$0")/../e2e/lib.sh"
start_recv "$WORK/r.log" --create 1 --log "v=$RPMA_DEVDAX$OPTS" || {
	cat "$WORK/r.log"
	exit 1
}
echo first | timeout 60 "$SEND" --method "$METHOD" "$RECV_IP/v" || echo "first send failed"
for round in 1 2 3; do
	c0=$(cpu_ms "$RECV_PID") t0=$(date +%s%3N)
	for i in $(seq "$N"); do
		echo "line $i" | timeout 60 "$SEND" --method "$METHOD" "$RECV_IP/v" || echo "send $i failed"
	done
	c1=$(cpu_ms "$RECV_PID") t1=$(date +%s%3N)
	echo "session_start: $("$SEND" --version), $METHOD, round $round: $N sessions," \
		"receiver CPU $(((c1 - c0) / N)) ms and $(((t1 - t0) / N)) ms of wall time a session"
done
kill -TERM "$RECV_PID"
wait_recv
