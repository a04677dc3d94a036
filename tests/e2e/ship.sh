#!/bin/bash
# End-to-end: both programs over real Soft-RoCE into a plain file, devdax and
# fsdax with every method each target allows (16 MiB random input read back
# bit-exact with pmempool dump, pmempool check clean), the options that shape
# batching, and the clear errors users meet.
# Runs inside the VM test bed: scripts/vm-run -- tests/e2e/ship.sh BUILD
BUILD="$1"
. "$(dirname "$0")/lib.sh"

input="$WORK/input"
head -c 16M /dev/urandom >"$input"

# ship_case NAME POOL METHOD [RECV ARGS...]: ships $input with METHOD into
# POOL (truncated first) and checks it holds exactly the input.
ship_case() {
	local name="$1" pool="$2" method="$3"
	shift 3
	start_case "$name"
	if ! start_recv "$WORK/recv.log" --once "$@" "$pool"; then
		fail "receiver did not start: $(cat "$WORK/recv.log")"
		end_case
		return
	fi
	local rc=0
	timeout 120 "$SEND" -v --truncate=in-place --method "$method" "$RECV_IP" "$input" 2>"$WORK/send.log" || rc=$?
	[ "$rc" = 0 ] || fail "rpma-send exited $rc: $(cat "$WORK/send.log")"
	grep -q "committed 16777216 bytes in .* ($method)" "$WORK/send.log" || fail "no commit summary: $(cat "$WORK/send.log")"
	wait_recv
	[ "$REAP_RC" = 0 ] || fail "rpma-recv exited $REAP_RC: $(cat "$WORK/recv.log")"
	check_pool "$pool" "$input"
	end_case
}

# refused_case NAME POOL METHOD PATTERN [RECV ARGS...]: the sender asking for
# METHOD is refused with exit 5 and one line matching PATTERN; POOL keeps
# $input.
refused_case() {
	local name="$1" pool="$2" method="$3" pattern="$4"
	shift 4
	start_case "$name"
	if start_recv "$WORK/recv.log" --once "$@" "$pool"; then
		local rc=0
		timeout 60 "$SEND" --method "$method" "$RECV_IP" "$input" 2>"$WORK/send.log" || rc=$?
		[ "$rc" = 5 ] || fail "expected exit 5, got $rc"
		one_line_error "$WORK/send.log"
		grep -q -- "$pattern" "$WORK/send.log" || fail "unclear: $(cat "$WORK/send.log")"
		kill "$RECV_PID" 2>/dev/null
		wait_recv
	else
		fail "receiver did not start: $(cat "$WORK/recv.log")"
	fi
	check_pool "$pool" "$input"
	end_case
}

plain="$WORK/plain.pool"
ship_case "plain file, gpspm" "$plain" gpspm --create 64M
ship_case "plain file, staged" "$plain" staged
refused_case "plain file refuses apm: page cache is not byte-addressable" \
	"$plain" apm "offers: gpspm, staged" --direct-write-to-pmem
grep -q "not byte-addressable PMem; not offering apm" "$WORK/recv.log" ||
	{ start_case "apm notice on a plain file"; fail "no notice: $(cat "$WORK/recv.log")"; end_case; }
if [ -n "$HAVE_FLUSH" ]; then
	refused_case "plain file refuses flush: page cache is not byte-addressable" \
		"$plain" flush "offers: gpspm, staged"
else
	# A sender that cannot post flush says so before it connects.
	refused_case "flush without rdma-core 45: the sender says so, before it asks" \
		"$plain" flush "method flush cannot be used from here: this build has no RDMA FLUSH"
fi

if [ -n "${RPMA_DEVDAX:-}" ]; then
	ship_case "devdax, apm" "$RPMA_DEVDAX" apm --create 1 --direct-write-to-pmem
	ship_case "devdax, gpspm" "$RPMA_DEVDAX" gpspm --direct-write-to-pmem
	ship_case "devdax, staged" "$RPMA_DEVDAX" staged
	refused_case "devdax refuses apm without --direct-write-to-pmem" \
		"$RPMA_DEVDAX" apm "declares direct write to PMem"
	if [ -n "$HAVE_FLUSH" ]; then
		ship_case "devdax, flush" "$RPMA_DEVDAX" flush
	else
		# The receiver, asked by any sender, says why it does not offer
		# flush there (with -v).
		ship_case "devdax, gpspm, flush not offered" "$RPMA_DEVDAX" gpspm
		grep -q "not offering flush: this build has no RDMA FLUSH (built with rdma-core older than 45)" "$WORK/recv.log" ||
			{ start_case "flush's absence said with -v"; fail "no notice: $(cat "$WORK/recv.log")"; end_case; }
	fi
else
	start_case "devdax present"
	fail "RPMA_DEVDAX not set by the test bed"
	end_case
fi

if [ -n "${RPMA_FSDAX_DIR:-}" ]; then
	fsdax="$RPMA_FSDAX_DIR/fsdax.pool"
	# rxe has no ODP: the receiver must fall back to staged and say so.
	ship_case "fsdax, staged" "$fsdax" staged --create 64M
	start_case "fsdax fallback is logged once"
	n=$(grep -c "offering the staged method only" "$WORK/recv.log")
	[ "$n" = 1 ] || fail "expected one notice, got $n: $(cat "$WORK/recv.log")"
	end_case
	refused_case "fsdax refuses gpspm naming staged" "$fsdax" gpspm "offers: staged"
	refused_case "fsdax refuses apm naming staged" "$fsdax" apm "offers: staged" --direct-write-to-pmem
	if [ -n "$HAVE_FLUSH" ]; then
		refused_case "fsdax refuses flush naming staged" "$fsdax" flush "offers: staged"
		# with the device's own reason: rxe pins no fsdax page
		grep -q "fsdax.pool: not offering flush: the RDMA device cannot register it for persistent flushes: this memory cannot be pinned" "$WORK/recv.log" ||
			{ start_case "fsdax says why not flush with -v"; fail "no notice: $(cat "$WORK/recv.log")"; end_case; }
	fi
else
	start_case "fsdax present"
	fail "RPMA_FSDAX_DIR not set by the test bed"
	end_case
fi

# flush where the build has it (before apm: correct without DDIO's promise)
auto=apm
[ -n "$HAVE_FLUSH" ] && auto=flush
start_case "auto picks the fastest method offered ($auto)"
if start_recv "$WORK/recv.log" --once --direct-write-to-pmem "$RPMA_DEVDAX"; then
	timeout 60 "$SEND" -v --truncate=in-place "$RECV_IP" "$input" 2>"$WORK/send.log" || fail "send failed: $(cat "$WORK/send.log")"
	grep -q "method $auto" "$WORK/send.log" || fail "did not pick $auto: $(cat "$WORK/send.log")"
	wait_recv
	check_pool "$RPMA_DEVDAX" "$input"
else
	fail "receiver did not start"
fi
end_case

start_case "appending keeps what the log holds (stdin, -q)"
head -c 100000 /dev/urandom >"$WORK/more"
if start_recv "$WORK/recv.log" --once "$plain"; then
	timeout 60 "$SEND" -q "$RECV_IP" - <"$WORK/more" 2>"$WORK/send.log" || fail "append failed: $(cat "$WORK/send.log")"
	[ ! -s "$WORK/send.log" ] || fail "-q printed: $(cat "$WORK/send.log")"
	wait_recv
	cat "$input" "$WORK/more" >"$WORK/both"
	check_pool "$plain" "$WORK/both"
else
	fail "receiver did not start"
fi
end_case

start_case "--batch and --depth shape the pipeline"
if start_recv "$WORK/recv.log" --once "$plain"; then
	timeout 60 "$SEND" -v --truncate=in-place --method gpspm --batch 64K --depth 1 "$RECV_IP" "$input" 2>"$WORK/send.log" || fail "send failed"
	grep -q "1 batches of 65536 bytes" "$WORK/send.log" || fail "sizes not applied: $(cat "$WORK/send.log")"
	grep -q "committed 16777216 bytes in 256 batches" "$WORK/send.log" || fail "wrong batch count: $(cat "$WORK/send.log")"
	wait_recv
	check_pool "$plain" "$input"
else
	fail "receiver did not start"
fi
end_case

# A commit lost on the way (the receiver's test switch
# RPMA_RECV_LOSE_COMMIT: each session's 40th commit request neither
# applied nor answered, as Soft-RoCE lost some under load; 64 batches
# here): the next batch is refused as not where the log ends and the
# connection closes. Under --retry the writer resumes where the log ends
# and the log is exact; with --retry 0 it is a lost connection (exit 3),
# not a refusal (exit 5). A receiver that loses every session's first
# commit lets nothing on: after 3 such sessions the refusal stands (exit
# 5), however many --retry allows.
start_case "a commit lost on the way: the writer resumes where the log ends (--retry), exit 3 without, exit 5 when nothing gets through"
if RPMA_RECV_LOSE_COMMIT=40 start_recv "$WORK/recv.log" "$plain"; then
	rc=0
	timeout 120 "$SEND" -v --retry 3 --truncate=in-place --method gpspm --batch 256K "$RECV_IP" "$input" 2>"$WORK/send.log" || rc=$?
	[ "$rc" = 0 ] || fail "--retry 3: exit $rc: $(tail -n 3 "$WORK/send.log")"
	grep -q "refused batch [0-9]*: batch does not start at the committed write offset (the log ends at offset [0-9]*): the commits before it did not reach the receiver" "$WORK/send.log" ||
		fail "the sender did not say what was refused: $(cat "$WORK/send.log")"
	grep -q "^rpma-send: reconnected to .* sending [0-9]* uncommitted bytes again" "$WORK/send.log" ||
		fail "the sender did not resume: $(cat "$WORK/send.log")"
	log "$(grep -m1 "refused batch" "$WORK/send.log") ($(grep -c "^rpma-send: reconnected to" "$WORK/send.log") reconnects)"
	kill -TERM "$RECV_PID"
	wait_recv
	check_pool "$plain" "$input"
else
	fail "receiver did not start: $(cat "$WORK/recv.log")"
fi
if RPMA_RECV_LOSE_COMMIT=40 start_recv "$WORK/recv.log" "$plain"; then
	rc=0
	timeout 120 "$SEND" --retry 0 --truncate=in-place --method gpspm --batch 256K "$RECV_IP" "$input" 2>"$WORK/send.log" || rc=$?
	[ "$rc" = 3 ] || fail "--retry 0: exit $rc, want 3: $(tail -n 3 "$WORK/send.log")"
	kill -TERM "$RECV_PID"
	wait_recv
else
	fail "receiver did not start: $(cat "$WORK/recv.log")"
fi
# (a short peer timeout: the first session's lone first commit, lost, has
# nothing behind it to be refused, and the sender waits twice the peer
# timeout before it calls the receiver lost)
if RPMA_RECV_LOSE_COMMIT=1 start_recv "$WORK/recv.log" --peer-timeout 2 "$plain"; then
	rc=0 t=$SECONDS
	timeout 120 "$SEND" --retry 100 --truncate=in-place --method gpspm --batch 256K "$RECV_IP" "$input" 2>"$WORK/send.log" || rc=$?
	log "nothing gets through: exit $rc after $((SECONDS - t)) s"
	[ "$rc" = 5 ] || fail "every session's first commit lost, --retry 100: exit $rc, want 5: $(tail -n 3 "$WORK/send.log")"
	grep -q "4 times with nothing committed between: the refusal stands" "$WORK/send.log" ||
		fail "the sender did not say why it stopped: $(tail -n 3 "$WORK/send.log")"
	kill -TERM "$RECV_PID"
	wait_recv
else
	fail "receiver did not start: $(cat "$WORK/recv.log")"
fi
end_case

# phases_add_up LOG: --stats' phases line has every phase, each a number
# of ms, and from start to teardown they make the run's total_seconds
# (within 5 ms: the main function's first lines and the rounding).
phases_add_up() {
	local phases total
	phases=$(grep "^rpma-send: stats: phases_ms " "$1") || {
		fail "no phases line: $(cat "$1")"
		return
	}
	total=$(sed -n 's/.* total_seconds=\([0-9.]*\).*/\1/p' "$1")
	awk -v total="$total" '{
		for (i = 4; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[2] !~ /^[0-9]+\.[0-9]$/) { print "phase " kv[1] " is " kv[2]; exit 1 }
			if (kv[1] != "exec") sum += kv[2]
		}
		if (NF != 12) { print NF - 3 " phases, not 9"; exit 1 }
		d = sum - total * 1000
		if (d < -5 || d > 5) { print "the phases make " sum " ms, the run " total * 1000; exit 1 }
	}' <<<"$phases" >"$WORK/phases.why" || fail "phases: $(cat "$WORK/phases.why"): $phases"
	log "$phases"
}

# recv_phases_said LOG: the receiver's -v line of where a writer's session's
# time went has every step, each a number of ms (it committed, so none is
# "-").
recv_phases_said() {
	local line
	line=$(grep -E "sender [0-9.]+: phases_ms " "$1" | tail -n 1)
	grep -qE "phases_ms queued=[0-9]+\.[0-9] setup=[0-9]+\.[0-9] to_established=[0-9]+\.[0-9] to_first_commit=[0-9]+\.[0-9] streaming=[0-9]+\.[0-9] to_end=[0-9]+\.[0-9] teardown=[0-9]+\.[0-9]$" <<<"$line" ||
		fail "the receiver's phases line: ${line:-none}"
	log "${line#*: }"
}

start_case "--busy-poll on both sides"
if start_recv "$WORK/recv.log" -v --once --busy-poll "$plain"; then
	timeout 60 "$SEND" --busy-poll --stats --truncate=in-place --method gpspm --batch 256K "$RECV_IP" "$input" 2>"$WORK/send.log" || fail "send failed: $(cat "$WORK/send.log")"
	grep -q "stats: bytes=16777216 batches=64 " "$WORK/send.log" || fail "no stats: $(cat "$WORK/send.log")"
	phases_add_up "$WORK/send.log"
	wait_recv
	recv_phases_said "$WORK/recv.log"
	check_pool "$plain" "$input"
else
	fail "receiver did not start"
fi
end_case

start_case "a file of a few bytes: buffers for what it holds, not 8 MiB"
printf 'one line\n' >"$WORK/small.in"
if start_recv "$WORK/recv.log" --once "$plain"; then
	timeout 60 "$SEND" -v --truncate=in-place --method gpspm "$RECV_IP" "$WORK/small.in" 2>"$WORK/send.log" || fail "send failed: $(cat "$WORK/send.log")"
	grep -q "method gpspm, 4 batches of 4096 bytes in flight" "$WORK/send.log" || fail "not sized to the file: $(grep "in flight" "$WORK/send.log")"
	wait_recv
	check_pool "$plain" "$WORK/small.in"
else
	fail "receiver did not start"
fi
end_case

start_case "--staging-slot and --credits cap staged batches"
if start_recv "$WORK/recv.log" --once --staging-slot 64K --credits 2 "$plain"; then
	timeout 60 "$SEND" -v --truncate=in-place --method staged "$RECV_IP" "$input" 2>"$WORK/send.log" || fail "send failed"
	grep -q "2 batches of 65536 bytes" "$WORK/send.log" || fail "receiver caps not applied: $(cat "$WORK/send.log")"
	wait_recv
	check_pool "$plain" "$input"
else
	fail "receiver did not start"
fi
end_case

# quiet_pipe FLUSH_MS PAUSE CHECK_AT FIRST [SECOND]: pipes line FIRST, stays
# quiet PAUSE s, then SECOND if given; after CHECK_AT s the pool must hold
# FIRST alone (committed while the pipe was quiet), at the end every line.
quiet_pipe() {
	local flush="$1" pause="$2" check_at="$3" first="$4" second="${5:-}"
	if ! start_recv "$WORK/recv.log" --once "$plain"; then
		fail "receiver did not start"
		return
	fi
	{
		echo "$first"
		sleep "$pause"
		[ -z "$second" ] || echo "$second"
	} | timeout 60 "$SEND" --truncate=in-place --flush-interval "$flush" "$RECV_IP" - 2>"$WORK/send.log" &
	local send_pid=$!
	sleep "$check_at"
	pool_data "$plain" "$WORK/partial"
	[ "$(cat "$WORK/partial")" = "$first" ] ||
		fail "'$first' not committed while the pipe was quiet (--flush-interval $flush): '$(cat "$WORK/partial")'"
	wait "$send_pid" || fail "send failed: $(cat "$WORK/send.log")"
	wait_recv
	printf '%s\n' "$first" ${second:+"$second"} >"$WORK/lines"
	check_pool "$plain" "$WORK/lines"
}

start_case "--flush-interval commits a quiet pipe's line promptly"
quiet_pipe 5 6 3 "first line" "second line"
end_case

start_case "a quiet pipe's lone line is committed at once when nothing is in flight (--flush-interval 60000)"
quiet_pipe 60000 6 3 "lone line"
end_case

start_case "--allow refuses senders outside its ranges, before registering"
if start_recv "$WORK/recv.log" --allow 192.0.2.99/32 --allow 2001:db8::/32 "$plain"; then
	rc=0
	echo "not allowed" | timeout 30 "$SEND" "$RECV_IP" - 2>"$WORK/send.log" || rc=$?
	[ "$rc" = 5 ] || fail "expected exit 5, got $rc"
	one_line_error "$WORK/send.log"
	grep -q "not allowed to connect" "$WORK/send.log" || fail "unclear: $(cat "$WORK/send.log")"
	grep -q "refusing sender 192.0.2.2: not in any --allow range" "$WORK/recv.log" || fail "not logged: $(cat "$WORK/recv.log")"
	grep -q "cannot register\|connected at" "$WORK/recv.log" && fail "registered or accepted for a refused sender"
	kill -TERM "$RECV_PID"
	wait_recv
else
	fail "receiver did not start"
fi
if start_recv "$WORK/recv.log" --once --allow 192.0.2.0/24 "$plain"; then
	echo "allowed" | timeout 30 "$SEND" --truncate=in-place "$RECV_IP" - 2>"$WORK/send.log" || fail "allowed sender failed: $(cat "$WORK/send.log")"
	wait_recv
	echo "allowed" >"$WORK/expected"
	check_pool "$plain" "$WORK/expected"
else
	fail "receiver did not start"
fi
end_case

start_case "--auth-key: no rkey before the key is proved"
head -c 32 /dev/urandom >"$WORK/key"
head -c 32 /dev/urandom >"$WORK/wrong"
chmod 600 "$WORK/key" "$WORK/wrong"
if start_recv "$WORK/recv.log" --auth-key "$WORK/key" "$plain"; then
	echo "honest" | timeout 30 "$SEND" --truncate=in-place --auth-key "$WORK/key" "$RECV_IP" - 2>"$WORK/send.log" ||
		fail "sender with the key failed: $(cat "$WORK/send.log")"
	for who in nokey wrong; do
		rc=0
		args=()
		[ "$who" = wrong ] && args=(--auth-key "$WORK/wrong")
		echo "intruder" | timeout 30 "$SEND" --truncate=in-place "${args[@]}" "$RECV_IP" - 2>"$WORK/send.log" || rc=$?
		[ "$rc" = 5 ] || fail "$who: exit $rc, want 5: $(cat "$WORK/send.log")"
		one_line_error "$WORK/send.log"
	done
	grep -q "requires an auth key" "$WORK/send.log" && fail "wrong key reported as missing"
	grep -q "refusing sender 192.0.2.2: wrong auth key" "$WORK/recv.log" || fail "wrong key not logged: $(cat "$WORK/recv.log")"
	grep -q "refusing sender 192.0.2.2: it did not answer" "$WORK/recv.log" || fail "missing key not logged: $(cat "$WORK/recv.log")"
	expect_rc=0
	timeout 30 "$SEND" --verify --auth-key "$WORK/key" - "$RECV_IP" <<<"honest" 2>"$WORK/send.log" || expect_rc=$?
	[ "$expect_rc" = 0 ] || fail "verify with the key exited $expect_rc: $(cat "$WORK/send.log")"
	kill -TERM "$RECV_PID"
	wait_recv
	echo "honest" >"$WORK/expected"
	check_pool "$plain" "$WORK/expected"
else
	fail "receiver did not start"
fi
end_case

start_case "receiver refuses a file that is not a pool"
head -c 4M /dev/zero >"$WORK/notapool"
echo "some text" >>"$WORK/notapool"
rc=0
timeout 30 "$RECV" --listen "$RECV_IP" "$WORK/notapool" 2>"$WORK/recv.log" || rc=$?
[ "$rc" = 2 ] || fail "expected exit 2, got $rc"
one_line_error "$WORK/recv.log"
grep -q "not a usable pmemlog pool" "$WORK/recv.log" || fail "unclear: $(cat "$WORK/recv.log")"
end_case

start_case "sender to a port where nothing listens"
rc=0
timeout 30 "$SEND" "$RECV_IP:7999" "$input" 2>"$WORK/send.log" || rc=$?
[ "$rc" = 3 ] || fail "expected exit 3, got $rc"
one_line_error "$WORK/send.log"
grep -q "is rpma-recv running" "$WORK/send.log" || fail "unclear: $(cat "$WORK/send.log")"
end_case

start_case "--timeout bounds connecting to an absent host"
rc=0
start=$(date +%s)
timeout 60 "$SEND" --timeout 1000 192.0.2.77 "$input" 2>"$WORK/send.log" || rc=$?
took=$(($(date +%s) - start))
[ "$rc" = 3 ] || fail "expected exit 3, got $rc"
one_line_error "$WORK/send.log"
[ "$took" -le 15 ] || fail "took ${took}s despite --timeout 1000"
end_case

summary
