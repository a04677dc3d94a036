#!/bin/bash
# Rotation: a log with an archive takes a stream several times its pool's
# size; the archive's files, in name order, followed by the pool's content
# are the input exactly. The receiver is killed -9 at each step of a
# rotation (RPMA_RECV_STOP_AT stops it there first) while a sender with
# --retry streams on; an archive whose disk fills ends the stream with exit
# 4 and loses nothing; verify, --resume and replicas see the log whole.
# Runs inside the VM test bed: scripts/vm-run -- rotation.sh BUILD
BUILD="$1"
. "$(dirname "$0")/lib.sh"

RECV_OPTS+=(--peer-timeout 2s)
head -c 18M /dev/urandom >"$WORK/in18"
head -c 12M /dev/urandom >"$WORK/in12"

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
	pmempool check -v "$2" >"$WORK/check" 2>&1
	grep -q consistent "$WORK/check" || fail "pool not consistent: $(cat "$WORK/check")"
	log_content "$1" "$2" "$WORK/content"
	cmp "$WORK/content" "$3" >&2 ||
		fail "archive + pool ($(stat -c %s "$WORK/content") bytes) differ from $3 ($(stat -c %s "$3") bytes)"
}

# stopped PID: the process is stopped (SIGSTOP).
stopped() {
	local stat
	read -r stat <"/proc/$1/stat" 2>/dev/null || return 1
	stat=${stat##*) }
	[ "${stat%% *}" = T ]
}

# wait_stopped PID SECONDS
wait_stopped() {
	local end=$((SECONDS + $2))
	while ! stopped "$1"; do
		kill -0 "$1" 2>/dev/null || return 1
		[ "$SECONDS" -lt "$end" ] || return 1
		nap 0.05
	done
}

start_case "18 MiB through a 4 MiB pool, the receiver killed -9 at each step of a rotation"
pool="$RPMA_TMPDIR/rot.pool" arch="$WORK/arch"
mkdir -p "$arch"
rm -f "$pool"
spawn 300 "$WORK/send.log" "$SEND" --retry 100 --batch 256K "$RECV_IP" "$WORK/in18"
SEND_PID=$SPAWN_PID
for step in archive-copy archive-sealed pool-rewound base-recorded; do
	RPMA_RECV_STOP_AT=$step start_recv "$WORK/recv-$step.log" --archive "$arch" --create 4M "$pool" ||
		fail "receiver did not start: $(cat "$WORK/recv-$step.log")"
	if wait_stopped "$RECV_PID" 120; then
		log "receiver stopped at $step: kill -9"
	else
		fail "receiver did not stop at $step: $(tail -n 5 "$WORK/recv-$step.log")"
	fi
	kill -9 "$RECV_PID"
	wait_recv
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
check_log "$arch" "$pool" "$WORK/in18"
n=$(ls "$arch" | grep -c '\.log$')
[ "$n" -ge 4 ] || fail "only $n archive files for 18 MiB through 4 MiB"
ls -a "$arch" | grep -q part && fail "a .part file was left: $(ls -a "$arch")"
end_case

start_case "verify and --resume see the archive and the pool as one log"
for how in hash read; do
	rc=0
	timeout 120 "$SEND" --verify="$how" "$WORK/in18" "$RECV_IP" 2>"$WORK/v.log" || rc=$?
	[ "$rc" = 0 ] || fail "--verify=$how of the rotated log: exit $rc: $(cat "$WORK/v.log")"
done
# One byte changed in the first archived stretch: found there.
cp "$WORK/in18" "$WORK/in18x"
printf 'X' | dd of="$WORK/in18x" bs=1 seek=1000 conv=notrunc status=none
rc=0
timeout 120 "$SEND" --verify "$WORK/in18x" "$RECV_IP" >"$WORK/v.out" 2>"$WORK/v.log" || rc=$?
[ "$rc" = 1 ] || fail "--verify of a file that differs in the archive: exit $rc, want 1: $(cat "$WORK/v.log")"
grep -q "differ: byte offset 1000" "$WORK/v.out" "$WORK/v.log" || fail "first difference not at byte offset 1000: $(cat "$WORK/v.out" "$WORK/v.log")"
# --resume: the log is a prefix of a longer file; only the rest is sent.
cat "$WORK/in18" "$WORK/in12" >"$WORK/in30"
rc=0
timeout 300 "$SEND" --resume "$RECV_IP" "$WORK/in30" 2>"$WORK/r.log" || rc=$?
[ "$rc" = 0 ] || fail "--resume of a rotated log: exit $rc: $(cat "$WORK/r.log")"
kill -TERM "$RECV_PID"
wait_recv
check_log "$arch" "$pool" "$WORK/in30"
end_case

start_case "an archive whose disk fills: exit 4 naming it, nothing committed lost"
small="$WORK/small" pool="$RPMA_TMPDIR/full.pool"
mkdir -p "$small"
mount -t tmpfs -o size=6m tmpfs "$small"
rm -f "$pool"
start_recv "$WORK/recv.log" --archive "$small" --create 4M "$pool" || fail "receiver did not start: $(cat "$WORK/recv.log")"
rc=0
timeout 300 "$SEND" --batch 256K "$RECV_IP" "$WORK/in18" 2>"$WORK/send.log" || rc=$?
[ "$rc" = 4 ] || fail "exit $rc, want 4: $(cat "$WORK/send.log")"
grep -q "disk of the log's archive is full" "$WORK/send.log" || fail "no line naming the archive's disk: $(cat "$WORK/send.log")"
grep -q "its disk is full" "$WORK/recv.log" || fail "the receiver does not say its archive's disk is full: $(cat "$WORK/recv.log")"
committed=$(sed -n 's/.*committed \([0-9]*\) input bytes.*/\1/p' "$WORK/send.log" | tail -n 1)
kill -TERM "$RECV_PID"
wait_recv
log_content "$small" "$pool" "$WORK/content"
len=$(stat -c %s "$WORK/content")
cmp -n "$len" "$WORK/content" "$WORK/in18" >&2 || fail "archive + pool ($len bytes) is not a prefix of the input"
[ "$len" -ge "${committed:-1}" ] || fail "archive + pool hold $len bytes, the sender reported ${committed:-?} committed"
ls -a "$small" | grep -q part && fail "a .part file was left: $(ls -a "$small")"
umount "$small"
end_case

start_case "each method through rotation: staged on fsdax, apm on devdax"
pool="$RPMA_FSDAX_DIR/rot.pool" arch="$WORK/arch-fsdax"
mkdir -p "$arch"
rm -f "$pool"
start_recv "$WORK/recv.log" --archive "$arch" --create 4M "$pool" || fail "receiver did not start: $(cat "$WORK/recv.log")"
rc=0
timeout 300 "$SEND" --method staged "$RECV_IP" "$WORK/in12" 2>"$WORK/send.log" || rc=$?
[ "$rc" = 0 ] || fail "staged: exit $rc: $(cat "$WORK/send.log")"
kill -TERM "$RECV_PID"
wait_recv
check_log "$arch" "$pool" "$WORK/in12"
arch="$WORK/arch-devdax"
mkdir -p "$arch"
size=$(($(cat /sys/bus/dax/devices/"${RPMA_DEVDAX#/dev/}"/size) + 20 * 1048576))
head -c "$size" /dev/urandom >"$WORK/indax"
start_recv "$WORK/recv.log" --archive "$arch" --direct-write-to-pmem --create 1 "$RPMA_DEVDAX" ||
	fail "receiver did not start: $(cat "$WORK/recv.log")"
rc=0
timeout 600 "$SEND" --truncate --method apm "$RECV_IP" "$WORK/indax" 2>"$WORK/send.log" || rc=$?
[ "$rc" = 0 ] || fail "apm: exit $rc: $(cat "$WORK/send.log")"
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
start_recv "$WORK/recv1.log" --listen "$RECV_IP:7301" --archive "$WORK/arch7301" --create 4M "$RPMA_TMPDIR/rep7301.pool" ||
	fail "receiver 1 did not start"
pid1=$RECV_PID
start_recv "$WORK/recv2.log" --listen "$RECV_IP:7302" --archive "$WORK/arch7302" --rotate-at 50% --create 6M "$RPMA_TMPDIR/rep7302.pool" ||
	fail "receiver 2 did not start"
pid2=$RECV_PID
rc=0
timeout 300 "$SEND" --quorum 2 --retry 5 "$RECV_IP:7301,$RECV_IP:7302" "$WORK/in18" 2>"$WORK/send.log" || rc=$?
[ "$rc" = 0 ] || fail "exit $rc: $(cat "$WORK/send.log")"
rc=0
timeout 120 "$SEND" --verify "$WORK/in18" "$RECV_IP:7301,$RECV_IP:7302" 2>"$WORK/v.log" || rc=$?
[ "$rc" = 0 ] || fail "--verify of both: exit $rc: $(cat "$WORK/v.log")"
kill -TERM "$pid1" "$pid2"
reap "$pid1"
reap "$pid2"
for p in 7301 7302; do
	check_log "$WORK/arch$p" "$RPMA_TMPDIR/rep$p.pool" "$WORK/in18"
done
end_case

rm -rf "$WORK"
summary
