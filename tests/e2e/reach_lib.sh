# Who can reach a log and until when (rpma-recv(1) SECURITY): a receiver
# held at each rotation's seal (RPMA_RECV_STOP_AT=archive-sealed: stopped,
# or for the takeover only its archiver, RPMA_RECV_HOLD_FILE, so that the
# log's thread answers the takeover while the seal waits) serving a
# log on the device-DAX with an archive and an auth key; a one-sided
# writer (apm, flush) that commits past the seal while it waits, a
# takeover that answers its challenge then, a reader's key used after the
# pool started over; and the receiver's regions over the whole data range
# (the spare registered for the next apm or flush writer) tried by their
# own keys through a gpspm writer's queue pair and a peer's in its auth
# challenge (tests/rogue: rogue_seal.c, rogue_reach.c). Each case saw its
# scenario fail with its fix taken out. Sourced by hostile.sh (apm) and
# flush.sh (flush), after lib.sh; ROGUE is the rogue_sender.

# rs_at_seal HELD SINCE: the receiver reached the seal within 30 s: its
# archiver holds there (HELD=1: a "holding at" line after line SINCE of
# its log) or the whole process stopped.
rs_at_seal() {
	local end=$((SECONDS + 30))
	[ "$1" = 1 ] || {
		wait_stopped "$RECV_PID" 30
		return
	}
	until tail -n +"$2" "$RS_RLOG" | grep -q "holding at archive-sealed"; do
		kill -0 "$RECV_PID" 2>/dev/null && [ "$SECONDS" -lt "$end" ] || return 1
		nap 0.05
	done
}

# rs_sync_answer PID HELD SINCE: answers the rogue's sync points
# (ROGUE_SYNC_DIR): "sealing" once the receiver is at the seal (see
# rs_at_seal), "acted" by letting it go on; returns when the rogue PID
# ended (1 when a step did not come).
rs_sync_answer() {
	local pid=$1 end
	end=$((SECONDS + 60))
	while [ ! -e "$RS_SYNC/sealing" ]; do
		kill -0 "$pid" 2>/dev/null || return 0 # it had nothing to seal
		[ "$SECONDS" -lt "$end" ] || return 1
		nap 0.05
	done
	rs_at_seal "$2" "$3" || {
		fail "the receiver did not stop at the seal: $(tail -n 5 "$RS_RLOG")"
		return 1
	}
	touch "$RS_SYNC/sealing.go"
	end=$((SECONDS + 60))
	while [ ! -e "$RS_SYNC/acted" ]; do
		kill -0 "$pid" 2>/dev/null || break
		[ "$SECONDS" -lt "$end" ] || break
		nap 0.05
	done
	rs_go_on
	touch "$RS_SYNC/acted.go"
}

# rs_go_on: the receiver goes on from the seal, held or stopped.
rs_go_on() {
	rm -f "$RS_HOLD"
	kill -CONT "$RECV_PID" 2>/dev/null
}

# rs_rogue SCENARIO ARG [HELD]: rogue_sender SCENARIO against the log, its
# sync points answered, must find the receiver safe (exit 0). HELD=1: only
# the receiver's archiver waits at the seal (RPMA_RECV_HOLD_FILE), its log's
# thread goes on answering.
rs_rogue() {
	local rc=0 pid since
	rm -rf "$RS_SYNC"
	mkdir -p "$RS_SYNC"
	since=$(($(wc -l <"$RS_RLOG") + 1))
	[ "${3:-0}" = 1 ] && touch "$RS_HOLD"
	ROGUE_SYNC_DIR=$RS_SYNC ROGUE_AUTH_KEY=$RS_KEY \
		timeout 150 "$ROGUE" "$1" "$RECV_IP/vault" "$2" >"$WORK/rs.out" 2>"$WORK/rs.err" &
	pid=$!
	rs_sync_answer "$pid" "${3:-0}" "$since" || rs_go_on
	wait "$pid" || rc=$?
	log "$(cat "$WORK/rs.out")"
	[ "$rc" = 0 ] || fail "rogue_sender $1 $2 exited $rc: $(cat "$WORK/rs.out" "$WORK/rs.err")"
	kill -0 "$RECV_PID" 2>/dev/null || fail "the receiver died: $(tail -n 20 "$RS_RLOG")"
}

# reach_run METHOD [LOG OPTIONS]: the cases above for METHOD's writers.
reach_run() {
	local m=$1 opts="${2:+,$2}"
	RS_RLOG="$WORK/recv.reach.$m.log" RS_SYNC="$WORK/rs-sync" RS_KEY="$WORK/rs.key"
	RS_HOLD="$WORK/rs-hold"
	rm -f "$RS_HOLD"
	head -c 32 /dev/urandom >"$RS_KEY"
	chmod 600 "$RS_KEY"
	rm -rf "$WORK/rs-archive"
	mkdir -p "$WORK/rs-archive"
	start_case "$m: a keyed log with an archive, its receiver held at each seal"
	if ! RPMA_RECV_STOP_AT=archive-sealed RPMA_RECV_HOLD_FILE=$RS_HOLD start_recv "$RS_RLOG" --create 64M \
		--log "vault=$RPMA_DEVDAX,archive=$WORK/rs-archive,auth-key=$RS_KEY$opts"; then
		fail "receiver did not start: $(cat "$RS_RLOG")"
		end_case
		return
	fi
	end_case

	start_case "$m: seal-commit: a writer's offset past the seal while it waits ends its session, nothing is dropped"
	local from=$(($(wc -l <"$RS_RLOG") + 1))
	rs_rogue seal-commit "$m"
	tail -n +"$from" "$RS_RLOG" | grep -q "stored write offset [0-9]*, moved while the log was sealed for its rotation" ||
		fail "no line names the offset stored in the seal: $(tail -n +"$from" "$RS_RLOG")"
	end_case

	start_case "$m: seal-takeover: a takeover answering its challenge while the seal waits is refused"
	rs_rogue seal-takeover "$m" 1
	end_case

	start_case "$m: reader-after-rotation: a reader's key to the pool ends when the pool starts over"
	rs_rogue reader-after-rotation "$m"
	end_case

	local who
	for who in gpspm challenge; do
		start_case "$m: spare-key $who: the region kept for the next $m writer takes no WRITE or FLUSH"
		rs_rogue spare-key "$who"
		end_case
	done

	kill -TERM "$RECV_PID" 2>/dev/null
	wait_recv
}
