#!/bin/bash
# The busy fleet's plainer driver (tests/load/busy.sh --driver shell): N
# rpma-send processes started together, each fed by a shell pipeline of its
# own, a loop of dd of one 64 KiB piece and a sleep, as a script tailing a
# file feeds a sender; so each sender costs the host a shell, a dd a piece
# and a sleep a piece, not one loop for all (busy_drive.py). Same files and
# lines as busy_drive.py: WORK/in.I, WORK/send.I.log, "sender I rc=RC
# secs=S" per sender, then "drive: done N".
#   busy_shell.sh SEND HOST N WORK TIMEOUT -- SENDER_OPTIONS...
SEND=$1 HOST=$2 N=$3 WORK=$4 TIMEOUT=$5
shift 6
PIECES=16 EVERY=0.5

# one_sender I: its input fed piece by piece, its end said
one_sender() {
	local i=$1 t0=$EPOCHREALTIME rc=0 p
	shift
	for ((p = 0; p < PIECES; p++)); do
		dd if="$WORK/in.$i" bs=64K skip="$p" count=1 status=none
		sleep "$EVERY"
	done | timeout -s KILL "$TIMEOUT" "$SEND" "$@" "$HOST/l$i" - 2>"$WORK/send.$i.log" >/dev/null || rc=$?
	[ "$rc" != 137 ] || rc=-9
	printf 'sender %d rc=%s secs=%s\n' "$i" "$rc" \
		"$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
}

for ((i = 0; i < N; i++)); do
	head -c $((PIECES * 65536)) /dev/urandom >"$WORK/in.$i"
done
for ((i = 0; i < N; i++)); do
	one_sender "$i" "$@" &
done
wait
echo "drive: done $N"
