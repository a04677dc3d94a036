#!/bin/bash
# A log whose archive is on a slow disk (issue 69), run by scripts/soak
# (minutes under TCG, outside CI): ext4 on dm-delay (every I/O DELAY_MS
# late) holds log a's archive; a's 8 MiB pool rotates at 50% several times
# under a writer with no option set shipping 24 MiB, the receiver's
# --peer-timeout 2; log b, on the same receiver with its archive on the
# fast disk and on the same worker thread (--workers 1), takes a paced
# pipe meanwhile. Checked: a's writer exits 0 and
# a's exported log is its input; b's writer exits 0, its log is its input
# and no commit of b waited longer than B_GAP_MAX s for the one before
# while a's seals ran (a stall of b's log thread behind a's archive).
# Runs inside the VM test bed: tests/e2e/slow_archive.sh BUILD
BUILD="$1"
. "$(dirname "$0")/lib.sh"

DELAY_MS=${DELAY_MS:-3000}
B_GAP_MAX=2 # seconds between two commits of b (each 64 KiB, 0.1 s apart)

# slow_disk DIR: ext4 on dm-delay over a loop device, mounted on DIR.
slow_disk() {
	local img="$WORK/slow.img" loop
	truncate -s 256M "$img"
	mkfs.ext4 -q "$img" || return 1
	modprobe loop 2>/dev/null # built in on some kernels
	loop=$(losetup -f --show "$img") || return 1
	modprobe dm-delay || return 1
	dmsetup create rpma-slow --table "0 $(blockdev --getsz "$loop") delay $loop 0 $DELAY_MS" || return 1
	mkdir -p "$1"
	dmsetup mknodes rpma-slow # no udev in the test bed
	mount /dev/mapper/rpma-slow "$1"
}

slow_disk_gone() {
	umount "$WORK/slow" 2>/dev/null
	dmsetup remove rpma-slow 2>/dev/null
	losetup -D 2>/dev/null
}

# paced_pipe: 64 KiB of random bytes every 0.1 s until $WORK/b.stop is.
paced_pipe() {
	until [ -e "$WORK/b.stop" ]; do
		head -c 64K /dev/urandom
		nap 0.1
	done
}

# stamped FILE: each line of standard input into FILE after its time.
stamped() {
	local l
	while IFS= read -r l; do
		printf '%s %s\n' "$EPOCHREALTIME" "$l"
	done >"$1"
}

# longest_gap FILE FROM TO: the longest time (s) between two commit lines
# of the stamped FILE within FROM..TO (epoch seconds).
longest_gap() {
	awk -v from="$2" -v to="$3" '/ rpma-send: committed / && $1 >= from && $1 <= to {
		if (last) { g = $1 - last; if (g > max) max = g }
		last = $1
	} END { printf "%.2f", max }' "$1"
}

slow_archive_case() {
	local a_send b_send t0=$SECONDS gap rotations
	start_case "an archive on a slow disk ($DELAY_MS ms an I/O): its log's writer exits 0, exact; another log streams meanwhile with no stall over $B_GAP_MAX s"
	if ! slow_disk "$WORK/slow"; then
		fail "the test bed cannot make a slow disk (dm-delay)"
		end_case
		return
	fi
	mkdir -p "$WORK/slow/a" "$WORK/b-arch"
	head -c 24M /dev/urandom >"$WORK/a.in"
	if ! RECV_TIMEOUT=900 start_recv "$WORK/recv.log" --peer-timeout 2 --rotate-at 50% --workers 1 \
		--log "a=$WORK/a.pool,create=8M,archive=$WORK/slow/a" \
		--log "b=$WORK/b.pool,create=64M,archive=$WORK/b-arch"; then
		fail "receiver did not start: $(cat "$WORK/recv.log")"
		slow_disk_gone
		end_case
		return
	fi
	# b: a paced pipe, a commit a piece, each commit line stamped
	(paced_pipe | tee "$WORK/b.in" |
		"$SEND" --batch 64K --progress=commits "$RECV_IP/b" 2> >(stamped "$WORK/b.send")) &
	b_send=$!
	nap 3
	local a_from=$EPOCHREALTIME
	spawn 900 "$WORK/a.send" "$SEND" "$RECV_IP/a" "$WORK/a.in"
	a_send=$SPAWN_PID
	reap "$a_send"
	[ "$REAP_RC" = 0 ] || fail "a's writer exited $REAP_RC: $(tail -n 3 "$WORK/a.send")"
	local a_to=$EPOCHREALTIME
	log "(a's 24 MiB shipped in $((SECONDS - t0)) s)"
	: >"$WORK/b.stop"
	wait "$b_send"
	local rc=$?
	[ "$rc" = 0 ] || fail "b's writer exited $rc: $(tail -n 3 "$WORK/b.send")"
	nap 1 # the stamps written out
	gap=$(longest_gap "$WORK/b.send" "$a_from" "$a_to")
	log "(b: $(grep -c ' rpma-send: committed ' "$WORK/b.send") commits, the longest wait between two while a shipped $gap s)"
	awk -v g="$gap" -v max="$B_GAP_MAX" 'BEGIN { exit !(g > 0 && g <= max) }' ||
		fail "b's commits waited $gap s for one another while a's archive was written (at most $B_GAP_MAX)"
	kill -TERM "$RECV_PID"
	wait_recv
	rotations=$(grep -c "log a: rotated " "$WORK/recv.log")
	log "(a rotated $rotations times)"
	[ "$rotations" -ge 3 ] || fail "a rotated $rotations times, not 3 or more"
	"$RECV" --export "$WORK/b.out" --log "b=$WORK/b.pool,archive=$WORK/b-arch" 2>"$WORK/x.log" ||
		fail "--export of b: $(cat "$WORK/x.log")"
	cmp -s "$WORK/b.out" "$WORK/b.in" || fail "b's log ($(stat -c %s "$WORK/b.out") bytes) is not its input ($(stat -c %s "$WORK/b.in") bytes)"
	"$RECV" --export "$WORK/a.out" --log "a=$WORK/a.pool,archive=$WORK/slow/a" 2>"$WORK/x.log" ||
		fail "--export of a: $(cat "$WORK/x.log")"
	cmp -s "$WORK/a.out" "$WORK/a.in" || fail "a's exported log ($(stat -c %s "$WORK/a.out") bytes) is not its input (25165824 bytes)"
	slow_disk_gone
	end_case
}

slow_archive_case
summary
