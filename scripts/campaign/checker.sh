# shellcheck shell=bash
# The campaign's checker (scripts/campaign/guest): judges every round as it
# ends and the whole history at the end. A violation is written with the
# faults that came before it; the run then goes on. Uses from the guest:
# RUN, the STREAM_* tables, hist, pool_data (scripts/lib.sh).

# violation TEXT: one violation, with the last faults before it.
violation() {
	{
		printf 'VIOLATION at %s: %s\n' "$EPOCHREALTIME" "$*"
		echo "  the last faults before it (seconds since the epoch):"
		grep ' fault ' "$RUN/history" 2>/dev/null | tail -n 8 | sed 's/^/    /'
	} >>"$RUN/violations"
	hist "VIOLATION: $*"
}

# reported_committed LOG: the most input bytes a sender's stamped stderr
# says were committed: exact counts from its messages and --stats, and
# what a --progress line's rounded size at least means.
reported_committed() {
	awk '
	function seen(v) { if (v > max) max = v }
	/ replica=/ { next } # one replica'"'"'s own figures
	{
		for (i = 3; i <= NF; i++) {
			if ($i ~ /^bytes=[0-9]+$/) seen(substr($i, 7) + 0)
			if ($i == "input" && $(i - 1) ~ /^[0-9]+$/) seen($(i - 1) + 0)
			if ($i == "committed" && $(i + 1) == "input" && $(i - 1) ~ /^[0-9]+$/)
				seen($(i - 1) + 0)
			if ($i == "committed,") {
				u = $(i - 1); v = $(i - 2) + 0
				if (u == "B") seen(v)
				else if (u == "KiB") seen((v - 0.05) * 1024)
				else if (u == "MiB") seen((v - 0.05) * 1048576)
				else if (u == "GiB") seen((v - 0.05) * 1073741824)
			}
		}
	}
	END { printf "%d\n", max }' "$1"
}

# is_prefix A B: file A is a byte prefix of file B.
is_prefix() {
	local a b
	a=$(stat -c %s "$1") b=$(stat -c %s "$2")
	[ "$a" -le "$b" ] && cmp -s -n "$a" "$1" "$2"
}

# log_data NAME POOL OUT: the log's content: its archive's files in name
# order (a stream with an archive), then the pool's bytes.
log_data() {
	local arch=${STREAM_ARCHIVE[$1]:-}
	pool_data "$2" "$3.pool" || return 1
	if [ -n "$arch" ]; then
		# shellcheck disable=SC2046
		cat $(ls "$arch"/*.log 2>/dev/null | sort) "$3.pool" >"$3"
	else
		mv "$3.pool" "$3"
	fi
}

# check_pool_of NAME ROUND RC POOL IN PREV REPORTED: one log after a round.
# Prints "holds" when it holds what was reported committed, "old" when it
# still holds the previous round's input (its truncation never came).
check_pool_of() {
	local name=$1 round=$2 rc=$3 pool=$4 in=$5 prev=$6 reported=$7
	local out="$RUN/dump-$name" len tries=0
	# a receiver the nemesis restarts holds libpmemlog's lock a moment
	until log_data "$name" "$pool" "$out" 2>"$RUN/dump-$name.err"; do
		tries=$((tries + 1))
		[ "$tries" -lt 10 ] || {
			violation "$name round $round: cannot read $pool: $(cat "$RUN/dump-$name.err")"
			return
		}
		nap 1
	done
	len=$(stat -c %s "$out")
	if is_prefix "$out" "$in"; then
		[ "$len" -lt "$reported" ] || echo holds
		[ "$rc" != 0 ] || [ "$len" = "$(stat -c %s "$in")" ] ||
			violation "$name round $round: the sender exited 0, but $pool holds $len of $(stat -c %s "$in") bytes"
	elif [ "$rc" != 0 ] && [ "$reported" = 0 ] && [ -e "$prev" ] && is_prefix "$out" "$prev"; then
		echo old
	else
		violation "$name round $round: $pool ($len bytes) is not a prefix of its input: $(cmp "$out" "$in" 2>&1 | head -n 1)"
	fi
}

# check_round NAME ROUND RC KILLED FULL IN LOG: a round's logs against its
# input and what its sender reported, and its exit status.
check_round() {
	local name=$1 round=$2 rc=$3 killed=$4 full=$5 in=$6 log=$7
	local pools k reported holders=0 old=0 verdict
	read -r -a pools <<<"${STREAM_POOLS[$name]}"
	k=${STREAM_QUORUM[$name]}
	reported=$(reported_committed "$log")
	for pool in "${pools[@]}"; do
		verdict=$(check_pool_of "$name" "$round" "$rc" "$pool" "$in" \
			"$RUN/in-$name-$((round - 1))" "$reported")
		[ "$verdict" != holds ] || holders=$((holders + 1))
		[ "$verdict" != old ] || old=$((old + 1))
	done
	[ "$holders" -ge "$k" ] || [ "$old" -gt 0 ] ||
		violation "$name round $round: its sender reported $reported bytes committed; $holders of ${#pools[@]} logs hold them (want $k)"
	case "$rc" in
	0) ;;
	4) [ "$full" = 1 ] && [ -z "${STREAM_ARCHIVE[$name]:-}" ] ||
		violation "$name round $round: 'remote log full' on a round that fits (or rotates): $(grep -m1 full "$log")" ;;
	6) [ "$killed" = 1 ] && [ "$old" -gt 0 ] ||
		violation "$name round $round: exit 6: $(grep -m1 'prefix\|hold' "$log")" ;;
	7) [ "$k" -lt "${#pools[@]}" ] || violation "$name round $round: exit 7 without replicas" ;;
	137) [ "$killed" = 1 ] || violation "$name round $round: its sender was killed by no one" ;;
	*) violation "$name round $round: its sender exited $rc: $(grep -v ' committed, ' "$log" | tail -n 2 | cut -c 1-300)" ;;
	esac
	[ "$full" = 0 ] || [ -n "${STREAM_ARCHIVE[$name]:-}" ] || [ "$rc" != 0 ] ||
		violation "$name round $round: more than the log holds, yet exit 0"
}

# check_reconnects LOG...: after the last fault healed, a sender that lost
# its link is back within BOUND seconds (the receiver's peer timeout, the
# sender's longest back-off, a connect, and the test bed's slowness).
check_reconnects() {
	local log
	for log; do
		awk -v bound="$RECONNECT_BOUND" -v hist="$RUN/history" '
		BEGIN { while ((getline l < hist) > 0) { split(l, f, " "); if (f[2] == "healed") heal[++n] = f[1] + 0 } }
		/ lost after committing / { for (i = 1; i <= NF; i++) if ($i == "to") lost[$(i + 1)] = $1 + 0 }
		/ reconnected to / {
			for (i = 1; i <= NF; i++) if ($i == "to") who = $(i + 1)
			back = $1 + 0; from = lost[who]
			for (j = 1; j <= n; j++) if (heal[j] <= back && heal[j] > from) from = heal[j]
			if (from > 0 && back - from > bound)
				printf "%s came back %.1f s after the last fault before it ended (at most %d)\n", who, back - from, bound
		}' "$log"
	done
}

# recv_sample NAME: "RSS_KIB FDS" of a receiver.
recv_sample() {
	local pid rss=0 line fds
	pid=$(recv_pid "$1")
	while read -r line; do
		[[ $line != VmRSS:* ]] || rss=${line//[!0-9]/}
	done </proc/"$pid"/status
	fds=(/proc/"$pid"/fd/*)
	echo "$rss ${#fds[@]}"
}

# check_reader NAME ROUND RRC WRC OUT IN: a --fetch --follow reader of the
# round's log, stopped by SIGTERM (exit 0) once its writer ended with WRC:
# it printed a byte prefix of the input, nothing skipped or doubled, and
# all of it when the writer left the log equal to its input. RRC "none":
# no reader ran (its writer never committed a byte).
check_reader() {
	local name=$1 round=$2 rrc=$3 wrc=$4 out=$5 in=$6 len
	[ "$rrc" != none ] || return 0
	[ "$rrc" = 0 ] || violation "$name round $round: its reader exited $rrc: $(tail -n 2 "$out.log" 2>/dev/null | cut -c 1-300)"
	[ -e "$out" ] || : >"$out"
	len=$(stat -c %s "$out")
	if ! is_prefix "$out" "$in"; then
		violation "$name round $round: its reader's $len bytes are not a prefix of the input: $(cmp "$out" "$in" 2>&1 | head -n 1)"
	elif [ "$wrc" = 0 ] && [ "$len" != "$(stat -c %s "$in")" ]; then
		violation "$name round $round: its reader has $len of $(stat -c %s "$in") bytes after its writer ended"
	fi
}
