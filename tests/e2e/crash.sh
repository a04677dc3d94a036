#!/bin/bash
# Crash consistency: kill -9 the sender, and separately the receiver, at
# seeded random points mid-stream, for each method on each target (flush on
# devdax where the build has it). After every crash the pool checks clean
# with PMDK's tools, its content is an exact prefix of the input, and it
# holds at least every byte the sender reported committed. Then power cuts
# of the PMem under the persistence model (model_cut_lib.sh): 4 into a
# device-DAX with gpspm (the first aimed inside a commit before its batch
# is persistent, the second between its data persisted and its write
# offset moved), 3 into fsdax with staged, 2 into a
# device-DAX log whose writer's session is taken over (the first inside
# the takeover), 5 into a rotating fsdax
# log (4 aimed at a rotation's steps; RPMA_CRASH_CUTS=N runs N of each,
# at least the 4 aimed), 3 inside a --truncate switch (one
# at each of its steps), and the self-tests that must find a loss. Runs
# inside the VM test bed: scripts/vm-run -- crash.sh BUILD
BUILD="$1"
. "$(dirname "$0")/lib.sh"

seed="${RPMA_CRASH_SEED:-$(date +%s)}"
RANDOM=$seed
log "crash seed: $seed (set RPMA_CRASH_SEED to repeat)"

input="$WORK/input"
head -c 8M /dev/urandom >"$input"

# check_prefix POOL [MIN]: the pool is consistent, holds a prefix of the
# input, at least MIN bytes long.
check_prefix() {
	local pool="$1" min="${2:-0}" out="$WORK/dump"
	pool_consistent "$pool" || fail "pool not consistent: $(cat "$WORK/check")"
	pool_data "$pool" "$out" || { fail "pmempool dump failed"; return; }
	local len
	len=$(stat -c %s "$out")
	[ "$len" -le "$(stat -c %s "$input")" ] || fail "pool holds $len bytes, more than the input"
	cmp -n "$len" "$out" "$input" >&2 || fail "pool content ($len bytes) is not a prefix of the input"
	[ "$len" -ge "$min" ] || fail "pool holds $len bytes but the sender reported $min committed"
	log "pool holds a clean prefix of $len bytes (sender reported $min)"
}

# delay: a seeded random pause between 0.2 and 1.4 s.
delay() {
	sleep "$(printf '0.%d' $((RANDOM % 10)))"
	sleep 0.2
	[ $((RANDOM % 2)) = 0 ] || sleep 0.4
}

start_sender() { # start_sender METHOD: streams the input into rpma-send.
	start_fed_sender "$input" --truncate=in-place --method "$1" --batch 64K "$RECV_IP"
}

# begin_stream POOL METHOD [RECV ARGS...]: a receiver on POOL and a sender
# streaming the input into it, left at a seeded point mid-stream. Fails the
# case and returns 1 when the receiver does not start.
begin_stream() {
	local pool="$1" method="$2"
	shift 2
	if ! start_recv "$WORK/recv.log" "$@" "$pool"; then
		fail "receiver did not start: $(cat "$WORK/recv.log")"
		return 1
	fi
	start_sender "$method"
	wait_for "$WORK/recv.log" "connected at" || fail "sender did not connect: $(cat "$WORK/send.log")"
	delay
}

kill_sender_case() { # POOL METHOD [RECV ARGS...]
	local pool="$1" method="$2"
	shift 2
	start_case "kill -9 sender: $method on $pool"
	if ! begin_stream "$pool" "$method" "$@"; then
		end_case
		return
	fi
	kill -9 "$SEND_PID"
	reap "$SEND_PID"
	stop_feed
	# The receiver notices the dead sender and stays up for the next one.
	sleep 0.5
	kill -0 "$RECV_PID" 2>/dev/null || fail "receiver died with the sender: $(cat "$WORK/recv.log")"
	kill -TERM "$RECV_PID"
	wait_recv
	[ "$REAP_RC" = 0 ] || fail "receiver exited $REAP_RC on SIGTERM: $(cat "$WORK/recv.log")"
	check_prefix "$pool"
	end_case
}

kill_receiver_case() { # POOL METHOD [RECV ARGS...]
	local pool="$1" method="$2"
	shift 2
	start_case "kill -9 receiver: $method on $pool"
	if ! begin_stream "$pool" "$method" "$@"; then
		end_case
		return
	fi
	kill -9 "$RECV_PID"
	wait_recv
	reap "$SEND_PID"
	local rc=$REAP_RC
	stop_feed
	local committed
	committed=$(sed -n 's/.*after committing \([0-9]*\) input bytes.*/\1/p' "$WORK/send.log")
	if [ "$rc" = 0 ]; then
		# The stream may have ended before the kill: all of it counts.
		committed=$(stat -c %s "$input")
	else
		[ "$rc" = 3 ] || fail "sender exited $rc, want 3: $(cat "$WORK/send.log")"
		[ -n "$committed" ] || fail "sender did not report committed bytes: $(cat "$WORK/send.log")"
		one_line_error "$WORK/send.log"
	fi
	check_prefix "$pool" "${committed:-0}"
	# A restarted receiver accepts the pool as it is.
	if start_recv "$WORK/recv.log" "$pool"; then
		kill -TERM "$RECV_PID"
		wait_recv
		[ "$REAP_RC" = 0 ] || fail "restarted receiver exited $REAP_RC"
	else
		fail "receiver refused the pool after the crash: $(cat "$WORK/recv.log")"
	fi
	end_case
}

plain="$WORK/plain.pool"
# Create the plain pool once; every case then truncates it.
start_recv "$WORK/recv.log" --create 32M "$plain" && kill -TERM "$RECV_PID"
wait_recv
fsdax="$RPMA_FSDAX_DIR/crash.pool"

# One round of each (kill -9 of the receiver of gpspm and staged is also
# what each cut under the persistence model below begins with, 20 times).
kill_sender_case "$plain" gpspm
kill_receiver_case "$plain" gpspm
kill_sender_case "$plain" staged
kill_receiver_case "$plain" staged
kill_sender_case "$RPMA_DEVDAX" apm --create 1 --direct-write-to-pmem
kill_receiver_case "$RPMA_DEVDAX" apm --direct-write-to-pmem
kill_sender_case "$RPMA_DEVDAX" gpspm
kill_receiver_case "$RPMA_DEVDAX" gpspm
kill_sender_case "$fsdax" staged --create 32M
kill_receiver_case "$fsdax" staged
if [ -n "$HAVE_FLUSH" ]; then
	kill_sender_case "$RPMA_DEVDAX" flush
	kill_receiver_case "$RPMA_DEVDAX" flush
fi

# Power cuts of the PMem: the receiver's persists, as the model keeps them
. "$(dirname "$0")/model_cut_lib.sh"
more=${RPMA_CRASH_CUTS:-}
# the first cut aimed inside a commit before any of its batch is
# persistent, the second between its data persisted and its offset
MODEL_AIMS="commit-data-landed commit-data-persisted" model_cut_case "$RPMA_DEVDAX" gpspm "${more:-4}"
model_cut_case "$fsdax" staged "${more:-3}"
# a cut inside a takeover: the writer's session given up for a silent
# receiver and taken over with its token, cut once the old one ended
MODEL_AIMS=takeover-old-ended model_cut_case "$RPMA_DEVDAX" gpspm 2 --peer-timeout 2
model_rotation_case "$RPMA_FSDAX_DIR/rotate.pool" staged "$(((${more:-5} > 4 ? ${more:-5} : 4)))"
model_self_test "$RPMA_DEVDAX" gpspm 10 word
model_self_test "$fsdax" staged 10 data
MODEL_ARCHIVE=$WORK/archive model_self_test "$RPMA_FSDAX_DIR/rotate.pool" staged 10 record
model_switch_case "$RPMA_FSDAX_DIR/switch.pool"
# a chunk moved over the old content, its record not persistent
MODEL_SWITCH_STEPS=switch-moving model_self_test "$RPMA_FSDAX_DIR/switch.pool" switch 1 record

summary
