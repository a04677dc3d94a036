#!/bin/bash
# End-to-end: both programs over real Soft-RoCE into a plain file, devdax and
# fsdax, with every method each target allows, plus the clear errors of
# issue #2. Runs inside the VM test bed: scripts/vm-run -- tests/e2e/ship.sh BUILD
BUILD="$1"
. "$(dirname "$0")/lib.sh"

input="$WORK/input"
head -c 4M /dev/urandom >"$input"

# ship_case NAME POOL METHOD [RECV ARGS...]: ships $input with METHOD into a
# fresh pool and checks it is exactly the input.
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
	timeout 120 "$SEND" -v --truncate --method "$method" "$RECV_IP" "$input" 2>"$WORK/send.log" || rc=$?
	[ "$rc" = 0 ] || fail "rpma-send exited $rc: $(cat "$WORK/send.log")"
	grep -q "committed 4194304 bytes" "$WORK/send.log" || fail "no commit summary: $(cat "$WORK/send.log")"
	local rrc
	rrc=$(wait_recv)
	[ "$rrc" = 0 ] || fail "rpma-recv exited $rrc: $(cat "$WORK/recv.log")"
	check_pool "$pool" "$input"
	end_case
}

plain="$WORK/plain.pool"
ship_case "plain file, gpspm" "$plain" gpspm --create 64M
ship_case "plain file, staged" "$plain" staged

if [ -n "${RPMA_DEVDAX:-}" ]; then
	ship_case "devdax, gpspm" "$RPMA_DEVDAX" gpspm --create 1
	ship_case "devdax, staged" "$RPMA_DEVDAX" staged
else
	start_case "devdax present"
	fail "RPMA_DEVDAX not set by the test bed"
	end_case
fi

if [ -n "${RPMA_FSDAX_DIR:-}" ]; then
	# rxe has no ODP: the receiver must fall back to staged and say so.
	ship_case "fsdax, staged" "$RPMA_FSDAX_DIR/fsdax.pool" staged --create 64M
	grep -q "offering the staged method only" "$WORK/recv.log" ||
		{ start_case "fsdax fallback notice"; fail "no notice: $(cat "$WORK/recv.log")"; end_case; }

	start_case "fsdax refuses gpspm with a reason"
	if start_recv "$WORK/recv.log" --once "$RPMA_FSDAX_DIR/fsdax.pool"; then
		rc=0
		timeout 60 "$SEND" --method gpspm "$RECV_IP" "$input" 2>"$WORK/send.log" || rc=$?
		[ "$rc" = 5 ] || fail "expected exit 5, got $rc"
		one_line_error "$WORK/send.log"
		grep -q "offers: staged" "$WORK/send.log" || fail "no alternative named: $(cat "$WORK/send.log")"
		kill "$RECV_PID" 2>/dev/null
		wait "$RECV_PID" 2>/dev/null
	else
		fail "receiver did not start: $(cat "$WORK/recv.log")"
	fi
	check_pool "$RPMA_FSDAX_DIR/fsdax.pool" "$input"
	end_case
fi

start_case "appending keeps what the log holds"
head -c 100000 /dev/urandom >"$WORK/more"
if start_recv "$WORK/recv.log" --once "$plain"; then
	timeout 60 "$SEND" "$RECV_IP" - <"$WORK/more" 2>"$WORK/send.log" || fail "append failed: $(cat "$WORK/send.log")"
	wait_recv >/dev/null
	cat "$input" "$WORK/more" >"$WORK/both"
	check_pool "$plain" "$WORK/both"
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

summary
