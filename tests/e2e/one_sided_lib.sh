# One-sided writers (apm, flush) that store the log's write offset
# themselves, against a receiver that must take that offset as input
# (rpma-ship(7), the commit rule): tests/rogue/rogue_sender's offset and
# stale-key scenarios on a log of the device-DAX, while an honest writer
# streams into another log. Sourced by hostile.sh (apm) and flush.sh
# (flush), after lib.sh; ROGUE is the rogue_sender.

# The receiver runs under the persistence model (model_cut_lib.sh), so that
# a cut of the PMem can be made where a case needs one.
. "$(dirname "${BASH_SOURCE[0]}")/model_cut_lib.sh"

# The bytes each one-sided scenario commits honestly (rogue_offset.c).
ONE_SIDED_CHUNK=$'rogue_sender: one-sided chunk\n'

# os_rogue SCENARIO METHOD: rogue_sender against the victim log must find
# the receiver safe; its report goes to the log (and to $WORK/os.out).
os_rogue() {
	local rc=0
	timeout 120 "$ROGUE" "$1" "$RECV_IP/victim" "$2" >"$WORK/os.out" 2>"$WORK/rogue.err" || rc=$?
	log "$(cat "$WORK/os.out")"
	[ "$rc" = 0 ] || fail "rogue_sender $1 $2 exited $rc: $(cat "$WORK/os.out" "$WORK/rogue.err")"
	return "$rc"
}

# os_victim_holds EXPECTED: the victim log holds exactly EXPECTED.
os_victim_holds() {
	pool_data "$RPMA_DEVDAX" "$WORK/os.now" || {
		fail "pmempool dump failed"
		return
	}
	cmp -s "$WORK/os.now" "$1" ||
		fail "the victim log is not what was committed ($(stat -c %s "$WORK/os.now") vs $(stat -c %s "$1") bytes)"
}

# os_broken_offsets METHOD RLOG EXPECTED: a writer stores an offset past
# the end, before the start, below what it committed: each time its
# session ends, a line names the log, the value and the rule, the offset
# is put back, and the honest batch before it stays.
os_broken_offsets() {
	local m="$1" rlog="$2" expected="$3" scenario rule from
	for scenario in offset-past-end offset-before-start offset-backwards; do
		case $scenario in
		offset-past-end) rule="past the data range's end" ;;
		offset-before-start) rule="before the data range's start" ;;
		offset-backwards) rule="below the offset already committed" ;;
		esac
		start_case "$m: $scenario: the writer ended, the offset put back, the receiver serving"
		from=$(($(wc -l <"$rlog") + 1))
		if os_rogue "$scenario" "$m"; then
			printf '%s' "$ONE_SIDED_CHUNK" >>"$expected"
		fi
		kill -0 "$RECV_PID" 2>/dev/null || fail "receiver died: $(tail -n 20 "$rlog")"
		tail -n +"$from" "$rlog" >"$WORK/slice"
		grep -q "log victim: sender .* stored write offset [0-9]*, $rule (.*); its session is ended and the write offset put back" "$WORK/slice" ||
			fail "no line names the log, the value and the rule: $(cat "$WORK/slice")"
		os_victim_holds "$expected"
		end_case
	done
}

# os_self_test_found LOST KEPT: after a self-test's cut the victim log
# ($WORK/os.now) must be LOST, what the persists left out lose; KEPT, what
# was committed, means the case it tests could not fail.
os_self_test_found() {
	if cmp -s "$WORK/os.now" "$1"; then
		log "found: the victim log holds $(stat -c %s "$1") bytes, not the $(stat -c %s "$2") committed"
	elif cmp -s "$WORK/os.now" "$2"; then
		fail "the cut kept what was committed with those persists left out: the case above cannot fail"
	else
		fail "the victim log is neither what the loss leaves nor what was committed: $(stat -c %s "$WORK/os.now") bytes"
	fi
}

# os_floor_cut METHOD OPTS SKIP: a fresh victim log on the device-DAX, its
# receiver under the model (SKIP's persists left out); a writer commits a
# batch, then, with the receiver stopped, stores an offset below it and
# makes it persistent itself, and goes; the PMem is cut with that word as
# the writer left it (the model cannot see the device's persists: the
# restore keeps the word, --keep-word). The receiver then opens the pool
# again (its log in $WORK/os.after) and the victim's content is dumped to
# $WORK/os.now. Returns 1 when the case could not run.
os_floor_cut() {
	local m=$1 opts=$2 skip=$3 rc=0 pid sync=$WORK/os-sync out
	python3 -c 'import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 2 << 20)
m[:] = bytes(2 << 20)' "$RPMA_DEVDAX"
	rm -rf "$WORK/shadow" "$sync"
	mkdir -p "$WORK/shadow" "$sync"
	MODEL_DEVICE=1 MODEL_RECV_LOG=$WORK/os.floor model_recv "$skip" --create 64M \
		--log "victim=$RPMA_DEVDAX$opts" || {
		fail "the receiver did not start: $(cat "$WORK/os.floor")"
		return 1
	}
	ROGUE_SYNC_DIR=$sync timeout 120 "$ROGUE" offset-backwards-at-cut "$RECV_IP/victim" "$m" \
		>"$WORK/os.out" 2>"$WORK/rogue.err" &
	pid=$!
	for _ in $(seq 600); do
		[ -e "$sync/stopped" ] || ! kill -0 "$pid" 2>/dev/null && break
		nap 0.1
	done
	# stopped, the receiver never sees the word the writer stores now
	[ -e "$sync/stopped" ] && kill -STOP "$RECV_PID" && touch "$sync/stopped.go"
	wait "$pid" || rc=$?
	log "$(cat "$WORK/os.out")"
	kill -KILL "$RECV_PID" 2>/dev/null
	wait_recv
	[ "$rc" = 0 ] || {
		fail "rogue_sender offset-backwards-at-cut $m exited $rc: $(cat "$WORK/os.out" "$WORK/rogue.err")"
		return 1
	}
	out=$("$SHADOW_RESTORE" --keep-word "$WORK/shadow" 2>&1) || {
		fail "the restore: $out"
		return 1
	}
	log "$out"
	start_recv "$WORK/os.after" --log "victim=$RPMA_DEVDAX$opts" &&
		wait_for "$WORK/os.after" "serving log victim" 60 "$RECV_PID" || {
		fail "the receiver did not open the pool after the cut: $(cat "$WORK/os.after")"
		kill -TERM "$RECV_PID" 2>/dev/null
		wait_recv
		return 1
	}
	kill -TERM "$RECV_PID"
	wait_recv
	pool_consistent "$RPMA_DEVDAX" || fail "the pool is not consistent after the cut: $(cat "$WORK/check")"
	pool_data "$RPMA_DEVDAX" "$WORK/os.now" || fail "pmempool dump failed"
}

# os_floor_cases METHOD OPTS: a word a writer stored below the committed
# end and made persistent just before a cut is put back to the floor at
# the next open; with the floor's persists left out of the model, the same
# cut loses the batch's tail (the test of the test).
os_floor_cases() {
	local m=$1 opts=$2
	start_case "$m: a word below the committed end, persistent at a cut: the next open puts back the floor"
	if os_floor_cut "$m" "$opts" none; then
		printf '%s' "$ONE_SIDED_CHUNK" >"$WORK/os.floor.want"
		grep -q "its write offset [0-9]* is below the offset already committed .*; putting back [0-9]*" "$WORK/os.after" ||
			fail "no line says the word was put back: $(cat "$WORK/os.after")"
		cmp -s "$WORK/os.now" "$WORK/os.floor.want" ||
			fail "the victim log holds $(stat -c %s "$WORK/os.now") bytes, not the $(stat -c %s "$WORK/os.floor.want") committed"
	fi
	end_case
	start_case "$m: self-test: the floor's persists left out, the same cut loses the batch's tail"
	if os_floor_cut "$m" "$opts" floor; then
		head -c $((${#ONE_SIDED_CHUNK} - 8)) "$WORK/os.floor.want" >"$WORK/os.floor.lost"
		os_self_test_found "$WORK/os.floor.lost" "$WORK/os.floor.want"
	fi
	end_case
}

# one_sided_run METHOD [LOG OPTIONS]: the victim log on the device-DAX
# (METHOD's writers store its offset), another on a plain file.
one_sided_run() {
	local m="$1" opts="${2:+,$2}" rlog="$WORK/recv.os.$1.log"
	local expected="$WORK/os.expected" other="$WORK/os-other.pool" rc
	start_case "$m: a receiver with a log on the device-DAX and another"
	rm -rf "$WORK/shadow"
	mkdir -p "$WORK/shadow"
	if ! MODEL_DEVICE=1 MODEL_RECV_LOG=$rlog model_recv none --create 64M \
		--metrics-file "$WORK/os.prom" --metrics-interval 1s \
		--log "victim=$RPMA_DEVDAX$opts" --log "other=$other"; then
		fail "receiver did not start: $(cat "$rlog")"
		end_case
		return
	fi
	head -c 64K /dev/urandom >"$expected"
	rc=0
	timeout 60 "$SEND" --truncate=in-place --method "$m" "$RECV_IP/victim" "$expected" 2>"$WORK/os.send" || rc=$?
	[ "$rc" = 0 ] || fail "rpma-send --method $m: exit $rc: $(cat "$WORK/os.send")"
	end_case

	head -c 16M /dev/urandom >"$WORK/os-other.in"
	FEED_PAUSE=0.3 start_fed_sender "$WORK/os-other.in" --truncate=in-place "$RECV_IP/other"
	os_broken_offsets "$m" "$rlog" "$expected"

	start_case "$m: stale-keys-reader: a taken-over writer's old keys reach nothing"
	os_rogue stale-keys-reader "$m" && printf '%s' "$ONE_SIDED_CHUNK" >>"$expected"
	os_victim_holds "$expected"
	nap 1.5 # a metrics interval
	grep -q "^rpma_recv_offsets_put_back_total{log=\"victim\",.*} 3$" "$WORK/os.prom" ||
		fail "the metrics file does not count 3: $(grep offsets_put_back "$WORK/os.prom")"
	grep -q "^rpma_recv_offsets_put_back_total{log=\"other\",.*} 0$" "$WORK/os.prom" ||
		fail "the other log counts some: $(grep offsets_put_back "$WORK/os.prom")"
	end_case

	# its input ends here, after the scenarios, and it ends exact
	start_case "$m: the other log's writer was undisturbed"
	kill -0 "$SEND_PID" 2>/dev/null ||
		fail "the other log's writer ended before the scenarios did: give it a longer input"
	end_feed "$WORK/os-other.in" "$WORK/os-other.fed"
	reap "$SEND_PID"
	[ "$REAP_RC" = 0 ] || fail "the other log's writer exited $REAP_RC: $(cat "$WORK/send.log")"
	end_case

	# The grant after an unflushed offset reports it, persistent: a cut of
	# the PMem right after (the receiver killed -9, the pools put back as
	# the persistence model says) leaves the word covering the batch. The
	# model takes the writer's bytes as the device made them persistent,
	# up to the word the receiver persists (docs/testing.md).
	start_case "$m: unflushed-offset: the next grant reports it; a cut of the PMem after it keeps it"
	if os_rogue unflushed-offset "$m"; then
		kill -KILL "$RECV_PID" 2>/dev/null
		wait_recv
		printf '%s' "$ONE_SIDED_CHUNK" >>"$expected"
		grep -q "granted write offset [0-9]*" "$WORK/os.out" || fail "no granted offset: $(cat "$WORK/os.out")"
		out=$("$SHADOW_RESTORE" "$WORK/shadow" 2>&1) || fail "the restore: $out"
		log "$out"
		check_pool "$RPMA_DEVDAX" "$expected"
		check_pool "$other" "$WORK/os-other.fed"
	else
		kill -TERM "$RECV_PID" 2>/dev/null
		wait_recv
	fi
	end_case

	# Test the test: with the receiver's persists of the word left out of
	# the model, the same cut must lose that batch.
	start_case "$m: self-test: the word's persists left out, a cut after an unflushed offset loses its batch"
	if MODEL_DEVICE=1 MODEL_RECV_LOG=$rlog.skip model_recv word --log "victim=$RPMA_DEVDAX$opts" &&
		os_rogue unflushed-offset "$m"; then
		kill -KILL "$RECV_PID" 2>/dev/null
		wait_recv
		"$SHADOW_RESTORE" "$WORK/shadow" >/dev/null || fail "the restore failed"
		pool_data "$RPMA_DEVDAX" "$WORK/os.now" || fail "pmempool dump failed"
		{ cat "$expected" && printf '%s' "$ONE_SIDED_CHUNK"; } >"$WORK/os.kept"
		os_self_test_found "$expected" "$WORK/os.kept"
	else
		fail "the self-test's receiver or rogue failed: $(tail -n 3 "$rlog.skip")"
		kill -TERM "$RECV_PID" 2>/dev/null
		wait_recv
	fi
	end_case

	os_floor_cases "$m" "$opts"
}
