# shellcheck shell=bash
# Two releases talking, both ways, each host running its own release's
# build (sourced by tests/e2e/hosts.sh, which boots the pair): with no
# option set a file and a pipe ship exact and --verify says so (and says
# so when one byte differs); a receiver killed -9 mid-stream leaves a
# prefix holding every byte its sender reported committed, and restarts
# on it; under --retry a stream rides out a silent link and a lossy, slow
# one, made on the emulated link outside both guests, and ends exact.

head -c 16M /dev/urandom >"$D/file"
head -c 3M /dev/urandom >"$D/pipe"
head -c 24M /dev/urandom >"$D/paced"
head -c 6M /dev/urandom >"$D/retry"

# cross_ship SRC DST: a file into DST's device-DAX log, a pipe into its
# disk log, both read back by --verify; a changed byte is found.
cross_ship() {
	local src=$1 dst=$2 out
	start_case "${REL[$src]} ships to ${REL[$dst]}, no option set: a file and a pipe exact, --verify says so"
	out=$(on "$dst" 'recv_up recv.log --create 32M --log dax=$RPMA_DEVDAX --log disk=$RPMA_DISK/cross.pool' 120) ||
		fail "the receiver on $dst did not start: $out"
	out=$(on "$src" "
		timeout 120 \$SEND \$RPMA_IP_${dst^^}/dax \$D/file 2>\$W/send-file.log || { echo \"file: exit \$?: \$(cat \$W/send-file.log)\"; exit 1; }
		cat \$D/pipe | timeout 120 \$SEND \$RPMA_IP_${dst^^}/disk - 2>\$W/send-pipe.log || { echo \"pipe: exit \$?: \$(cat \$W/send-pipe.log)\"; exit 1; }
		timeout 120 \$SEND --verify \$D/file \$RPMA_IP_${dst^^}/dax >\$W/v1.log 2>&1 || { echo \"verify file: exit \$?: \$(cat \$W/v1.log)\"; exit 1; }
		timeout 120 \$SEND --verify \$D/pipe \$RPMA_IP_${dst^^}/disk >\$W/v2.log 2>&1 || { echo \"verify pipe: exit \$?: \$(cat \$W/v2.log)\"; exit 1; }
		cp \$D/file \$RPMA_TMPDIR/changed
		printf x | dd of=\$RPMA_TMPDIR/changed bs=1 seek=12345678 conv=notrunc status=none
		cmp -s \$D/file \$RPMA_TMPDIR/changed && printf y | dd of=\$RPMA_TMPDIR/changed bs=1 seek=12345678 conv=notrunc status=none
		rc=0; timeout 120 \$SEND --verify \$RPMA_TMPDIR/changed \$RPMA_IP_${dst^^}/dax >\$W/v3.log 2>&1 || rc=\$?
		[ \$rc = 1 ] || { echo \"verify of a changed file: exit \$rc, want 1: \$(cat \$W/v3.log)\"; exit 1; }
		grep -q 12345678 \$W/v3.log || { echo \"verify does not name the byte: \$(cat \$W/v3.log)\"; exit 1; }
	" 400) || fail "$out"
	out=$(on "$dst" 'recv_down || echo "the receiver did not stop"
		log_prefix "$RPMA_DEVDAX" "$D/file" 16777216 >/dev/null || echo "dax log"
		log_prefix "$RPMA_DISK/cross.pool" "$D/pipe" 3145728 >/dev/null || echo "disk log"' 120)
	[ -z "$out" ] || fail "after the run: $out"
	end_case
}

# cross_crash SRC DST: a paced pipe from SRC into DST's device-DAX log; the
# receiver killed -9 mid-stream (at a seeded moment): the sender exits 3
# naming what it committed, DST's log is a prefix holding at least that,
# and a receiver restarted on it serves it.
cross_crash() {
	local src=$1 dst=$2 out committed pause
	pause=$((3 + RANDOM % 6))
	start_case "${REL[$dst]}'s receiver killed -9 mid-stream from ${REL[$src]}: a prefix, every committed byte (after ${pause} s)"
	on "$dst" fresh_state >/dev/null
	out=$(on "$dst" 'recv_up recv.log --create 1 "$RPMA_DEVDAX"' 120) ||
		fail "the receiver on $dst did not start: $out"
	on_bg "$src" "pace \$D/paced 0.05 | timeout 300 \$SEND --progress=commits \$RPMA_IP_${dst^^} - 2>\$W/send-crash.log; echo \"exit \$?\""
	local sender=$JOB slog=${W[$src]}/send-crash.log
	sleep "$pause"
	# killed once something was committed: a kill before that proves nothing
	for _ in $(seq 600); do
		grep -q '^rpma-send: committed [1-9]' "$slog" 2>/dev/null && break
		sleep 0.1
	done
	grep -q '^rpma-send: committed [1-9]' "$slog" 2>/dev/null ||
		fail "nothing was committed in ${pause} s and 60 s more: $(grep -v '^rpma-send: committed ' "$slog")"
	on "$dst" 'recv_down KILL' 60 >/dev/null
	out=$(job_wait "$src" "$sender" 300)
	committed=$(sed -n 's/.*after committing \([0-9]*\) input bytes.*/\1/p' "$slog")
	[ "$out" = "exit 3" ] || fail "the sender: $out, want exit 3: $(grep -v '^rpma-send: committed ' "$slog")"
	[ "${committed:-0}" -gt 0 ] || fail "the sender did not say it had committed bytes: $(grep -v '^rpma-send: committed ' "$slog")"
	out=$(on "$dst" "log_prefix \"\$RPMA_DEVDAX\" \"\$D/paced\" ${committed:-0}" 120) ||
		fail "after the kill: $out"
	log "$dst's log holds ${out%%$'\n'*} bytes, the sender reported ${committed:-?} committed"
	out=$(on "$dst" 'recv_up recv2.log "$RPMA_DEVDAX" && recv_down' 120) ||
		fail "a receiver restarted on the log: $out"
	end_case
}

# cross_link SRC DST FAULT SECONDS: a stream under --retry from SRC into
# DST while FAULT (link_silent, or "link_loss 2" with a delay) holds for
# SECONDS; healed, the sender ends 0 and the log is the input.
cross_link() {
	local src=$1 dst=$2 fault=$3 secs=$4 out
	start_case "${REL[$src]} to ${REL[$dst]} under --retry through $fault for $secs s: exact"
	on "$dst" fresh_state >/dev/null
	out=$(on "$dst" 'recv_up recv.log --peer-timeout 3 --create 1 "$RPMA_DEVDAX"' 120) ||
		fail "the receiver on $dst did not start: $out"
	# rxe's own count of what it resent and what came out of order
	local counters="cat /sys/class/infiniband/rxe0/ports/1/hw_counters/{completer_retry_err,rcvd_seq_err,duplicate_request} | awk '{ n += \$1 } END { print n + 0 }'"
	local before after
	before=$(on "$src" "$counters" 30)
	on_bg "$src" "pace \$D/retry 0.1 | timeout 400 \$SEND --retry 100 \$RPMA_IP_${dst^^} - 2>\$W/send-link.log; echo \"exit \$?\""
	local sender=$JOB
	sleep 3
	$fault || fail "$fault failed"
	if [ "$fault" != link_silent ]; then link_delay 5 || fail "link_delay failed"; fi
	sleep "$secs"
	link_heal
	out=$(job_wait "$src" "$sender" 400)
	[ "$out" = "exit 0" ] || fail "the sender: $out: $(tail -c 600 "${W[$src]}/send-link.log")"
	if [ "$fault" = link_silent ]; then
		grep -q "reconnected to" "${W[$src]}/send-link.log" ||
			fail "the sender never lost the link: $(tr '\r' '\n' <"${W[$src]}/send-link.log" | tail -n 3)"
	else
		after=$(on "$src" "$counters" 30)
		[ "${after:-0}" -gt "${before:-0}" ] ||
			fail "rxe resent nothing through the lossy link (its counters: ${before:-?} before, ${after:-?} after)"
		log "rxe's retries and out-of-sequence packets on $src: ${before:-?} before, ${after:-?} after"
	fi
	out=$(on "$dst" 'recv_down; log_prefix "$RPMA_DEVDAX" "$D/retry" 6291456 >/dev/null' 120) ||
		fail "the log: $out"
	end_case
}

cross_ship a b
cross_ship b a
on a fresh_state >/dev/null
on b fresh_state >/dev/null
cross_crash a b
cross_crash b a
cross_link a b link_silent 12
cross_link b a "link_loss 2" 8
