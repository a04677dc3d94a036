#!/bin/bash
# Replication: one rpma-send stream to three receivers on different ports
# (devdax, fsdax, a plain file). All three bit-exact and clean by PMDK's own
# tools; the start check (same length, same bytes by hash, else exit 6 with
# a line per replica); --quorum 2 with one receiver killed -9 (exit 7, the
# others exact) and, with --retry, restarted within the ring's window (all
# exact, exit 0); the sender killed -9 (every replica a prefix). Runs inside
# the VM test bed: scripts/vm-run -- replica.sh BUILD
BUILD="$1"
. "$(dirname "$0")/lib.sh"

RECV_OPTS=(-v) # each receiver gets its own --listen ADDR:PORT
ports=(7301 7302 7303)
pools=("$RPMA_DEVDAX" "$RPMA_FSDAX_DIR/replica.pool" "$WORK/plain.pool")
creates=(1 64M 64M)
targets="$RECV_IP:7301,$RECV_IP:7302,$RECV_IP:7303"
rpid=("" "" "")

input="$WORK/input"
head -c 32M /dev/urandom >"$input"
small="$WORK/small"
head -c 8M /dev/urandom >"$small"
# the lose-one cases' stream, in 24 chunks (through feed's 64, 32 MiB took
# 14 s here against 4 s from the file: a dd and a sleep a chunk)
half="$WORK/half"
head -c 16M "$input" >"$half"

# start_replica I: receiver I on its port and pool (created if need be),
# with the options in RECV_EXTRA.
RECV_EXTRA=()
start_replica() {
	local i=$1
	if ! start_recv "$WORK/recv$i.log" --listen "$RECV_IP:${ports[$i]}" \
		--create "${creates[$i]}" "${RECV_EXTRA[@]}" "${pools[$i]}"; then
		fail "receiver $i did not start: $(cat "$WORK/recv$i.log")"
		return 1
	fi
	rpid[i]=$RECV_PID
}

start_all() {
	local i
	for i in 0 1 2; do start_replica "$i" || return 1; done
}

# stop_all: every receiver still running ends on SIGTERM (pools are read
# after, not while mapped).
stop_all() {
	local i
	for i in 0 1 2; do
		[ -n "${rpid[i]}" ] || continue
		kill -TERM "${rpid[i]}" 2>/dev/null
		reap "${rpid[i]}"
		rpid[i]=""
	done
}

# ship ARGS...: rpma-send ARGS, stderr in $WORK/send.log; sets REAP_RC.
ship() {
	spawn 300 "$WORK/send.log" "$SEND" "$@"
	reap "$SPAWN_PID"
}

# check_prefix POOL [MIN]: clean, a prefix of the input, at least MIN bytes.
check_prefix() {
	local pool="$1" min="${2:-0}" out="$WORK/dump" len
	pool_consistent "$pool" || fail "$pool not consistent: $(cat "$WORK/check")"
	pool_data "$pool" "$out" || { fail "pmempool dump of $pool failed"; return; }
	len=$(stat -c %s "$out")
	cmp -n "$len" "$out" "$input" >&2 || fail "$pool ($len bytes) is not a prefix of the input"
	[ "$len" -ge "$min" ] || fail "$pool holds $len bytes, fewer than the $min reported"
	log "$pool: a clean prefix of $len bytes (at least $min)"
}

start_case "three replicas (devdax, fsdax, plain file): 32 MiB bit-exact"
if start_all; then
	ship --truncate=in-place --stats "$targets" "$input"
	[ "$REAP_RC" = 0 ] || fail "sender exited $REAP_RC: $(cat "$WORK/send.log")"
	n=$(grep -c 'stats: replica=.* state=active bytes=33554432 lag=0 ' "$WORK/send.log")
	[ "$n" = 3 ] || fail "want 3 replica stats lines, got $n: $(cat "$WORK/send.log")"
	# each replica with the method its receiver offers (fsdax: staged)
	grep -q "replica=$RECV_IP:7302 .* method=staged\$" "$WORK/send.log" ||
		fail "fsdax replica not staged: $(cat "$WORK/send.log")"
fi
stop_all
for i in 0 1 2; do check_pool "${pools[i]}" "$input"; done
end_case

start_case "appending to replicas that agree (checked by hash)"
if start_all; then
	ship -v "$targets" "$small"
	[ "$REAP_RC" = 0 ] || fail "sender exited $REAP_RC: $(cat "$WORK/send.log")"
	grep -q "the 3 replicas hold the same 33554432 bytes" "$WORK/send.log" ||
		fail "no agreement check: $(cat "$WORK/send.log")"
fi
stop_all
cat "$input" "$small" >"$WORK/both"
for i in 0 1 2; do check_pool "${pools[i]}" "$WORK/both"; done
end_case

start_case "replicas of different lengths are refused (exit 6, a line each)"
if start_all; then
	printf 'one more line\n' >"$WORK/line"
	ship "$RECV_IP:7302" "$WORK/line"
	[ "$REAP_RC" = 0 ] || fail "appending to one replica exited $REAP_RC"
	ship "$targets" "$small"
	[ "$REAP_RC" = 6 ] || fail "sender exited $REAP_RC, want 6: $(cat "$WORK/send.log")"
	for p in 7301 7303; do
		grep -q "^rpma-send: $RECV_IP:$p holds 41943040 bytes\$" "$WORK/send.log" ||
			fail "no line for $p: $(cat "$WORK/send.log")"
	done
	grep -q "^rpma-send: $RECV_IP:7302 holds 41943054 bytes\$" "$WORK/send.log" ||
		fail "no line for 7302: $(cat "$WORK/send.log")"
	grep -q -- "--truncate" "$WORK/send.log" || fail "no hint: $(cat "$WORK/send.log")"
fi
stop_all
check_pool "${pools[0]}" "$WORK/both" # nothing was written
end_case

start_case "replicas of the same length, different bytes, are refused (exit 6)"
if start_all; then
	head -c 1M /dev/urandom >"$WORK/x"
	head -c 1M /dev/urandom >"$WORK/y"
	ship --truncate=in-place "$RECV_IP:7301" "$WORK/x"
	ship --truncate=in-place "$RECV_IP:7302,$RECV_IP:7303" "$WORK/y"
	[ "$REAP_RC" = 0 ] || fail "two replicas exited $REAP_RC: $(cat "$WORK/send.log")"
	ship "$targets" "$small"
	[ "$REAP_RC" = 6 ] || fail "sender exited $REAP_RC, want 6: $(cat "$WORK/send.log")"
	n=$(grep -c "holds 1048576 bytes (hash [0-9a-f]*)\$" "$WORK/send.log")
	[ "$n" = 3 ] || fail "want 3 hash lines, got $n: $(cat "$WORK/send.log")"
fi
stop_all
check_pool "${pools[0]}" "$WORK/x"
end_case

# lose_one_case HOW [ARGS...]: --quorum 2 ARGS while receiver 7303 is lost
# for good mid-stream, killed -9 (HOW kill) or hung by SIGSTOP until the
# sender ends (HOW stop: only its silence tells). It is dropped (at once, or
# once its retries are spent), the stream goes on, exit 7 with the length
# where it stopped.
lose_one_case() {
	local how=$1 stopped= what="killed -9"
	shift
	[ "$how" = kill ] || what="hung (SIGSTOP)"
	start_case "--quorum 2 $*: one receiver $what mid-stream: exit 7, the others exact"
	if start_all; then
		FEED_CHUNKS=24 FEED_PAUSE=0.05 start_fed_sender "$half" --truncate=in-place --quorum 2 "$@" "$targets"
		wait_for "$WORK/recv2.log" "connected at" || fail "no connection: $(cat "$WORK/send.log")"
		nap 1
		if [ "$how" = kill ]; then
			kill -9 "${rpid[2]}"
			reap "${rpid[2]}"
			rpid[2]=""
		else
			kill -STOP "${rpid[2]}"
		fi
		reap "$SEND_PID"
		stop_feed
		[ "$how" = kill ] || kill -CONT "${rpid[2]}"
		[ "$REAP_RC" = 7 ] || fail "sender exited $REAP_RC, want 7: $(cat "$WORK/send.log")"
		stopped=$(sed -n "s/^rpma-send: $RECV_IP:7303 stopped at \([0-9]*\) input bytes (dropped)\$/\1/p" "$WORK/send.log")
		[ -n "$stopped" ] || fail "no line says where 7303 stopped: $(cat "$WORK/send.log")"
		grep -q "committed 16777216 input bytes on 2 of 3 replicas" "$WORK/send.log" ||
			fail "no closing line: $(cat "$WORK/send.log")"
	fi
	stop_all
	check_pool "${pools[0]}" "$half"
	check_pool "${pools[1]}" "$half"
	check_prefix "${pools[2]}" "${stopped:-0}"
	end_case
}
lose_one_case kill
lose_one_case kill --retry 2
RECV_EXTRA=(--peer-timeout 2) # a hung receiver is noticed by its silence
lose_one_case stop --retry 3
RECV_EXTRA=()

# A pipe sender idle for 10 s (its keepalives' probes come back all the
# while), then one receiver stopped (SIGSTOP; with a rebase, stopped in
# its seal) and lines sent: the stream goes on on two, the stopped one is
# dropped within three peer timeouts (3 s), exit 7, the two hold every
# line. (Before the liveness measured from the first probe after what is
# awaited, it was probed for ever.)
idle_then_stopped_case() {
	local seal=$1 i t0 dropped_at pt=3
	start_case "--quorum 2, a pipe idle 10 s, then a receiver stopped${seal:+ in its seal}: dropped within 3 peer timeouts, exit 7"
	local ipools=("$WORK/idle0.pool" "$WORK/idle1.pool" "$WORK/idle2.pool")
	rm -rf "$WORK"/arch* "${ipools[@]}"
	for i in 0 1 2; do
		local stop_at= rot=()
		mkdir -p "$WORK/arch$i"
		[ -z "$seal" ] || rot=(--archive "$WORK/arch$i")
		[ -z "$seal" ] || [ "$i" != 2 ] || stop_at=archive-sealed
		RPMA_RECV_STOP_AT=$stop_at start_recv "$WORK/recv$i.log" --listen "$RECV_IP:${ports[$i]}" \
			--peer-timeout "$pt" --create 4M "${rot[@]}" "${ipools[$i]}" || fail "receiver $i did not start"
		rpid[i]=$RECV_PID
	done
	spawn_piped 300 "$WORK/send.log" "$SEND" -v --quorum 2 "$targets" -
	local sender=$SPAWN_PID
	printf 'line before the idle spell\n' >&7
	printf 'line before the idle spell\n' >"$WORK/lines"
	nap 10
	[ -n "$seal" ] || kill -STOP "${rpid[2]}"
	# lines; with a seal, enough to fill the 4 MiB pools and rotate them
	head -c "$([ -n "$seal" ] && echo 4M || echo 48K)" /dev/urandom | base64 >"$WORK/more"
	cat "$WORK/more" >>"$WORK/lines"
	cat "$WORK/more" >&7 &
	local writer=$!
	[ -z "$seal" ] || wait_stopped "${rpid[2]}" 120 || fail "receiver 2 did not stop in its seal"
	t0=$SECONDS
	until grep -q "going on without $RECV_IP:7303" "$WORK/send.log" || [ $((SECONDS - t0)) -gt 60 ]; do
		nap 0.2
	done
	dropped_at=$((SECONDS - t0))
	# the writer's fd 7 reads the fifo too: a stalled sender blocks it
	t0=$SECONDS
	while kill -0 "$writer" 2>/dev/null && [ $((SECONDS - t0)) -lt 120 ]; do
		nap 0.2
	done
	kill "$writer" 2>/dev/null && fail "the stream stalled: its lines not all read in 120 s"
	wait "$writer"
	exec 7>&-
	reap "$sender"
	[ "$REAP_RC" = 7 ] || fail "sender exited $REAP_RC, want 7: $(tail -n 5 "$WORK/send.log")"
	log "receiver 2 dropped about $dropped_at s after it was stopped"
	# the loss says why, without -v's lines
	grep -qE "connection to $RECV_IP:7303.* lost after committing [0-9]+ input bytes: no answer for [0-9]+ ms, though its adapter answers probes of the link: its receiver is not serving" "$WORK/send.log" ||
		fail "the loss does not say the receiver is not serving: $(grep 'lost after' "$WORK/send.log")"
	# Within 3 peer timeouts of the lines that found it stopped, the rule's
	# bound (test_liveness.c); under TCG the guest's processes run in
	# bursts and the sender, streaming to the other two, counts time it
	# could not run as no silence (measured 9 s alone, 17 s in the group,
	# 19 s in CI): a bound of ten. Before the rule measured from the first
	# probe after the request, never (the wait above gives up at 60 s).
	[ "$dropped_at" -le $((10 * pt)) ] ||
		fail "dropped after $dropped_at s, more than ten peer timeouts: $(grep "no answer from" "$WORK/send.log" | tail -n 1)"
	kill -CONT "${rpid[2]}" 2>/dev/null
	stop_all
	for i in 0 1; do
		if [ -z "$seal" ]; then
			check_pool "${ipools[$i]}" "$WORK/lines"
		else
			rm -f "$WORK/exported"
			"$RECV" --export "$WORK/exported" --archive "$WORK/arch$i" "${ipools[$i]}" 2>/dev/null ||
				fail "export of replica $i failed"
			cmp -s "$WORK/exported" "$WORK/lines" || fail "replica $i does not hold every line"
		fi
	done
	end_case
}
idle_then_stopped_case ""
idle_then_stopped_case seal

# A replica whose receiver comes back full (max-senders 1, its seat taken
# by another log's writer) refuses the reconnect with a time to ask
# again: the sender asks again from its loop's timers while the other
# replica streams on (a line reaches it at once, not after the seat
# frees), and rejoins when the seat frees: exit 0, both exact. (Before,
# the sender slept on each hint, the whole stream with it.)
full_replica_hint_case() {
	local a=7321 b=7322 pa="$WORK/hint-a.pool" pb="$WORK/hint-b.pool" pz="$WORK/hint-z.pool"
	local ra rb sender z t0
	start_case "--quorum 1 --retry: a replica full for now is asked again while the other streams on"
	rm -f "$pa" "$pb" "$pz"
	start_recv "$WORK/hint-a.log" --listen "$RECV_IP:$a" --create 4M --log "a=$pa" ||
		fail "receiver a did not start"
	ra=$RECV_PID
	local b_args=(--listen "$RECV_IP:$b" --max-senders 1 --create 4M --log "a=$pb" --log "z=$pz")
	start_recv "$WORK/hint-b.log" "${b_args[@]}" || fail "receiver b did not start"
	rb=$RECV_PID
	spawn_piped 120 "$WORK/hint-send.log" "$SEND" -v --quorum 1 --retry 5 "$RECV_IP:$a/a,$RECV_IP:$b/a" -
	sender=$SPAWN_PID
	printf 'line one\n' >&7
	printf 'line one\n' >"$WORK/hint-lines"
	wait_for "$WORK/hint-b.log" "connected at" 30 || fail "the sender did not connect to b"
	# b restarts while the sender is stopped; another log's writer takes
	# its only seat first
	kill -STOP "$sender"
	kill -TERM "$rb"
	reap "$rb"
	start_recv "$WORK/hint-b2.log" "${b_args[@]}" || fail "receiver b did not start again"
	rb=$RECV_PID
	# its input stays open while `holder` runs (nothing else holds the
	# fifo's writing end: no watchdog inherits it)
	rm -f "$WORK/zfifo" && mkfifo "$WORK/zfifo"
	sleep 600 >"$WORK/zfifo" 7>&- &
	local holder=$!
	spawn 120 "$WORK/hint-z.log" "$SEND" "$RECV_IP:$b/z" - <"$WORK/zfifo"
	z=$SPAWN_PID
	wait_for "$WORK/hint-b2.log" "connected at" 30 || fail "the other writer did not connect"
	kill -CONT "$sender"
	wait_for "$WORK/hint-send.log" "serves as many senders as it may for now; asking again" 20 ||
		fail "no hinted refusal: $(tail -n 5 "$WORK/hint-send.log")"
	printf 'line two, while b is full\n' >&7
	printf 'line two, while b is full\n' >>"$WORK/hint-lines"
	t0=$SECONDS
	until timeout 20 "$SEND" --fetch "$RECV_IP:$a/a" "$WORK/hint-fetched" 2>/dev/null &&
		cmp -s "$WORK/hint-fetched" "$WORK/hint-lines"; do
		# b stays full meanwhile (its seat frees only below), so
		# the bound says "while b was full", not how fast: 8 s
		# was once too short for the fetches under TCG
		[ $((SECONDS - t0)) -lt 20 ] || break
		nap 0.3
	done
	cmp -s "$WORK/hint-fetched" "$WORK/hint-lines" ||
		fail "the line did not reach replica a within 20 s while b was full"
	kill -0 "$z" 2>/dev/null || fail "the other writer ended early: $(cat "$WORK/hint-z.log")"
	kill "$holder"
	wait "$holder" 2>/dev/null
	reap "$z"
	[ "$REAP_RC" = 0 ] || fail "the other writer exited $REAP_RC"
	wait_for "$WORK/hint-send.log" "reconnected to $RECV_IP:$b" 30 ||
		fail "b did not rejoin once its seat freed: $(tail -n 5 "$WORK/hint-send.log")"
	exec 7>&-
	reap "$sender"
	[ "$REAP_RC" = 0 ] || fail "sender exited $REAP_RC, want 0: $(tail -n 5 "$WORK/hint-send.log")"
	kill -TERM "$ra" "$rb"
	reap "$ra"
	reap "$rb"
	check_pool "$pa" "$WORK/hint-lines"
	check_pool "$pb" "$WORK/hint-lines"
	end_case
}
full_replica_hint_case

start_case "--quorum 2 --retry: a receiver restarted within the ring's window catches up"
if start_all; then
	FEED_PAUSE=0.1 start_fed_sender "$input" --truncate=in-place --quorum 2 --retry 30 "$targets"
	wait_for "$WORK/recv2.log" "connected at" || fail "no connection: $(cat "$WORK/send.log")"
	nap 1
	kill -9 "${rpid[2]}"
	reap "${rpid[2]}"
	start_replica 2
	reap "$SEND_PID"
	stop_feed
	[ "$REAP_RC" = 0 ] || fail "sender exited $REAP_RC, want 0: $(cat "$WORK/send.log")"
	grep -q "reconnected to $RECV_IP:7303" "$WORK/send.log" ||
		fail "replica 7303 did not rejoin: $(cat "$WORK/send.log")"
fi
stop_all
for i in 0 1 2; do check_pool "${pools[i]}" "$input"; done
end_case

start_case "--verify FILE of the three replicas"
if start_all; then
	spawn 300 "$WORK/verify.log" "$SEND" --verify "$input" "$targets"
	reap "$SPAWN_PID"
	[ "$REAP_RC" = 0 ] || fail "verify exited $REAP_RC: $(cat "$WORK/verify.log")"
fi
stop_all
end_case

start_case "the sender killed -9 mid-stream: every replica holds a prefix"
if start_all; then
	FEED_PAUSE=0.05 start_fed_sender "$input" --truncate=in-place --progress=always "$targets"
	wait_for "$WORK/send.log" "MiB committed" 60 "$SEND_PID" || fail "no progress: $(cat "$WORK/send.log")"
	# each replica's bytes on the progress line
	wait_for "$WORK/send.log" ", $RECV_IP:7303 " 10 || fail "no replica on the progress line: $(cat "$WORK/send.log")"
	nap 1
	kill -9 "$SEND_PID"
	reap "$SEND_PID"
	stop_feed
	# The last progress figure, to 0.1 MiB: each replica holds at least it.
	mib=$(tr '\r' '\n' <"$WORK/send.log" | sed -n 's/^rpma-send: \([0-9.]*\) MiB committed.*/\1/p' | tail -1)
	min=$(awk -v m="${mib:-0}" 'BEGIN { v = (m - 0.1) * 1048576; print (v > 0 ? int(v) : 0) }')
fi
stop_all
for i in 0 1 2; do check_prefix "${pools[i]}" "${min:-0}"; done
end_case

start_case "--quorum larger than the list is refused"
ship --quorum 4 "$targets" "$small"
[ "$REAP_RC" = 2 ] || fail "exited $REAP_RC, want 2"
grep -q "quorum 4: only 3 replicas are listed" "$WORK/send.log" || fail "message: $(cat "$WORK/send.log")"
end_case

summary
