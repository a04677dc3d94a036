# shellcheck shell=bash
# The campaign's streams (scripts/campaign/guest): each stream ships round
# after round of random input into its log(s) with --retry, paced, while
# the nemesis strikes; a sender the nemesis kills is followed by one with
# --resume where the stream allows it. After each round, check_round
# (checker.sh) judges what the logs hold. Uses from the guest: SEND, RUN,
# SEED, PACE, the STREAM_* tables, hist, stamp, nap.

# pace FILE SECONDS: FILE on stdout in 64 KiB pieces, SECONDS apart, and
# at once from when the run stops (the streams finish their rounds).
pace() {
	local n i
	n=$((($(stat -c %s "$1") + 65535) / 65536))
	for ((i = 0; i < n; i++)); do
		dd if="$1" bs=64K skip="$i" count=1 status=none 2>/dev/null || return
		[ -e "$RUN/stop" ] || nap "$2"
	done
}

# send_run NAME LOG ARGS...: rpma-send ARGS as the sender of stream NAME
# (its pid in send-NAME.pid for the nemesis, its stamped stderr appended to
# LOG); sets RC, and KILLED when the nemesis killed it.
send_run() {
	local name=$1 log=$2 pid
	shift 2
	# <&0: a background job's stdin would otherwise be /dev/null
	"$SEND" "$@" <&0 2> >(stamp >>"$log") &
	pid=$!
	echo "$pid" >"$RUN/send-$name.pid"
	RC=0
	wait "$pid" || RC=$?
	rm -f "$RUN/send-$name.pid"
	KILLED=0
	if [ "$(cat "$RUN/send-$name.killed" 2>/dev/null)" = "$pid" ]; then
		KILLED=1
		rm -f "$RUN/send-$name.killed"
	fi
}

# round_size VAR NAME FULL: VAR is the bytes of input for a round of NAME:
# 1-4 MiB, or more than the log holds for a round that fills it. (Sets VAR:
# a draw in $(...) would not advance the sequence.)
round_size() {
	if [ "$3" = 1 ]; then
		printf -v "$1" '%d' $((STREAM_POOL_BYTES[$2] + (RANDOM % 1024 + 1) * 1024))
	else
		printf -v "$1" '%d' $(((RANDOM % 3072 + 1024) * 1024))
	fi
}

# reader_start NAME ROUND: for a stream in STREAM_READER, a --fetch
# --follow --retry reader of the round's log, started once the round's
# sender reported a byte committed (its truncation is behind it: a reader
# of the log before would see it replaced), reading into
# $RUN/read-NAME-ROUND; its pid in READER_PID (empty: none).
reader_start() {
	local name=$1 round=$2 out="$RUN/read-$1-$2"
	READER_PID=
	[ -n "${STREAM_READER[$name]:-}" ] || return 0
	rm -f "$out" "$out.log"
	(
		# stopped before it began (its writer never said it committed
		# a byte): no reader ran; the reader itself gets SIGTERM's
		# default back with exec
		trap 'exit 99' TERM
		i=0
		until grep -q ' committed, ' "$RUN/send-$name-$round.log" 2>/dev/null; do
			[ $((i += 1)) -le 600 ] || exit 99
			nap 0.1
		done
		exec "$SEND" --fetch --follow --retry 1000 \
			"${STREAM_READ_TARGET[$name]:-${STREAM_TARGET[$name]}}" "$out" 2> >(stamp >>"$out.log")
	) &
	READER_PID=$!
}

# reader_stop NAME ROUND WRC IN: once the writer ended with WRC, gives the
# reader up to 60 s (faults go on meanwhile) to catch up with a log that holds the whole input,
# stops it and has check_reader judge it.
reader_stop() {
	local name=$1 round=$2 out="$RUN/read-$1-$2" rrc=0 i
	[ -n "$READER_PID" ] || return 0
	for ((i = 0; i < 600 && $3 == 0; i++)); do
		[ "$(stat -c %s "$out" 2>/dev/null)" = "$(stat -c %s "$4")" ] && break
		kill -0 "$READER_PID" 2>/dev/null || break
		nap 0.1
	done
	kill -TERM "$READER_PID" 2>/dev/null
	wait "$READER_PID" || rrc=$?
	[ "$rrc" != 99 ] || rrc=none
	check_reader "$name" "$round" "$rrc" "$3" "$out" "$4"
	hist "reader $name $round: $(stat -c %s "$out" 2>/dev/null || echo 0) bytes, exit $rrc"
	rm -f "$out"
}

# stream_round NAME ROUND: one round of stream NAME; its verdict by
# check_round.
stream_round() {
	local name=$1 round=$2 full=0 in log size rc killed=0 fifo feeder tries note=
	# a round that overflows the log, now and then, where the log is small
	[ -z "${STREAM_POOL_BYTES[$name]:-}" ] || [ $((RANDOM % 4)) != 0 ] || full=1
	round_size size "$name" "$full"
	in="$RUN/in-$name-$round"
	log="$RUN/send-$name-$round.log"
	head -c "$size" /dev/urandom >"$in"
	[ "$full" = 0 ] || note=", more than the log holds"
	[ "$full" = 0 ] || [ -z "${STREAM_ARCHIVE[$name]:-}" ] || note=", more than its pool holds: it rotates"
	hist "round $name $round: $size bytes$note"
	fifo="$RUN/fifo-$name"
	rm -f "$fifo"
	mkfifo "$fifo"
	# a round that fills the log goes as fast as it can: it is long
	pace "$in" "$([ "$full" = 1 ] && echo 0 || echo "$PACE")" >"$fifo" &
	feeder=$!
	reader_start "$name" "$round"
	send_run "$name" "$log" --truncate=in-place --retry 1000 --progress=always --stats \
		${STREAM_OPTS[$name]} "${STREAM_TARGET[$name]}" - <"$fifo"
	rc=$RC killed=$KILLED
	kill "$feeder" 2>/dev/null
	wait "$feeder" 2>/dev/null
	tries=0
	while [ "$KILLED" = 1 ] && [ "${STREAM_RESUMABLE[$name]}" = 1 ] && [ "$tries" -lt 5 ]; do
		tries=$((tries + 1))
		hist "resume $name $round (try $tries)"
		send_run "$name" "$log" --resume --retry 1000 --stats \
			"${STREAM_TARGET[$name]}" "$in"
		rc=$RC
	done
	check_round "$name" "$round" "$rc" "$killed" "$full" "$in" "$log"
	reader_stop "$name" "$round" "$rc" "$in"
	note=
	[ "$killed" = 0 ] || note=" (its first sender killed)"
	hist "round $name $round ended: exit $rc$note"
}

# stream_loop NAME ID: rounds until $RUN/stop exists; its own random
# sequence, from the seed, so a replay ships the same sizes.
stream_loop() {
	local name=$1 round=0
	RANDOM=$((SEED * 7919 + $2))
	while [ ! -e "$RUN/stop" ]; do
		round=$((round + 1))
		stream_round "$name" "$round"
		# the previous round's input stays: a log the nemesis cut off
		# before it was truncated still holds it
		rm -f "$RUN/in-$name-$((round - 2))"
	done
	echo "$round" >"$RUN/rounds-$name"
}
