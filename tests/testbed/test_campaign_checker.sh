#!/bin/bash
# The fault campaign's checker (scripts/campaign/checker.sh) on made-up
# histories, on the host: what a sender's log says was committed, the
# verdict on a round's logs against its input (prefix, equal on exit 0,
# held on K replicas, a log never truncated, exit codes), and senders that
# came back late after the last fault healed. Each case holds a fault the
# checker must see, or none.
#   test_campaign_checker.sh SOURCE
set -u
SRC="$1"
. "$(dirname "$0")/../host_check.sh"
RUN="$tmp/run"
mkdir -p "$RUN"
: >"$RUN/history"
hist() { printf '%s %s\n' "$EPOCHREALTIME" "$*" >>"$RUN/history"; }
# the pools here are the bytes themselves: a "dump" is a copy
pool_data() { cp "$1" "$2"; }
. "$SRC/scripts/campaign/checker.sh"

violations() { grep -c '^VIOLATION' "$RUN/violations" 2>/dev/null || true; }
# judged NAME WANT COMMAND...: COMMAND adds WANT violations.
judged() {
	local name=$1 want=$2 before after
	shift 2
	before=$(violations)
	"$@" >/dev/null
	after=$(violations)
	check "$name" "$(ok [ $((after - before)) = "$want" ])" \
		"$((after - before)) violations, want $want: $(tail -n 3 "$RUN/violations" 2>/dev/null)"
}

# --- what a sender's log says was committed
cat >"$tmp/send.log" <<'LOG'
1.0 rpma-send: 1.2 MiB committed, 0.1 MB/s, 0:12 elapsed
2.0 rpma-send: 640.0 KiB committed, 0.1 MB/s, 0:05 elapsed rpma-send: connection to h:1/a lost after committing 851968 input bytes; reconnecting
3.0 rpma-send: reconnected to h:1/a at 851968 committed input bytes; sending 0 uncommitted bytes again
4.0 rpma-send: stats: replica=h:2 state=active bytes=99999999 lag=0
LOG
# 1.2 MiB is at least 1.15 MiB: 1205862 bytes
check "progress counts as at least its rounded size" \
	"$(ok [ "$(reported_committed "$tmp/send.log")" = 1205862 ])" \
	"got $(reported_committed "$tmp/send.log")"
echo "5.0 rpma-send: stats: bytes=2000000 batches=3 seconds=1" >>"$tmp/send.log"
check "the stats line's bytes" "$(ok [ "$(reported_committed "$tmp/send.log")" = 2000000 ])" \
	"got $(reported_committed "$tmp/send.log")"
echo "6.0 rpma-send: remote log full: committed 3000000 input bytes; the rest" >>"$tmp/send.log"
check "the log-full line's count" "$(ok [ "$(reported_committed "$tmp/send.log")" = 3000000 ])" \
	"got $(reported_committed "$tmp/send.log")"

# --- rounds: an input, logs as files
declare -A STREAM_POOLS=([one]="$tmp/p1" [rep]="$tmp/r1 $tmp/r2 $tmp/r3")
declare -A STREAM_QUORUM=([one]=1 [rep]=2)
declare -A STREAM_ARCHIVE=()
# No X in it: the case "a byte changed" writes one.
head -c 100000 /dev/urandom | tr X Y >"$RUN/in-one-2"
head -c 100000 /dev/urandom >"$RUN/in-one-1"
in="$RUN/in-one-2"
echo "1 rpma-send: stats: bytes=60000 batches=1" >"$tmp/r.log"
: >"$tmp/none.log"
head -c 60000 "$in" >"$tmp/p1"
judged "a prefix that holds what was reported, sender killed" 0 check_round one 2 137 1 0 "$in" "$tmp/r.log"
head -c 50000 "$in" >"$tmp/p1"
judged "fewer bytes than reported committed" 1 check_round one 2 137 1 0 "$in" "$tmp/r.log"
cp "$in" "$tmp/p1"
printf 'X' | dd of="$tmp/p1" bs=1 seek=777 conv=notrunc status=none
# (not a prefix, and so not holding what was reported either)
judged "a byte changed" 2 check_round one 2 137 1 0 "$in" "$tmp/r.log"
check "the first differing byte is named" "$(ok grep -q 'byte 778' "$RUN/violations")" "$(tail -n 3 "$RUN/violations")"
head -c 60000 "$in" >"$tmp/p1"
judged "exit 0 with a shorter log" 1 check_round one 2 0 0 0 "$in" "$tmp/r.log"
cp "$in" "$tmp/p1"
judged "exit 0, equal" 0 check_round one 2 0 0 0 "$in" "$tmp/r.log"
judged "exit 4 on a round that fits" 1 check_round one 2 4 0 0 "$in" "$tmp/r.log"
judged "exit 3: a sender that gave up" 1 check_round one 2 3 0 0 "$in" "$tmp/r.log"
judged "exit 137 and nobody killed it" 1 check_round one 2 137 0 0 "$in" "$tmp/r.log"
head -c 70000 "$RUN/in-one-1" >"$tmp/p1"
judged "killed before its truncation: the last round's bytes, nothing reported" 0 \
	check_round one 2 6 1 0 "$in" "$tmp/none.log"
judged "the last round's bytes, yet bytes reported committed" 3 \
	check_round one 2 6 1 0 "$in" "$tmp/r.log"
head -c 80000 "$in" >"$tmp/r1"
head -c 60000 "$in" >"$tmp/r2"
head -c 10000 "$in" >"$tmp/r3"
# --- a log with an archive: its files, then its pool, are the log
STREAM_POOLS[arc]="$tmp/pa" STREAM_QUORUM[arc]=1 STREAM_ARCHIVE[arc]="$tmp/arc"
mkdir -p "$tmp/arc"
head -c 30000 "$in" >"$tmp/arc/arc-00000000000000000000.log"
tail -c +30001 "$in" | head -c 40000 >"$tmp/arc/arc-00000000000000030000.log"
tail -c +70001 "$in" >"$tmp/pa"
judged "archive and pool: the whole input, exit 0" 0 check_round arc 2 0 0 0 "$in" "$tmp/r.log"
judged "a round larger than the pool rotates: exit 0 is right" 0 check_round arc 2 0 0 1 "$in" "$tmp/r.log"
judged "a log that rotates is never 'full'" 1 check_round arc 2 4 0 1 "$in" "$tmp/r.log"
rm "$tmp/arc/arc-00000000000000030000.log"
judged "a file of the archive missing" 2 check_round arc 2 0 0 0 "$in" "$tmp/r.log"

judged "replicas: two of three hold what was reported (quorum 2)" 0 check_round rep 2 7 0 0 "$in" "$tmp/r.log"
head -c 50000 "$in" >"$tmp/r2"
judged "replicas: one of three holds it" 1 check_round rep 2 7 0 0 "$in" "$tmp/r.log"

# --- back after the faults healed
RECONNECT_BOUND=20
printf '100.0 fault stop_recv x\n110.0 healed stop_recv x\n' >"$RUN/history"
cat >"$tmp/late.log" <<'LOG'
105.0 rpma-send: connection to h:1/a lost after committing 5 input bytes; reconnecting
125.0 rpma-send: reconnected to h:1/a at 5 committed input bytes; sending 0 uncommitted bytes again
140.0 rpma-send: connection to h:1/a lost after committing 9 input bytes; reconnecting
171.0 rpma-send: reconnected to h:1/a at 9 committed input bytes; sending 0 uncommitted bytes again
LOG
late=$(check_reconnects "$tmp/late.log")
check "one sender back 31 s after its loss with no fault since is late" \
	"$(ok [ "$(grep -c . <<<"$late")" = 1 ])" "$late"
check "the late one is named with its delay" "$(ok grep -q 'h:1/a came back 31.0 s' <<<"$late")" "$late"

# --- a --fetch --follow reader of a round
head -c 60000 "$in" >"$tmp/read"
judged "a reader's prefix, writer cut off" 0 check_reader one 2 0 137 "$tmp/read" "$in"
judged "a reader's prefix, writer done: it fell behind" 1 check_reader one 2 0 0 "$tmp/read" "$in"
cp "$in" "$tmp/read"
judged "a reader with the whole input" 0 check_reader one 2 0 0 "$tmp/read" "$in"
cat "$in" "$in" >"$tmp/read"
judged "a reader that printed bytes twice" 1 check_reader one 2 0 0 "$tmp/read" "$in"
{ head -c 1000 "$in"; tail -c +2001 "$in"; } >"$tmp/read"
judged "a reader that skipped bytes" 1 check_reader one 2 0 3 "$tmp/read" "$in"
check "the skip is named" "$(ok grep -q 'reader.s [0-9]* bytes are not a prefix of the input: .* differ: byte' "$RUN/violations")" "$(tail -n 3 "$RUN/violations")"
head -c 100 "$in" >"$tmp/read"
judged "a reader that failed" 1 check_reader one 2 6 3 "$tmp/read" "$in"
rm -f "$tmp/read"
judged "no reader ran" 0 check_reader one 2 none 0 "$tmp/read" "$in"
judged "a reader that printed nothing, writer cut off" 0 check_reader one 2 0 137 "$tmp/read" "$in"

summary
