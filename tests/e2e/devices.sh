#!/bin/bash
# A PMem host with two RDMA devices, as a dual-port adapter gives it: the
# test bed's rxe0 (192.0.2.1) and rxe1 (192.0.2.2), the receiver listening
# on every address (its default). For each method (staged into fsdax,
# gpspm and apm into the device-DAX, flush where the build has it) a
# writer streams through rxe0 while readers fetch the same log through
# rxe1 (three whole fetches and a --follow from byte 0); then a takeover
# with the writer's token comes in through rxe1 and commits after it
# (tests/rogue: takeover-across), and a second writer appends through
# rxe1. Every stream exits 0, the log holds exactly what was committed,
# the follower has all of it, and the receiver ends no session but the
# one taken over.
# Runs inside the VM test bed: scripts/vm-run -- tests/e2e/devices.sh BUILD
BUILD="$1"
. "$(dirname "$0")/lib.sh"
ROGUE="$BUILD/tests/rogue/rogue_sender"
RECV_OPTS=(-v) # every address: both devices
A=192.0.2.1 B=192.0.2.2
# What the takeover commits (rogue_sender.c: BEFORE_ and AFTER_TAKEOVER;
# a one-sided writer's chunk, rogue_offset.c).
GPSPM_CHUNKS=$'rogue_sender: before the takeover\nrogue_sender: after the takeover\n'
ONE_SIDED_CHUNKS=$'rogue_sender: one-sided chunk\nrogue_sender: one-sided chunk\n'

head -c 6M /dev/urandom >"$WORK/first"
head -c 1M /dev/urandom >"$WORK/second"

# fetches_through_b NAME EXPECTED-PREFIX: three whole fetches through rxe1
# while the writer streams through rxe0: each exits 0 with a prefix of
# what is being sent.
fetches_through_b() {
	local i rc n
	for i in 1 2 3; do
		rc=0
		timeout 120 "$SEND" --fetch "$B/$1" "$WORK/fetch.$i" 2>"$WORK/fetch.log" || rc=$?
		[ "$rc" = 0 ] || fail "fetch $i through rxe1 exited $rc: $(cat "$WORK/fetch.log")"
		n=$(stat -c %s "$WORK/fetch.$i")
		cmp -s -n "$n" "$WORK/fetch.$i" "$2" || fail "fetch $i ($n bytes) is not a prefix of the stream"
		nap 0.5
	done
}

# follower_has FILE SIZE: the follower's output reaches SIZE bytes.
follower_has() {
	local end=$((SECONDS + 120))
	while [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -lt "$2" ]; do
		[ "$SECONDS" -lt "$end" ] || return 1
		nap 0.2
	done
}

# devices_case METHOD POOL [LOG OPTIONS]: the whole story for one method,
# its log d on POOL.
devices_case() {
	local m=$1 pool=$2 opts="${3:+,$3}" rlog="$WORK/recv.$1.log"
	local expected="$WORK/expected.$1" rc
	start_case "$m: a writer through rxe0, readers and a takeover through rxe1, the log exact"
	if ! start_recv "$rlog" --create 16M --log "d=$pool$opts"; then
		fail "receiver did not start: $(cat "$rlog")"
		end_case
		return
	fi
	FEED_PAUSE=0.05 start_fed_sender "$WORK/first" --truncate=in-place --method "$m" "$A/d"
	# From its first commit on (the truncation before it replaced the log)
	wait_for "$rlog" "connected at write offset" 60
	nap 0.5
	spawn 300 "$WORK/follow.log" "$SEND" --fetch --follow --from 0 "$B/d" "$WORK/follow.out"
	local follower=$SPAWN_PID
	fetches_through_b d "$WORK/first"
	reap "$SEND_PID"
	stop_feed
	[ "$REAP_RC" = 0 ] || fail "the writer through rxe0 exited $REAP_RC: $(cat "$WORK/send.log")"
	grep -q "method $m" "$WORK/send.log" 2>/dev/null || [ "$m" = staged ] ||
		log "(the writer's method is not said without -v)"
	cp "$WORK/first" "$expected"
	# The takeover through the other device (not for staged: the rogue
	# writes in place).
	if [ "$m" != staged ]; then
		rc=0
		timeout 120 "$ROGUE" takeover-across "$A/d" "$m@$B" >"$WORK/rogue.out" 2>&1 || rc=$?
		log "$(cat "$WORK/rogue.out")"
		[ "$rc" = 0 ] || fail "takeover-across exited $rc"
		if [ "$m" = gpspm ]; then
			printf '%s' "$GPSPM_CHUNKS" >>"$expected"
		else
			printf '%s' "$ONE_SIDED_CHUNKS" >>"$expected"
		fi
	fi
	rc=0
	timeout 120 "$SEND" --method "$m" "$B/d" "$WORK/second" 2>"$WORK/send2.log" || rc=$?
	[ "$rc" = 0 ] || fail "the second writer through rxe1 exited $rc: $(cat "$WORK/send2.log")"
	cat "$WORK/second" >>"$expected"
	follower_has "$WORK/follow.out" "$(stat -c %s "$expected")" ||
		fail "the follower through rxe1 has $(stat -c %s "$WORK/follow.out") of $(stat -c %s "$expected") bytes"
	kill -INT "$follower"
	reap "$follower"
	[ "$REAP_RC" = 0 ] || fail "the follower exited $REAP_RC: $(cat "$WORK/follow.log")"
	cmp -s "$WORK/follow.out" "$expected" || fail "the follower's copy differs from the log"
	kill -0 "$RECV_PID" 2>/dev/null || fail "the receiver died: $(tail -n 20 "$rlog")"
	kill -TERM "$RECV_PID"
	wait_recv
	[ "$REAP_RC" = 0 ] || fail "the receiver exited $REAP_RC"
	check_pool "$pool" "$expected"
	# No session ended but by its sender's leaving, or taken over.
	grep -E "its session ended: |peer timeout|cannot (create|register a|bind)" "$rlog" |
		grep -v "its session ended: disconnected$" >"$WORK/ended" || :
	[ ! -s "$WORK/ended" ] || fail "sessions ended on the receiver: $(head -n 5 "$WORK/ended")"
	local takeovers
	takeovers=$(grep -c "takes its session over" "$rlog")
	[ "$m" = staged ] || [ "$takeovers" = 1 ] || fail "$takeovers takeovers, not 1"
	end_case
}

devices_case staged "$RPMA_FSDAX_DIR/d.pool"
devices_case gpspm "$RPMA_DEVDAX"
devices_case apm "$RPMA_DEVDAX" direct-write-to-pmem=yes
[ -z "$HAVE_FLUSH" ] || devices_case flush "$RPMA_DEVDAX"
summary
