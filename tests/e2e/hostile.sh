#!/bin/bash
# End-to-end against hostile senders: one rpma-recv on a plain file faces
# every tests/rogue/rogue_sender scenario, then one on a devdax those that
# reach the pool's memory (bad connect private data,
# commits outside the log or the staging ring, malformed messages, RDMA
# writes outside the granted regions, a reader's write, a stale session's).
# Each must be refused and logged, the receiver must stay up and serve an
# honest rpma-send after each, and at the end the pool holds exactly the
# honest chunks and checks clean. A takeover with a made-up token is
# refused at max-senders like any request, and a sender that finds the
# receiver at its open-file limit as full. Then an append-only log (devdax) beside
# another: writes over its committed bytes with every key a host was shown
# fail at the NIC, its bytes unchanged, while a writer of the other log
# streams on. Last an apm writer that stores broken offsets, leaves one
# unflushed (a cut of the PMem after it, under the persistence model),
# and keeps its keys past a takeover (one_sided_lib.sh); and
# what it and others reach while a rotation's seal waits and after it, and
# with the keys of the spare region (reach_lib.sh).
# Runs inside the VM test bed: scripts/vm-run -- tests/e2e/hostile.sh BUILD
BUILD="$1"
. "$(dirname "$0")/lib.sh"

ROGUE="$BUILD/tests/rogue/rogue_sender"
HONEST_TEXT="rogue_sender honest: written and committed by gpspm"
# What writer-rewrites commits (rogue_sender.c's CHUNK_A and _B).
WRITER_CHUNKS=$(printf 'rogue_sender: chunk %s\n' A B)
WRITER_CHUNKS+=$'\n'

scenarios=(bad-magic bad-version future-version short unknown-flags unknown-method bad-name
	commit-out-of-range commit-not-contiguous staged-oversized
	malformed-message write-outside reader-writes reader-reads-ahead reader-truncates
	writer-rewrites stale-session honest)
# The ones that reach the pool's memory: run again on the device-DAX (the
# others are refused from the request or the message alone, before the
# pool's kind matters: once, on the plain file, is enough).
memory_scenarios=(commit-out-of-range commit-not-contiguous staged-oversized
	write-outside reader-writes reader-reads-ahead reader-truncates
	writer-rewrites stale-session honest)

# need FILE COUNT PATTERN: FILE has at least COUNT lines matching PATTERN.
need() {
	local n
	n=$(grep -c -- "$3" "$1")
	[ "$n" -ge "$2" ] || fail "receiver logged $n (not $2) lines matching '$3'"
}

# expect_logged SCENARIO FILE: the receiver's log (from the scenario on)
# names each refusal of SCENARIO.
expect_logged() {
	local f="$2"
	case "$1" in
	bad-magic) need "$f" 1 "refusing sender .*: bad magic" ;;
	bad-version) need "$f" 1 "refusing sender .*: it speaks protocol version 8, this receiver 9 to 10: upgrade the sender" ;;
	future-version) need "$f" 1 "sender .* asked in protocol version 200, this receiver speaks 9 to 10: told so" ;;
	# rdma_cm pads private data with zeros: 3 bytes read as a bad magic.
	short) need "$f" 1 "refusing sender .*: \(bad magic\|private data too short\)" ;;
	unknown-flags) need "$f" 1 "refusing sender .*: unknown connect flags" ;;
	unknown-method) need "$f" 1 "refusing sender .*: unknown persistence method" ;;
	bad-name) need "$f" 3 "refusing sender .*: bad log name" ;;
	commit-out-of-range | staged-oversized)
		need "$f" 4 "refused a request from .*: range outside the log or the staging ring; closing"
		;;
	commit-not-contiguous)
		need "$f" 2 "refused a request from .*: batch does not start at the committed write offset; closing"
		;;
	malformed-message)
		need "$f" 1 "sent a malformed message (bad message magic); closing"
		need "$f" 1 "sent a malformed message (message truncated); closing"
		need "$f" 1 "sent a malformed message (unknown message type); closing"
		need "$f" 1 "refused a request from .*: malformed request; closing"
		# 64 bytes overrun the 48-byte receive: the QP fails.
		need "$f" 1 "connection with .* failed"
		;;
	# The NIC refuses these; the receiver only sees the sessions end.
	write-outside) need "$f" 5 "done: 0 commits, 0 bytes" ;;
	reader-truncates) need "$f" 2 "refusing sender .*: a reading session asks to write" ;;
	# Its writes over committed bytes fail at the NIC: the sessions end.
	writer-rewrites) need "$f" 1 "done: 2 commits, 44 bytes" ;;
	stale-session) need "$f" 1 "sent a malformed message (bad message magic); closing" ;;
	honest) need "$f" 1 "done: 1 commits, ${#HONEST_TEXT} bytes" ;;
	esac
}

chunks=0

# rogue_run SCENARIO TARGET [ARG]: rogue_sender, which must find the
# receiver safe (exit 0); its report goes to the log.
rogue_run() {
	local out rc=0
	out=$(timeout 120 "$ROGUE" "$@" 2>"$WORK/rogue.err") || rc=$?
	log "$out"
	[ "$rc" = 0 ] || fail "rogue_sender exited $rc: $out $(cat "$WORK/rogue.err")"
}

# honest_send LABEL SCENARIO POOL EXPECTED: rpma-send appends a small known
# chunk (the first one truncates the log), which must be committed.
honest_send() {
	local label="$1" scenario="$2" pool="$3" expected="$4"
	chunks=$((chunks + 1))
	printf 'honest chunk %02d on %s, after %s\n' "$chunks" "$label" "$scenario" >"$WORK/chunk"
	local args=(--retry 5)
	if [ "$chunks" = 1 ]; then
		args+=(--truncate=in-place)
		: >"$expected"
	fi
	local rc=0
	timeout 60 "$SEND" "${args[@]}" "$RECV_IP" "$WORK/chunk" 2>"$WORK/send.log" || rc=$?
	if [ "$rc" != 0 ]; then
		fail "honest rpma-send exited $rc: $(cat "$WORK/send.log")"
		return
	fi
	cat "$WORK/chunk" >>"$expected"
	kill -0 "$RECV_PID" 2>/dev/null || fail "receiver died after the honest send"
	pool_data "$pool" "$WORK/now" || { fail "pmempool dump failed"; return; }
	if ! cmp -s "$WORK/now" "$expected"; then
		fail "log does not hold the honest chunks so far ($(stat -c %s "$WORK/now") vs $(stat -c %s "$expected") bytes)"
		# Judge later cases by what they add, not by this damage again.
		cp "$WORK/now" "$expected"
	fi
}

# hostile_run LABEL POOL [RECV ARGS...]: one receiver on POOL against every
# scenario (HOSTILE_SCENARIOS: those named), an honest send after each,
# then SIGTERM and the pool's check.
hostile_run() {
	local label="$1" pool="$2" run=("${HOSTILE_SCENARIOS[@]:-${scenarios[@]}}")
	shift 2
	local rlog="$WORK/recv.$label.log" expected="$WORK/expected.$label"
	chunks=0
	start_case "$label: receiver starts"
	if ! start_recv "$rlog" "$@" "$pool"; then
		fail "receiver did not start: $(cat "$rlog")"
		end_case
		return
	fi
	end_case
	local scenario from out rc
	for scenario in "${run[@]}"; do
		start_case "$label: $scenario"
		if ! kill -0 "$RECV_PID" 2>/dev/null; then
			fail "receiver is gone"
			end_case
			continue
		fi
		from=$(($(wc -l <"$rlog") + 1))
		rc=0
		out=$(timeout 120 "$ROGUE" "$scenario" "$RECV_IP" "$HONEST_TEXT" 2>"$WORK/rogue.err") || rc=$?
		log "$out"
		[ "$rc" = 0 ] || fail "rogue_sender exited $rc: $out $(cat "$WORK/rogue.err")"
		if ! kill -0 "$RECV_PID" 2>/dev/null; then
			fail "receiver died: $(tail -n +"$from" "$rlog")"
			end_case
			continue
		fi
		[ "$scenario" = honest ] && [ "$rc" = 0 ] && printf '%s' "$HONEST_TEXT" >>"$expected"
		[ "$scenario" = writer-rewrites ] && [ "$rc" = 0 ] && printf '%s' "$WRITER_CHUNKS" >>"$expected"
		honest_send "$label" "$scenario" "$pool" "$expected"
		tail -n +"$from" "$rlog" >"$WORK/slice"
		expect_logged "$scenario" "$WORK/slice"
		# shellcheck disable=SC2154 # case_failed: set by start_case
		[ "$case_failed" = 0 ] || log "receiver log: $(cat "$WORK/slice")"
		end_case
	done
	start_case "$label: SIGTERM, the pool holds exactly the honest data"
	kill -TERM "$RECV_PID" 2>/dev/null
	wait_recv
	[ "$REAP_RC" = 0 ] || fail "receiver exited $REAP_RC on SIGTERM: $(tail -n 20 "$rlog")"
	check_pool "$pool" "$expected"
	end_case
}

if [ ! -x "$ROGUE" ]; then
	start_case "rogue_sender built"
	fail "$ROGUE is missing"
	end_case
	summary
	exit
fi

hostile_run plain "$WORK/hostile.pool" --create 64M

# The cap holds for everyone: with max-senders 1 taken by a reader, a
# takeover with a made-up token into a log no writer holds is refused like
# any request; once the reader is gone its seat is free at once.
start_case "max-senders: a made-up takeover token is refused at the cap"
if start_recv "$WORK/recv.cap.log" --max-senders 1 --log "a=$WORK/cap-a.pool" \
	--log "b=$WORK/cap-b.pool" --create 4M; then
	spawn 120 "$WORK/cap.reader" "$SEND" --fetch --follow "$RECV_IP/a" "$WORK/cap.out"
	reader=$SPAWN_PID
	wait_for "$WORK/recv.cap.log" "connected at write offset" 30 "$RECV_PID" ||
		fail "the reader did not connect: $(cat "$WORK/cap.reader")"
	rogue_run takeover-at-cap "$RECV_IP/b"
	grep -q "refusing sender .*: 1 senders connected, the most max-senders allows" "$WORK/recv.cap.log" ||
		fail "the refusal is not logged: $(tail -n 5 "$WORK/recv.cap.log")"
	kill -TERM "$reader"
	reap "$reader"
	printf 'after the reader\n' >"$WORK/cap.in"
	rc=0
	# (its end reaches the receiver a moment after it exits)
	timeout 60 "$SEND" --retry 2 "$RECV_IP/b" "$WORK/cap.in" 2>"$WORK/cap.err" || rc=$?
	[ "$rc" = 0 ] || fail "a writer after the reader left: exit $rc: $(cat "$WORK/cap.err")"
	kill -TERM "$RECV_PID"
	wait_recv
else
	fail "receiver did not start: $(cat "$WORK/recv.cap.log")"
fi
end_case

# A host short of CPU: requests wait, and their senders give up on them
# (their connect timed out). Such a request holds nothing: with the
# receiver stopped, five senders with a connect timeout of 1 ms give up;
# once it goes on, none of theirs is refused at max-senders 2 or fails to
# make a queue pair, and the next sender gets in at once.
start_case "max-senders: a request whose sender gave up holds no seat"
if start_recv "$WORK/recv.gone.log" --max-senders 2 --create 4M "$WORK/gone.pool"; then
	printf 'after the ones that gave up\n' >"$WORK/gone.in"
	kill -STOP "$RECV_PID"
	wait_stopped "$RECV_PID" 10 || fail "the receiver did not stop"
	pids=()
	for i in 1 2 3 4 5; do
		timeout 30 "$SEND" --timeout 1 "$RECV_IP" "$WORK/gone.in" 2>"$WORK/gone.$i.err" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
	kill -CONT "$RECV_PID"
	rc=0
	timeout 60 "$SEND" "$RECV_IP" "$WORK/gone.in" 2>"$WORK/gone.err" || rc=$?
	[ "$rc" = 0 ] || fail "the next sender: exit $rc: $(cat "$WORK/gone.err")"
	kill -TERM "$RECV_PID"
	wait_recv
	grep -q "the most max-senders allows" "$WORK/recv.gone.log" &&
		fail "refused at max-senders with no sender there: $(grep max-senders "$WORK/recv.gone.log")"
	grep -q "cannot create a queue pair" "$WORK/recv.gone.log" &&
		fail "a queue pair failure: $(grep 'queue pair' "$WORK/recv.gone.log")"
	n=$(grep -c "gave up on its request" "$WORK/recv.gone.log")
	[ "$n" = 5 ] || fail "$n of 5 requests given up said: $(cat "$WORK/recv.gone.log")"
	check_pool "$WORK/gone.pool" "$WORK/gone.in"
else
	fail "receiver did not start: $(cat "$WORK/recv.gone.log")"
fi
end_case

# A newer sender's version refusal is said once a run without -v (a fleet
# of newer senders asks again in one this receiver speaks, each time), an
# older one's every time.
start_case "versions: a newer sender's refusal said once without -v, an older one's each time"
spawn 120 "$WORK/recv.ver.log" "$RECV" --listen "$RECV_IP" --create 4M "$WORK/ver.pool"
RECV_PID=$SPAWN_PID
if wait_for "$WORK/recv.ver.log" serving 60 "$RECV_PID"; then
	for scenario in future-version future-version bad-version bad-version; do
		rogue_run "$scenario" "$RECV_IP" "$HONEST_TEXT"
	done
	kill -TERM "$RECV_PID"
	wait_recv
	n=$(grep -c "asked in protocol version 200, this receiver speaks 9 to 10: told so" "$WORK/recv.ver.log")
	[ "$n" = 1 ] || fail "a newer sender's refusal said $n times, not once: $(cat "$WORK/recv.ver.log")"
	n=$(grep -c "it speaks protocol version 8, this receiver 9 to 10: upgrade the sender" "$WORK/recv.ver.log")
	[ "$n" = 2 ] || fail "an older sender's refusal said $n times, not 2: $(cat "$WORK/recv.ver.log")"
else
	fail "receiver did not start: $(cat "$WORK/recv.ver.log")"
fi
end_case

# open_file_limit: a receiver whose open-file limit leaves room for fewer
# senders than max-senders says so at start; a sender that finds the limit
# reached is refused as full (exit 5), however far the receiver got in
# setting it up, and the receiver names the limit to raise; with room
# again the sender gets in.
open_file_limit() {
	local rlog="$WORK/recv.fd.log" pid n rc
	start_case "open-file limit: said at start; a sender past it is refused as full"
	spawn 120 "$rlog" prlimit --nofile=256:256 "$RECV" "${RECV_OPTS[@]}" \
		--max-senders 200 --log "a=$WORK/fd-a.pool" --create 4M
	RECV_PID=$SPAWN_PID
	if ! wait_for "$rlog" serving 60 "$RECV_PID"; then
		fail "receiver did not start: $(cat "$rlog")"
		end_case
		return
	fi
	pid=$RECV_PID
	grep -q "the open-file limit (256) leaves room for [0-9]* senders of max-senders 200 .*raise it to [0-9]* (LimitNOFILE=" "$rlog" ||
		fail "no line at start on the limit: $(cat "$rlog")"
	printf 'past the limit\n' >"$WORK/fd.in"
	n=$(ls "/proc/$pid/fd" | wc -l)
	# No descriptor left: the request gets the listener's spare one.
	prlimit --pid "$pid" --nofile="$n:$n"
	rc=0
	timeout 60 "$SEND" "$RECV_IP/a" "$WORK/fd.in" 2>"$WORK/fd.err" || rc=$?
	[ "$rc" = 5 ] || fail "at the limit: exit $rc (not 5): $(cat "$WORK/fd.err")"
	grep -q "serves as many senders as it may (max-senders, or its open-file limit)" "$WORK/fd.err" ||
		fail "the sender's refusal: $(cat "$WORK/fd.err")"
	grep -q "refusing sender .* as full: the receiver has as many files open as its limit allows ($n;" "$rlog" ||
		fail "the receiver did not name the limit: $(tail -n 5 "$rlog")"
	# One left: the connection's completion channel cannot be made.
	prlimit --pid "$pid" --nofile="$((n + 1)):$((n + 1))"
	rc=0
	timeout 60 "$SEND" "$RECV_IP/a" "$WORK/fd.in" 2>"$WORK/fd.err" || rc=$?
	[ "$rc" = 5 ] || fail "one short: exit $rc (not 5): $(cat "$WORK/fd.err")"
	grep -q "cannot create a completion channel: the process has as many files open as its limit allows; raise it (LimitNOFILE=" "$rlog" ||
		fail "the receiver did not name the limit: $(tail -n 5 "$rlog")"
	prlimit --pid "$pid" --nofile=256:256
	rc=0
	timeout 60 "$SEND" "$RECV_IP/a" "$WORK/fd.in" 2>"$WORK/fd.err" || rc=$?
	[ "$rc" = 0 ] || fail "with room again: exit $rc: $(cat "$WORK/fd.err")"
	kill -TERM "$pid"
	wait_recv
	end_case
}
open_file_limit

# append_only_run POOL: an append-only log `audit` on POOL, a log `other`
# on a plain file with a writer streaming into it throughout, and a log
# `rw` on a plain file for a rogue writer.
append_only_run() {
	local pool="$1" rlog="$WORK/recv.ao.log" other="$WORK/other.pool"
	local scenario out rc
	start_case "append-only: the receiver says so at start"
	if ! start_recv "$rlog" --create 64M --log "audit=$pool,append-only=yes" \
		--log "other=$other" --log "rw=$WORK/rw.pool"; then
		fail "receiver did not start: $(cat "$rlog")"
		end_case
		return
	fi
	# (the logs open side by side: audit is not always the first served)
	wait_for "$rlog" "all logs opened" 60 "$RECV_PID" || fail "the logs did not open: $(cat "$rlog")"
	grep -q "log audit is append-only" "$rlog" || fail "no append-only line: $(cat "$rlog")"
	# and what gpspm writers reach on each device, at start
	grep -q "RDMA device rxe0 .*append-only logs take staged commits only there\|RDMA device rxe0: gpspm writers reach only the unused tail" "$rlog" ||
		fail "no line on rxe0's memory windows at start: $(cat "$rlog")"
	end_case

	start_case "append-only: honest writers commit; gpspm only through windows that keep to their range"
	head -c 3M /dev/urandom >"$WORK/ao.in"
	rc=0
	timeout 120 "$SEND" --truncate=in-place "$RECV_IP/audit" "$WORK/ao.in" 2>"$WORK/ao.err" || rc=$?
	[ "$rc" = 0 ] || fail "rpma-send to the append-only log: exit $rc: $(cat "$WORK/ao.err")"
	rc=0
	timeout 60 "$SEND" --method gpspm "$RECV_IP/audit" "$WORK/ao.in" 2>"$WORK/ao.err" || rc=$?
	if grep -q "does not keep a memory window's accesses inside its range" "$rlog"; then
		# Soft-RoCE: its windows would not keep a writer out
		[ "$rc" = 5 ] || fail "--method gpspm to an append-only log: exit $rc, want 5: $(cat "$WORK/ao.err")"
		grep -q "staged" "$WORK/ao.err" || fail "the refusal does not say what is offered: $(cat "$WORK/ao.err")"
	else
		[ "$rc" = 0 ] || fail "--method gpspm through windows: exit $rc: $(cat "$WORK/ao.err")"
		cat "$WORK/ao.in" "$WORK/ao.in" >"$WORK/ao.twice"
		mv "$WORK/ao.twice" "$WORK/ao.in"
	fi
	pool_data "$pool" "$WORK/ao.before" || fail "pmempool dump failed"
	cmp -s "$WORK/ao.before" "$WORK/ao.in" || fail "the append-only log does not hold its input"
	end_case

	head -c 24M /dev/urandom >"$WORK/other.in"
	# 64 chunks 0.2 s apart (13 s and more): it streams through every
	# scenario (about 10 s in all), and its input ends after them.
	FEED_PAUSE=0.2 start_fed_sender "$WORK/other.in" --truncate=in-place "$RECV_IP/other"
	for scenario in rewrite-committed reader-writes stale-session; do
		start_case "append-only: $scenario, the log's bytes unchanged"
		rogue_run "$scenario" "$RECV_IP/audit"
		kill -0 "$RECV_PID" 2>/dev/null || fail "receiver died: $(tail -n 20 "$rlog")"
		pool_data "$pool" "$WORK/ao.after" || fail "pmempool dump failed"
		cmp "$WORK/ao.before" "$WORK/ao.after" >&2 || fail "the append-only log changed"
		end_case
	done

	start_case "a third log: writer-rewrites far, its committed bytes unchanged"
	# 8 MiB: the head far past the first byte, whose page no window's
	# region holds then (on Soft-RoCE a key reaches its region)
	head -c 8M /dev/urandom >"$WORK/rw.before"
	rc=0
	timeout 120 "$SEND" --truncate=in-place "$RECV_IP/rw" "$WORK/rw.before" 2>"$WORK/rw.err" || rc=$?
	[ "$rc" = 0 ] || fail "rpma-send to rw: exit $rc: $(cat "$WORK/rw.err")"
	rogue_run writer-rewrites "$RECV_IP/rw" far
	printf '%s' "$WRITER_CHUNKS" >>"$WORK/rw.before"
	pool_data "$WORK/rw.pool" "$WORK/rw.after" || fail "pmempool dump failed"
	cmp "$WORK/rw.before" "$WORK/rw.after" >&2 || fail "rw does not hold exactly what was committed"
	end_case

	start_case "a third log: writer-rewrites lone, the first key dead once a lone commit is answered"
	rogue_run writer-rewrites "$RECV_IP/rw" lone
	printf 'rogue_sender: chunk A\n' >>"$WORK/rw.before"
	pool_data "$WORK/rw.pool" "$WORK/rw.after" || fail "pmempool dump failed"
	cmp "$WORK/rw.before" "$WORK/rw.after" >&2 || fail "rw does not hold exactly what was committed"
	end_case

	start_case "append-only: the other log's writer was undisturbed"
	kill -0 "$SEND_PID" 2>/dev/null ||
		fail "the other log's writer ended before the scenarios did: give it a longer input"
	end_feed "$WORK/other.in" "$WORK/other.fed"
	reap "$SEND_PID"
	# Without --retry, any loss of its connection would have ended it.
	[ "$REAP_RC" = 0 ] || fail "the other log's writer exited $REAP_RC: $(cat "$WORK/send.log")"
	kill -TERM "$RECV_PID" 2>/dev/null
	wait_recv
	[ "$REAP_RC" = 0 ] || fail "receiver exited $REAP_RC on SIGTERM: $(tail -n 20 "$rlog")"
	check_pool "$other" "$WORK/other.fed"
	check_pool "$pool" "$WORK/ao.in"
	end_case
}

# Type-2 memory windows (rdma/mw.h) on this device, over the link: a
# window's key works on its own queue pair and range only, and moves.
start_case "memory windows: a window's key reaches its range on its queue pair only"
WINDOW_CHECK="$BUILD/tests/rogue/window_check"
spawn 60 "$WORK/window.serve" "$WINDOW_CHECK" serve "$RECV_IP:7399"
wserve=$SPAWN_PID
if wait_for "$WORK/window.serve" listening 20 "$wserve"; then
	rc=0
	out=$(timeout 60 "$WINDOW_CHECK" write "$RECV_IP:7399" 2>&1) || rc=$?
	log "$out"
	[ "$rc" = 0 ] || fail "the writer's side: exit $rc: $out"
	reap "$wserve"
	[ "$REAP_RC" = 0 ] || fail "the server's side: exit $REAP_RC: $(cat "$WORK/window.serve")"
	log "$(cat "$WORK/window.serve")"
else
	fail "window_check did not listen: $(cat "$WORK/window.serve")"
fi
end_case

# Windows turned off (to measure them, scripts/bench): a gpspm writer is
# shown the pool's own key again, which writer-rewrites reports.
start_case "RPMA_RECV_WINDOWS=off: a gpspm writer gets a key to the whole pool"
export RPMA_RECV_WINDOWS=off
if start_recv "$WORK/recv.off.log" --create 16M "$WORK/off.pool"; then
	unset RPMA_RECV_WINDOWS
	rc=0
	out=$(timeout 120 "$ROGUE" writer-rewrites "$RECV_IP" 2>&1) || rc=$?
	log "$out"
	[ "$rc" = 1 ] || fail "writer-rewrites exited $rc, want 1 (no windows): $out"
	grep -q "a key to the whole pool, no windows" <<<"$out" || fail "not told the writer got the pool's key: $out"
	kill -TERM "$RECV_PID" 2>/dev/null
	wait_recv
	[ "$REAP_RC" = 0 ] || fail "receiver exited $REAP_RC on SIGTERM"
else
	unset RPMA_RECV_WINDOWS
	fail "receiver did not start: $(cat "$WORK/recv.off.log")"
fi
end_case

if [ -n "${RPMA_DEVDAX:-}" ]; then
	HOSTILE_SCENARIOS=("${memory_scenarios[@]}")
	hostile_run devdax "$RPMA_DEVDAX" --create 1
	append_only_run "$RPMA_DEVDAX"
	# An apm writer's stored offset and kept keys (one_sided_lib.sh).
	. "$(dirname "$0")/one_sided_lib.sh"
	one_sided_run apm direct-write-to-pmem=yes
	# Who reaches the log and until when: a rotation's seal, the spare
	# region's keys (reach_lib.sh).
	. "$(dirname "$0")/reach_lib.sh"
	reach_run apm direct-write-to-pmem=yes
else
	start_case "devdax present"
	fail "RPMA_DEVDAX not set by the test bed"
	end_case
fi

summary
