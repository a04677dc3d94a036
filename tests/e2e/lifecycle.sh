#!/bin/bash
# A log's life (issue 26). Rotation: a log with an archive takes a stream
# several times its pool's size; the archive's files, in name order,
# followed by the pool's content are the input exactly. The receiver is
# killed -9 at each step of a rotation (RPMA_RECV_STOP_AT stops it there
# first) while a sender with --retry streams on; an archive whose disk
# fills ends the stream with exit 4 and loses nothing; verify, --resume and
# replicas see the log whole. Replacement (--truncate): a run cut at 10%,
# 50% or 99% (sender kill -9 at 10 and 99, receiver kill -9 at 50, the
# link down at 10 and 99; RPMA_CUT_ALL=1 each fault at each) leaves
# the previous content byte for byte, the next run replaces it; a receiver
# killed during the switch comes back with the new content whole; a pool
# without room refuses before anything moves, unless an archive can take
# the old content. Runs inside the VM test bed: scripts/vm-run --
# lifecycle.sh BUILD
BUILD="$1"
. "$(dirname "$0")/lib.sh"

RECV_OPTS+=(--peer-timeout 2s)
head -c 9M /dev/urandom >"$WORK/in9"
# enough for seven rotations of a 2 MiB pool: each kill may cost one
head -c 15M /dev/urandom >"$WORK/inrot"
head -c 6M /dev/urandom >"$WORK/in6"

# log_content ARCHIVE POOL OUT: the log's whole content, as a reader
# without our tools gets it: the archive's files in name order, then the
# pool's bytes.
log_content() {
	pool_data "$2" "$WORK/pooldata" || fail "pmempool dump failed"
	# shellcheck disable=SC2046
	cat $(ls "$1"/*.log 2>/dev/null | sort) "$WORK/pooldata" >"$3"
}

# check_log ARCHIVE POOL EXPECTED: the pool checks clean, and archive plus
# pool are EXPECTED.
check_log() {
	pool_consistent "$2" || fail "pool not consistent: $(cat "$WORK/check")"
	log_content "$1" "$2" "$WORK/content"
	cmp "$WORK/content" "$3" >&2 ||
		fail "archive + pool ($(stat -c %s "$WORK/content") bytes) differ from $3 ($(stat -c %s "$3") bytes)"
}

# kill_when_stopped STEP: the receiver (RPMA_RECV_STOP_AT=STEP, its log
# $WORK/recv-STEP.log) stops there; then kill -9.
kill_when_stopped() {
	if wait_stopped "$RECV_PID" 60; then
		log "receiver stopped at $1: kill -9"
	else
		fail "receiver did not stop at $1: $(tail -n 3 "$WORK/recv-$1.log")"
	fi
	kill -9 "$RECV_PID"
	wait_recv
}

start_case "15 MiB through a 2 MiB pool, the receiver killed -9 at each step of a rotation"
pool="$RPMA_TMPDIR/rot.pool" arch="$WORK/arch"
mkdir -p "$arch"
rm -f "$pool"
spawn 300 "$WORK/send.log" "$SEND" --retry 100 --batch 256K "$RECV_IP" "$WORK/inrot"
SEND_PID=$SPAWN_PID
for step in archive-copy archive-sealed pool-rewound base-recorded; do
	RPMA_RECV_STOP_AT=$step start_recv "$WORK/recv-$step.log" --archive "$arch" --create 2M "$pool" ||
		fail "receiver did not start: $(cat "$WORK/recv-$step.log")"
	kill_when_stopped "$step"
done
start_recv "$WORK/recv.log" --archive "$arch" --metrics-file "$WORK/m.prom" --metrics-interval 1s "$pool" ||
	fail "receiver did not start: $(cat "$WORK/recv.log")"
reap "$SEND_PID"
[ "$REAP_RC" = 0 ] || fail "sender exit $REAP_RC: $(tail -n 5 "$WORK/send.log")"
# What the receiver shows of it: the metrics file and --info.
nap 1.5
files=$(ls "$arch" | grep -c '\.log$')
grep -q "^rpma_recv_archive_files{.*} $files\$" "$WORK/m.prom" || fail "metrics do not count $files archive files: $(grep archive "$WORK/m.prom")"
"$RECV" --info --metrics-file "$WORK/m.prom" "$pool" >"$WORK/info" 2>&1 || fail "--info failed: $(cat "$WORK/info")"
grep -q "^archive: $files files" "$WORK/info" || fail "--info does not show the archive: $(cat "$WORK/info")"
grep -q "^log position of its first byte: " "$WORK/info" || fail "--info does not show the pool's log position: $(cat "$WORK/info")"
grep -q "^used: .*%)" "$WORK/info" || fail "--info does not show the fill level: $(cat "$WORK/info")"
grep -q "finishing a rotation cut short" "$WORK/recv-pool-rewound.log" "$WORK/recv-base-recorded.log" "$WORK/recv.log" ||
	log "(no rotation was left half done by a kill)"
check_log "$arch" "$pool" "$WORK/inrot"
n=$(ls "$arch" | grep -c '\.log$')
[ "$n" -ge 6 ] || fail "only $n archive files for 15 MiB through 2 MiB"
ls -a "$arch" | grep -q part && fail "a .part file was left: $(ls -a "$arch")"
end_case

start_case "verify, --resume, --fetch and --export see the archive and the pool as one log"
for how in hash read; do
	rc=0
	timeout 120 "$SEND" --verify="$how" "$WORK/inrot" "$RECV_IP" 2>"$WORK/v.log" || rc=$?
	[ "$rc" = 0 ] || fail "--verify=$how of the rotated log: exit $rc: $(cat "$WORK/v.log")"
done
# One byte changed in the first archived stretch: found there.
cp "$WORK/inrot" "$WORK/inrotx"
flip_byte "$WORK/inrotx" 1000
rc=0
timeout 120 "$SEND" --verify "$WORK/inrotx" "$RECV_IP" >"$WORK/v.out" 2>"$WORK/v.log" || rc=$?
[ "$rc" = 1 ] || fail "--verify of a file that differs in the archive: exit $rc, want 1: $(cat "$WORK/v.log")"
grep -q "differ: byte offset 1000" "$WORK/v.out" "$WORK/v.log" || fail "first difference not at byte offset 1000: $(cat "$WORK/v.out" "$WORK/v.log")"
# --resume: the log is a prefix of a longer file; only the rest is sent.
cat "$WORK/inrot" "$WORK/in6" >"$WORK/in21"
rc=0
timeout 300 "$SEND" --resume "$RECV_IP" "$WORK/in21" 2>"$WORK/r.log" || rc=$?
[ "$rc" = 0 ] || fail "--resume of a rotated log: exit $rc: $(cat "$WORK/r.log")"
# Read back whole, the archive first: over RDMA, and on the PMem host.
rc=0
timeout 120 "$SEND" --fetch "$RECV_IP" "$WORK/fetched" 2>"$WORK/f.log" || rc=$?
[ "$rc" = 0 ] || fail "--fetch of a rotated log: exit $rc: $(cat "$WORK/f.log")"
cmp "$WORK/fetched" "$WORK/in21" >&2 || fail "--fetch of a rotated log differs from its input"
"$RECV" --export "$WORK/exported" --archive "$arch" "$pool" 2>"$WORK/x.log" || fail "--export: $(cat "$WORK/x.log")"
cmp "$WORK/exported" "$WORK/in21" >&2 || fail "--export of a rotated log differs from its input"
kill -TERM "$RECV_PID"
wait_recv
check_log "$arch" "$pool" "$WORK/in21"
end_case

start_case "an archive whose disk fills: exit 4 naming it, nothing committed lost"
small="$WORK/small" pool="$RPMA_TMPDIR/full.pool"
mkdir -p "$small"
mount -t tmpfs -o size=3m tmpfs "$small"
rm -f "$pool"
start_recv "$WORK/recv.log" --archive "$small" --create 2M "$pool" || fail "receiver did not start: $(cat "$WORK/recv.log")"
rc=0
timeout 300 "$SEND" --batch 256K "$RECV_IP" "$WORK/in9" 2>"$WORK/send.log" || rc=$?
[ "$rc" = 4 ] || fail "exit $rc, want 4: $(cat "$WORK/send.log")"
grep -q "disk of the log's archive is full" "$WORK/send.log" || fail "no line naming the archive's disk: $(cat "$WORK/send.log")"
grep -q "its disk is full" "$WORK/recv.log" || fail "the receiver does not say its archive's disk is full: $(cat "$WORK/recv.log")"
committed=$(sed -n 's/.*committed \([0-9]*\) input bytes.*/\1/p' "$WORK/send.log" | tail -n 1)
kill -TERM "$RECV_PID"
wait_recv
log_content "$small" "$pool" "$WORK/content"
len=$(stat -c %s "$WORK/content")
cmp -n "$len" "$WORK/content" "$WORK/in9" >&2 || fail "archive + pool ($len bytes) is not a prefix of the input"
[ "$len" -ge "${committed:-1}" ] || fail "archive + pool hold $len bytes, the sender reported ${committed:-?} committed"
ls -a "$small" | grep -q part && fail "a .part file was left: $(ls -a "$small")"
umount "$small"
end_case

start_case "each method through rotation: staged on fsdax, apm on devdax"
pool="$RPMA_FSDAX_DIR/rot.pool" arch="$WORK/arch-fsdax"
mkdir -p "$arch"
rm -f "$pool"
start_recv "$WORK/recv.log" --archive "$arch" --create 2M "$pool" || fail "receiver did not start: $(cat "$WORK/recv.log")"
rc=0
timeout 300 "$SEND" --method staged "$RECV_IP" "$WORK/in6" 2>"$WORK/send.log" || rc=$?
[ "$rc" = 0 ] || fail "staged: exit $rc: $(cat "$WORK/send.log"); the receiver: $(cat "$WORK/recv.log")"
kill -TERM "$RECV_PID"
wait_recv
check_log "$arch" "$pool" "$WORK/in6"
arch="$WORK/arch-devdax"
mkdir -p "$arch"
size=$(($(cat /sys/bus/dax/devices/"${RPMA_DEVDAX#/dev/}"/size) + 20 * 1048576))
head -c "$size" /dev/urandom >"$WORK/indax"
start_recv "$WORK/recv.log" --archive "$arch" --direct-write-to-pmem --create 1 "$RPMA_DEVDAX" ||
	fail "receiver did not start: $(cat "$WORK/recv.log")"
rc=0
timeout 600 "$SEND" --truncate=in-place --method apm "$RECV_IP" "$WORK/indax" 2>"$WORK/send.log" || rc=$?
[ "$rc" = 0 ] || fail "apm: exit $rc: $(cat "$WORK/send.log"); the receiver: $(cat "$WORK/recv.log")"
kill -TERM "$RECV_PID"
wait_recv
check_log "$arch" "$RPMA_DEVDAX" "$WORK/indax"
rm -f "$WORK/indax"
end_case

start_case "two replicas rotate on their own schedule; verify sees each whole"
for p in 7301 7302; do
	rm -f "$RPMA_TMPDIR/rep$p.pool"
	mkdir -p "$WORK/arch$p"
done
start_recv "$WORK/recv1.log" --listen "$RECV_IP:7301" --archive "$WORK/arch7301" --create 2M "$RPMA_TMPDIR/rep7301.pool" ||
	fail "receiver 1 did not start"
pid1=$RECV_PID
start_recv "$WORK/recv2.log" --listen "$RECV_IP:7302" --archive "$WORK/arch7302" --rotate-at 50% --create 3M "$RPMA_TMPDIR/rep7302.pool" ||
	fail "receiver 2 did not start"
pid2=$RECV_PID
rc=0
timeout 300 "$SEND" --quorum 2 --retry 5 "$RECV_IP:7301,$RECV_IP:7302" "$WORK/in9" 2>"$WORK/send.log" || rc=$?
[ "$rc" = 0 ] || fail "exit $rc: $(cat "$WORK/send.log")"
rc=0
timeout 120 "$SEND" --verify "$WORK/in9" "$RECV_IP:7301,$RECV_IP:7302" 2>"$WORK/v.log" || rc=$?
[ "$rc" = 0 ] || fail "--verify of both: exit $rc: $(cat "$WORK/v.log")"
kill -TERM "$pid1" "$pid2"
reap "$pid1"
reap "$pid2"
for p in 7301 7302; do
	check_log "$WORK/arch$p" "$RPMA_TMPDIR/rep$p.pool" "$WORK/in9"
done
end_case

# --- replacement ----------------------------------------------------------

# feed_until FILE PERCENT FIFO: writes the first PERCENT of FILE into
# FIFO, touches $WORK/fed and holds the FIFO open without writing more.
# Run it in the background.
feed_until() {
	local size
	size=$(stat -c %s "$1")
	exec 8>"$3"
	head -c $((size * $2 / 100)) "$1" >&8
	: >"$WORK/fed"
	sleep 120
	exec 8>&-
}

# wait_file FILE SECONDS: FILE exists.
wait_file() {
	local end=$((SECONDS + $2))
	while [ ! -e "$1" ]; do
		[ "$SECONDS" -lt "$end" ] || return 1
		nap 0.05
	done
}

# wait_count FILE TEXT N SECONDS: FILE holds TEXT on N lines or more.
wait_count() {
	local end=$((SECONDS + $4))
	while [ "$(grep -c -- "$2" "$1" 2>/dev/null)" -lt "$3" ]; do
		[ "$SECONDS" -lt "$end" ] || return 1
		nap 0.1
	done
}

abandoned=0
pool="$RPMA_TMPDIR/repl.pool"
rm -f "$pool"
head -c 2M /dev/urandom >"$WORK/old"
head -c 3M /dev/urandom >"$WORK/new"
start_recv "$WORK/recv.log" --create 16M "$pool" || fail "receiver did not start: $(cat "$WORK/recv.log")"
rc=0
timeout 120 "$SEND" --truncate "$RECV_IP" "$WORK/old" 2>"$WORK/send.log" || rc=$?
[ "$rc" = 0 ] || fail "the first content: exit $rc: $(cat "$WORK/send.log")"

cuts="sender:10 sender:99 receiver:50 link:10 link:99"
[ -z "${RPMA_CUT_ALL:-}" ] || cuts=$(printf '%s:10 %s:50 %s:99 ' sender sender sender receiver receiver receiver link link link)
for cut in $cuts; do
	fault=${cut%:*} pct=${cut#*:}
	start_case "a replacement cut at $pct% ($fault): the log keeps its previous content"
	rm -f "$WORK/fifo" "$WORK/fed"
	mkfifo "$WORK/fifo"
	feed_until "$WORK/new" "$pct" "$WORK/fifo" &
	feeder=$!
	spawn 120 "$WORK/send.log" "$SEND" --truncate "$RECV_IP" - <"$WORK/fifo"
	send_pid=$SPAWN_PID
	wait_file "$WORK/fed" 60 || fail "the feeder did not get to $pct%"
	nap 1.5 # what was fed is committed (a quiet pipe's batch goes at once)
	case $fault in
	sender) kill -9 "$send_pid" ;;
	receiver) kill -9 "$RECV_PID" ;;
	link) link_down ;;
	esac
	reap "$send_pid"
	[ "$fault" = sender ] || [ "$REAP_RC" != 0 ] || fail "the sender exited 0 after the $fault fault"
	[ "$fault" = sender ] || grep -q "keeps its previous content" "$WORK/send.log" ||
		fail "the sender does not say the log keeps its content: $(tr '\r' '\n' <"$WORK/send.log" | tail -n 3)"
	kill "$feeder" 2>/dev/null
	wait "$feeder" 2>/dev/null
	link_up
	# the receiver lets the replacement go (the next run may start)
	if [ "$fault" != receiver ]; then
		abandoned=$((abandoned + 1))
		wait_count "$WORK/recv.log" "is abandoned" "$abandoned" 30 ||
			fail "the receiver did not let the replacement go: $(tail -n 3 "$WORK/recv.log")"
	fi
	if [ "$fault" = receiver ]; then
		wait_recv
		start_recv "$WORK/recv.log" "$pool" || fail "receiver did not restart: $(cat "$WORK/recv.log")"
		abandoned=0
	fi
	check_pool "$pool" "$WORK/old"
	end_case
done

start_case "the next run replaces it; a receiver killed during the switch comes back with the new content whole"
rc=0
timeout 120 "$SEND" --truncate "$RECV_IP" "$WORK/new" 2>"$WORK/send.log" || rc=$?
[ "$rc" = 0 ] || fail "exit $rc: $(cat "$WORK/send.log")"
check_pool "$pool" "$WORK/new"
# A 1 MiB log takes a 5 MiB replacement 2 MiB on (an eighth of the pool),
# moved in three chunks of 2 MiB.
for step in switch-recorded switch-moving switch-committed; do
	head -c 1M /dev/urandom >"$WORK/one"
	timeout 120 "$SEND" --truncate "$RECV_IP" "$WORK/one" 2>"$WORK/send.log" || fail "1 MiB: $(cat "$WORK/send.log")"
	head -c 5M /dev/urandom >"$WORK/big"
	kill -TERM "$RECV_PID"
	wait_recv
	RPMA_RECV_STOP_AT=$step start_recv "$WORK/recv-$step.log" "$pool" || fail "receiver did not start"
	spawn 120 "$WORK/send.log" "$SEND" --truncate "$RECV_IP" "$WORK/big"
	send_pid=$SPAWN_PID
	kill_when_stopped "$step"
	reap "$send_pid"
	start_recv "$WORK/recv.log" "$pool" || fail "receiver did not restart: $(cat "$WORK/recv.log")"
	grep -q "finishing the switch to its replacement" "$WORK/recv.log" || fail "no switch finished at $step: $(cat "$WORK/recv.log")"
	check_pool "$pool" "$WORK/big"
done
end_case

start_case "no room for both: refused before anything moves; with an archive, the old content is sealed into it first"
kill -TERM "$RECV_PID"
wait_recv
pool="$RPMA_TMPDIR/tight.pool" arch="$WORK/arch-tight"
rm -f "$pool"
mkdir -p "$arch"
head -c 3M /dev/urandom >"$WORK/three"
head -c 2M /dev/urandom >"$WORK/two"
start_recv "$WORK/recv.log" --create 4M "$pool" || fail "receiver did not start"
timeout 120 "$SEND" "$RECV_IP" "$WORK/three" 2>"$WORK/send.log" || fail "3 MiB: $(cat "$WORK/send.log")"
rc=0
timeout 120 "$SEND" --truncate "$RECV_IP" "$WORK/two" 2>"$WORK/send.log" || rc=$?
[ "$rc" = 4 ] || fail "no room: exit $rc, want 4: $(cat "$WORK/send.log")"
grep -q "cannot replace the log: its pool has room for [0-9]* bytes beside the content it keeps" "$WORK/send.log" ||
	fail "no line naming the room: $(cat "$WORK/send.log")"
check_pool "$pool" "$WORK/three"
kill -TERM "$RECV_PID"
wait_recv
start_recv "$WORK/recv.log" --archive "$arch" "$pool" || fail "receiver did not start with an archive"
rc=0
timeout 120 "$SEND" --truncate "$RECV_IP" "$WORK/two" 2>"$WORK/send.log" || rc=$?
[ "$rc" = 0 ] || fail "with an archive: exit $rc: $(cat "$WORK/send.log")"
kill -TERM "$RECV_PID"
wait_recv
check_log "$arch" "$pool" "$WORK/two"
end_case

rm -rf "$WORK"
summary
