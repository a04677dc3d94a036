#!/bin/bash
# End-to-end read-back. rpma-send --verify=hash|read against replicas on
# devdax (pool registrable: direct RDMA reads) and fsdax (not registrable
# on rxe: reads go through the staging ring), identical, with one byte
# changed on the receiver's side, truncated, longer, and with the receiver
# gone. rpma-send --fetch: a 64 MiB log equals pmempool dump of it (and
# rpma-recv --export); a --follow reader started before a writer prints
# exactly its input, and goes through a receiver kill -9 and a 4 s link
# outage with --retry; --resume of a partial copy appends exactly the rest;
# a reader refused by the allow list or the key is told as a writer is.
# Runs inside the VM test bed: scripts/vm-run -- tests/e2e/verify.sh BUILD
BUILD="$1"
. "$(dirname "$0")/lib.sh"

seed="${RPMA_VERIFY_SEED:-$(date +%s)}"
RANDOM=$seed
log "verify seed: $seed (set RPMA_VERIFY_SEED to repeat)"

input="$WORK/input"
head -c 16M /dev/urandom >"$input"
size=$(stat -c %s "$input")

# pool_byte POOL OFFSET [VALUE]: prints the byte at OFFSET of the pool file
# or device, after setting it to VALUE if given, through a shared mapping (a
# devdax takes neither read(2) nor write(2)).
pool_byte() {
	python3 - "$@" <<'PY'
import mmap, os, sys
path, off = sys.argv[1], int(sys.argv[2])
fd = os.open(path, os.O_RDWR)
size = os.lseek(fd, 0, os.SEEK_END) or int(open(
    "/sys/bus/dax/devices/%s/size" % os.path.basename(path)).read())
m = mmap.mmap(fd, size)
if len(sys.argv) > 3:
    m[off] = int(sys.argv[3])
print(m[off])
PY
}

# flip POOL OFFSET: changes the byte at OFFSET.
flip() {
	local old
	old=$(pool_byte "$1" "$2")
	pool_byte "$1" "$2" $(((old + 1) % 256)) >/dev/null
}

# set_write_offset POOL VALUE: rewinds the committed end (a truncated replica).
set_write_offset() {
	python3 - "$1" "$2" <<'PY'
import mmap, os, struct, sys
path, val = sys.argv[1], int(sys.argv[2])
fd = os.open(path, os.O_RDWR)
size = os.lseek(fd, 0, os.SEEK_END) or int(open(
    "/sys/bus/dax/devices/%s/size" % os.path.basename(path)).read())
m = mmap.mmap(fd, size)
m[4112:4120] = struct.pack("<Q", val)
PY
}

# expect_verify NAME RC PATTERN ARGS...: runs rpma-send --verify ARGS and
# checks the exit code and that its output matches PATTERN.
expect_verify() {
	local name="$1" want="$2" pattern="$3"
	shift 3
	local rc=0
	timeout 120 "$SEND" "$@" >"$WORK/out" 2>&1 || rc=$?
	[ "$rc" = "$want" ] || fail "$name: exit $rc, want $want: $(cat "$WORK/out")"
	grep -q -- "$pattern" "$WORK/out" || fail "$name: output lacks '$pattern': $(cat "$WORK/out")"
}

verify_target() { # NAME POOL METHOD [RECV ARGS...]
	local target="$1" pool="$2" method="$3"
	shift 3
	start_case "$target: ship with --send --verify, then verify both ways"
	if ! start_recv "$WORK/recv.log" "$@" "$pool"; then
		fail "receiver did not start: $(cat "$WORK/recv.log")"
		end_case
		return
	fi
	expect_verify "ship and verify" 0 "identical (16777216 bytes" \
		--send --verify --truncate=in-place --method "$method" "$input" "$RECV_IP"
	for m in hash read; do
		expect_verify "identical, $m" 0 "identical (16777216 bytes, checked by $m)" \
			--verify="$m" --stats "$input" "$RECV_IP"
		grep -q "stats: verify bytes=16777216" "$WORK/out" || fail "no verify stats"
	done
	end_case

	start_case "$target: one byte changed on the receiver's side"
	local at=$(((RANDOM * 32768 + RANDOM) % size))
	flip "$pool" $((8192 + at))
	for m in hash read; do
		expect_verify "changed byte, $m" 1 "differ: byte offset $at\$" \
			--verify="$m" "$input" "$RECV_IP"
	done
	# -v lists the differing ranges: change a byte 3 MiB further too.
	local second=$(((at + 3 * 1048576) % size))
	flip "$pool" $((8192 + second))
	expect_verify "ranges" 1 "differs in bytes \[$((second / 1048576 * 1048576)), " \
		--verify -v "$input" "$RECV_IP"
	expect_verify "ranges" 1 "differs in bytes \[$((at / 1048576 * 1048576)), " \
		--verify -v "$input" "$RECV_IP"
	end_case

	start_case "$target: truncated and longer replicas"
	expect_verify "ship again" 0 "identical" \
		--send --verify --truncate=in-place --method "$method" "$input" "$RECV_IP"
	local cut=$(((RANDOM * 32768 + RANDOM) % size))
	# A shorter replica: the pool's word set back while no receiver
	# serves it (a running one goes by its own view of the log, never by
	# a word stored under it: rpma-ship(7)).
	kill -TERM "$RECV_PID"
	wait_recv
	set_write_offset "$pool" $((8192 + cut))
	start_recv "$WORK/recv.log" "$@" "$pool" || fail "receiver did not restart: $(cat "$WORK/recv.log")"
	head -c "$cut" "$input" >"$WORK/prefix"
	for m in hash read; do
		expect_verify "truncated, $m" 1 "is shorter than $input: it ends at byte offset $cut\$" \
			--verify="$m" "$input" "$RECV_IP"
	done
	head -c $((cut / 2)) "$input" >"$WORK/half"
	expect_verify "longer" 1 "is longer than $WORK/half: $WORK/half ends at byte offset $((cut / 2))\$" \
		--verify "$WORK/half" "$RECV_IP"
	expect_verify "stdin" 0 "identical" --verify - "$RECV_IP" <"$WORK/prefix"
	kill -TERM "$RECV_PID"
	wait_recv
	[ "$REAP_RC" = 0 ] || fail "receiver exited $REAP_RC"
	end_case
}

verify_target devdax "$RPMA_DEVDAX" gpspm --create 1
verify_target fsdax "$RPMA_FSDAX_DIR/verify.pool" staged --create 64M
grep -q "reading through a ring of its own" "$WORK/recv.log" ||
	{ start_case "fsdax verify reads through the ring"; fail "no notice: $(cat "$WORK/recv.log")"; end_case; }

start_case "--verify FILE HOST/a,HOST/b checks every replica"
head -c 4M "$input" >"$WORK/four"
if start_recv "$WORK/recv.log" --create 32M --log a="$WORK/a.pool" --log b="$WORK/b.pool"; then
	for n in a b; do
		timeout 60 "$SEND" --truncate=in-place "$RECV_IP/$n" "$WORK/four" 2>"$WORK/err" ||
			fail "shipping to $n: $(cat "$WORK/err")"
	done
	expect_verify "both identical" 0 "identical" --verify "$WORK/four" "$RECV_IP/a,$RECV_IP/b"
	[ "$(grep -c "identical (4194304 bytes" "$WORK/out")" = 2 ] ||
		fail "want two 'identical' lines: $(cat "$WORK/out")"
	at=$(((RANDOM * 32768 + RANDOM) % 4194304))
	flip "$WORK/b.pool" $((8192 + at))
	expect_verify "b differs" 1 "and the log on $RECV_IP:7204/b differ: byte offset $at\$" \
		--verify "$WORK/four" "$RECV_IP/a,$RECV_IP/b"
	grep -q "log on $RECV_IP:7204/a are identical" "$WORK/out" || fail "a not reported identical: $(cat "$WORK/out")"
	expect_verify "listed the other way round" 1 "log on $RECV_IP:7204/b differ" \
		--verify "$WORK/four" "$RECV_IP/b,$RECV_IP/a"
	expect_verify "one missing" 2 "serves no log of that name" --verify "$WORK/four" "$RECV_IP/a,$RECV_IP/c"
	expect_verify "stdin to several" 2 "give a FILE, not '-'" --verify - "$RECV_IP/a,$RECV_IP/b" <"$WORK/four"
	expect_verify "same replica twice" 2 "replica 2 is the same as replica 1" \
		--verify "$WORK/four" "$RECV_IP/a,$RECV_IP:7204/a"
	# --send ships to the list first, then verifies every replica
	expect_verify "--send to both" 0 "identical" --verify --send --truncate=in-place "$WORK/four" "$RECV_IP/a,$RECV_IP/b"
	[ "$(grep -c "identical (4194304 bytes" "$WORK/out")" = 2 ] ||
		fail "want two 'identical' lines after --send: $(cat "$WORK/out")"
	kill -TERM "$RECV_PID"
	wait_recv
else
	fail "receiver did not start: $(cat "$WORK/recv.log")"
fi
end_case

# --- rpma-send --fetch ---------------------------------------------------

fpool="$RPMA_TMPDIR/fetch.pool"
head -c 64M /dev/urandom >"$WORK/big"

start_case "fetch of a 64 MiB log equals pmempool dump of it, and rpma-recv --export"
rm -f "$fpool"
if start_recv "$WORK/recv.log" --peer-timeout 2s --create 96M "$fpool"; then
	timeout 120 "$SEND" "$RECV_IP" "$WORK/big" 2>"$WORK/err" || fail "shipping: $(cat "$WORK/err")"
	rc=0
	timeout 120 "$SEND" --fetch --stats "$RECV_IP" "$WORK/fetched" 2>"$WORK/err" || rc=$?
	[ "$rc" = 0 ] || fail "--fetch: exit $rc: $(cat "$WORK/err")"
	grep -q "stats: fetched=67108864 " "$WORK/err" || fail "no stats line: $(cat "$WORK/err")"
	pool_data "$fpool" "$WORK/dump"
	cmp "$WORK/fetched" "$WORK/dump" >&2 || fail "the fetched log differs from pmempool dump -b"
	"$RECV" --export "$WORK/exported" "$fpool" 2>"$WORK/err" || fail "--export: $(cat "$WORK/err")"
	cmp "$WORK/exported" "$WORK/dump" >&2 || fail "--export differs from pmempool dump -b"
	rm -f "$WORK/fetched" "$WORK/exported" "$WORK/dump"
else
	fail "receiver did not start: $(cat "$WORK/recv.log")"
fi
end_case

start_case "--resume of a partial local copy appends exactly the rest"
head -c 10M "$WORK/big" >"$WORK/copy"
rc=0
timeout 120 "$SEND" --fetch --resume "$RECV_IP" "$WORK/copy" 2>"$WORK/err" || rc=$?
[ "$rc" = 0 ] || fail "exit $rc: $(cat "$WORK/err")"
cmp "$WORK/copy" "$WORK/big" >&2 || fail "the completed copy differs from the log"
flip_byte "$WORK/copy" 5
head -c 20M "$WORK/copy" >"$WORK/bad"
rc=0
timeout 120 "$SEND" --fetch --resume "$RECV_IP" "$WORK/bad" 2>"$WORK/err" || rc=$?
[ "$rc" = 6 ] || fail "a copy that differs: exit $rc, want 6: $(cat "$WORK/err")"
grep -q "differ at byte 5" "$WORK/err" || fail "no byte named: $(cat "$WORK/err")"
[ "$(stat -c %s "$WORK/bad")" = 20971520 ] || fail "the copy was written to"
rm -f "$WORK/copy" "$WORK/bad"
end_case

start_case "a --follow reader started before a writer prints exactly its input, through a receiver kill -9 and a 4 s outage"
kill -TERM "$RECV_PID"
wait_recv
rm -f "$fpool"
start_recv "$WORK/recv.log" --peer-timeout 2s --create 32M "$fpool" || fail "receiver did not start"
head -c 6M /dev/urandom >"$WORK/lines"
spawn 300 "$WORK/follow.log" "$SEND" --fetch --follow --retry 100 "$RECV_IP" "$WORK/followed"
follower=$SPAWN_PID
FEED_PAUSE=0.05 start_fed_sender "$WORK/lines" --retry 100 "$RECV_IP"
# a third in: the receiver killed and restarted; two thirds: the link cut
sleep 1
kill -9 "$RECV_PID"
wait_recv
sleep 1
start_recv "$WORK/recv.log" --peer-timeout 2s "$fpool" || fail "receiver did not restart: $(cat "$WORK/recv.log")"
sleep 1
link_down
sleep 4
link_up
wait "$FEED_PID"
reap "$SEND_PID"
[ "$REAP_RC" = 0 ] || fail "writer: exit $REAP_RC: $(cat "$WORK/send.log")"
# the follower has everything once the log ends where the input does
end=$((SECONDS + 60))
while [ "$(stat -c %s "$WORK/followed" 2>/dev/null || echo 0)" -lt "$(stat -c %s "$WORK/lines")" ] &&
	[ "$SECONDS" -lt "$end" ]; do nap 0.2; done
kill -INT "$follower"
reap "$follower"
[ "$REAP_RC" = 0 ] || fail "follower: exit $REAP_RC: $(cat "$WORK/follow.log")"
cmp "$WORK/followed" "$WORK/lines" >&2 || fail "the follower's output differs from the input: $(cat "$WORK/follow.log")"
grep -q "reading .* again" "$WORK/follow.log" || fail "the follower was never cut off: $(cat "$WORK/follow.log")"
end_case

# Found by the fault campaign (seed 1190476): a signal while a reader waits
# to read again ended it with the link's exit 3.
start_case "SIGTERM while a --follow reader waits for its receiver ends it (exit 0); SIGINT a fetch's wait: exit 20"
kill -TERM "$RECV_PID"
wait_recv
for how in follow once; do
	args=(--fetch --retry 100)
	[ "$how" = once ] || args+=(--follow)
	rm -f "$WORK/again"
	spawn 120 "$WORK/again.log" "$SEND" "${args[@]}" "$RECV_IP" "$WORK/again"
	reader=$SPAWN_PID
	wait_for "$WORK/again.log" "again in" 30 "$reader" || fail "$how: no retry: $(cat "$WORK/again.log")"
	want=0
	if [ "$how" = follow ]; then kill -TERM "$reader"; else kill -INT "$reader" && want=20; fi
	reap "$reader"
	[ "$REAP_RC" = "$want" ] || fail "$how: exit $REAP_RC, want $want: $(cat "$WORK/again.log")"
	[ "$how" = follow ] || grep -q "interrupted by SIGINT after fetching 0 bytes" "$WORK/again.log" ||
		fail "$how: no line saying it was interrupted: $(cat "$WORK/again.log")"
done
start_recv "$WORK/recv.log" "$fpool" || fail "receiver did not restart: $(cat "$WORK/recv.log")"
end_case

start_case "a reader refused by the allow list or the key is told as a writer is"
kill -TERM "$RECV_PID"
wait_recv
head -c 32 /dev/urandom >"$WORK/key"
chmod 600 "$WORK/key"
start_recv "$WORK/recv.log" --allow 198.51.100.0/24 "$fpool" || fail "receiver did not start"
for mode in send fetch; do
	rc=0
	if [ "$mode" = send ]; then
		timeout 60 "$SEND" "$RECV_IP" "$WORK/lines" 2>"$WORK/$mode.err" || rc=$?
	else
		timeout 60 "$SEND" --fetch "$RECV_IP" "$WORK/out" 2>"$WORK/$mode.err" || rc=$?
	fi
	echo "$rc" >"$WORK/$mode.rc"
done
[ "$(cat "$WORK/fetch.rc")" = "$(cat "$WORK/send.rc")" ] && [ "$(cat "$WORK/fetch.rc")" = 5 ] ||
	fail "not allowed: fetch exit $(cat "$WORK/fetch.rc"), send exit $(cat "$WORK/send.rc"), want 5"
cmp "$WORK/fetch.err" "$WORK/send.err" >&2 || fail "different messages: $(cat "$WORK/fetch.err" "$WORK/send.err")"
kill -TERM "$RECV_PID"
wait_recv
start_recv "$WORK/recv.log" --auth-key "$WORK/key" "$fpool" || fail "receiver did not start with a key"
rc=0
timeout 60 "$SEND" --fetch "$RECV_IP" "$WORK/out" 2>"$WORK/fetch.err" || rc=$?
timeout 60 "$SEND" "$RECV_IP" "$WORK/lines" 2>"$WORK/send.err" || echo "$?" >"$WORK/send.rc"
[ "$rc" = "$(cat "$WORK/send.rc")" ] || fail "no key: fetch exit $rc, send exit $(cat "$WORK/send.rc")"
cmp "$WORK/fetch.err" "$WORK/send.err" >&2 || fail "different messages: $(cat "$WORK/fetch.err" "$WORK/send.err")"
rc=0
timeout 60 "$SEND" --fetch --auth-key "$WORK/key" "$RECV_IP" "$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" = 0 ] || fail "with the key: exit $rc: $(cat "$WORK/err")"
cmp "$WORK/out" "$WORK/lines" >&2 || fail "with the key: the log differs"
kill -TERM "$RECV_PID"
wait_recv
end_case

start_case "receiver gone: exit 2 with a clear message"
rc=0
timeout 60 "$SEND" --verify "$input" "$RECV_IP" 2>"$WORK/err" || rc=$?
[ "$rc" = 2 ] || fail "exit $rc, want 2"
one_line_error "$WORK/err"
grep -q "is rpma-recv running" "$WORK/err" || fail "unclear: $(cat "$WORK/err")"
end_case

summary
