#!/bin/bash
# The fleet of issue 38 in the VM test bed, checked whole: one receiver
# serving SESSIONS logs on 2 MiB pool files, one rpma-load holding a
# session to each (a 100-byte line a second, under --retry), shipping for
# DURATION seconds; with KILL_AT, the receiver is killed -9 that many
# seconds into the shipping and started again, and every session comes
# back on its own. Afterwards every pool is read back: it holds exactly
# the lines its session says were committed, and that is every line it
# sent. Prints rpma-load's figures and each bound of the issue beside them;
# exits 1 if a line is missing or a bound is not met.
# With FLEET_ARCHIVE=1 every log rotates into an archive (one folder for
# all, rotate-at 10%): each pool is filled beforehand (fleet_pools.py
# fill) so that the lines fill it at its own moment of the run, the logs
# one after another; each log is then read back whole (archive and pool,
# rpma-recv --export) and must have rotated. FLEET_LINE sets the lines'
# size (100 bytes); FLEET_EMPTY=1 starts the pools empty instead, so that
# all fill within the same seconds (with 8 KiB lines 255 s in: the heavy
# case, measured in docs/performance.md).
#   scripts/vm-run --memory 8G -- tests/load/fleet.sh BUILD [SESSIONS [DURATION [KILL_AT]]]
# scripts/fleet runs it (long: not in the suite).
BUILD=$1
SESSIONS=${2:-1000}
DURATION=${3:-60}
KILL_AT=${4:-}
ARCHIVE=${FLEET_ARCHIVE:-}
LINE=${FLEET_LINE:-100}
EMPTY=${FLEET_EMPTY:-}
POOLS=$(dirname "$0")/fleet_pools.py
. "$(dirname "$0")/../e2e/lib.sh"
RECV_TIMEOUT=$((DURATION + 3600))

# key NAME: a value of rpma-load's result line
key() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" "$WORK/load.out"; }

# bound WHAT OK: one line per bound of the issue, and a failure if not met
bound() {
	if [ "$2" = 1 ]; then log "met: $1"; else fail "not met: $1"; fi
}

start_case "a fleet of $SESSIONS sessions on one receiver for $DURATION s${ARCHIVE:+, every log rotating into an archive}${KILL_AT:+, the receiver killed -9 after $KILL_AT s}: every line committed and present"
conf=$WORK/fleet.conf
mkdir -p "$WORK/archive"
# The archives on a file system of their own, as on a host (the pools fill
# half of the guest's tmpfs already): a thousand 2 MiB files and the
# stretches being written.
[ -z "$ARCHIVE" ] || mount -t tmpfs -o size=4G,mode=0755 fleet-archive "$WORK/archive" ||
	fail "cannot mount a tmpfs for the archives"
{
	printf 'max-senders = %d\n' "$((SESSIONS + 24))"
	for ((i = 0; i < SESSIONS; i++)); do
		printf '[f%d]\npool = %s/f%d.pool\ncreate = 2M\n' "$i" "$WORK" "$i"
		[ -z "$ARCHIVE" ] || printf 'archive = %s/archive\nrotate-at = 10%%\n' "$WORK"
	done
} >"$conf"
if [ -n "$ARCHIVE" ] && [ -z "$EMPTY" ]; then
	t0=$SECONDS
	python3 "$POOLS" fill "$WORK" "$SESSIONS" "$LINE" "$DURATION" >"$WORK/fill.out" 2>&1 ||
		fail "cannot fill the pools: $(tail -n 3 "$WORK/fill.out")"
	log "($(cat "$WORK/fill.out") in $((SECONDS - t0)) s)"
fi
t0=$SECONDS
# It serves each log as it opens (creates) it; the fleet starts once all
# are open.
if ! { start_recv "$WORK/recv.log" --config "$conf" ||
	wait_for "$WORK/recv.log" serving 1800 "$RECV_PID"; } ||
	! wait_for "$WORK/recv.log" "all logs opened" 3600 "$RECV_PID"; then
	fail "the receiver did not start: $(tail -n 3 "$WORK/recv.log")"
	end_case
	summary
	exit
fi
log "(the receiver serves $SESSIONS logs after $((SECONDS - t0)) s)"
# The lone sender ships 110 lines, one a second: rpma-load's p99 is the
# sample at floor(0.99 n), so under 101 commits it is the slowest one.
timeout $((DURATION + 1800)) "$LOAD" --sessions "$SESSIONS" --lone 110 --idle 10 --line-size "$LINE" \
	--duration "$DURATION" --retry 1000 --receiver-pid "$RECV_PID" \
	--report "$WORK/load.report" "$RECV_IP" f >"$WORK/load.out" 2>&1 &
load_pid=$!
if [ -n "$KILL_AT" ]; then
	# the lone phase, the others' connecting, the idle phase, then KILL_AT
	# (the receiver must be back before DURATION ends: about 0.2 s a pool
	# under TCG)
	wait_for "$WORK/load.out" "sessions connected in" $((SESSIONS + 600)) "$load_pid" ||
		fail "rpma-load never connected: $(tail -n 3 "$WORK/load.out")"
	sleep $((10 + KILL_AT))
	kill -9 "$RECV_PID"
	wait_recv
	t1=$(date +%s%3N)
	start_recv "$WORK/recv2.log" --config "$conf" ||
		wait_for "$WORK/recv2.log" serving 1800 "$RECV_PID" ||
		fail "the receiver did not start again: $(tail -n 3 "$WORK/recv2.log")"
	first_ms=$(($(date +%s%3N) - t1))
	wait_for "$WORK/recv2.log" "all logs opened" 1800 "$RECV_PID" ||
		fail "the restarted receiver did not open every log: $(tail -n 3 "$WORK/recv2.log")"
	all_ms=$(($(date +%s%3N) - t1))
	log "(killed -9; serving its first log again after $first_ms ms, all $SESSIONS after $all_ms ms: $(grep 'all logs opened' "$WORK/recv2.log"))"
	# issue 73's bounds for 1000 logs under TCG
	bound "a restarted receiver serves its first log within 2 s ($first_ms ms)" \
		"$([ "$first_ms" -le 2000 ] && echo 1)"
	bound "... and all $SESSIONS within 15 s ($all_ms ms)" \
		"$([ "$all_ms" -le 15000 ] && echo 1)"
fi
rc=0
wait "$load_pid" || rc=$?
log "$(grep -v '^rpma-load: result' "$WORK/load.out" | tail -n 12)"
log "$(grep '^rpma-load: result' "$WORK/load.out")"
kill -TERM "$RECV_PID"
wait_recv
if [ "$rc" != 0 ] || [ ! -s "$WORK/load.report" ]; then
	# no report of what each session committed: nothing to read back
	fail "rpma-load exited $rc"
	[ -z "$KILL_AT" ] || log "the receiver after its restart: $(tail -n 20 "$WORK/recv2.log")"
	end_case
	summary
	exit
fi

# Every log read back in one process (pmempool dump takes about 0.7 s a
# pool under TCG; fleet_pools.py check says how it reads them); the first
# ten without an archive by pmempool dump too, so the two readings agree.
# An archived log must have at least one archive file: its pool filled and
# was started over at least once.
t1=$SECONDS
python3 "$POOLS" check "$WORK" "$WORK/load.report" "$LINE" "$ARCHIVE" \
	"$([ -n "$ARCHIVE" ] && [ -z "$EMPTY" ] && echo 1)" "$RECV" \
	"$DURATION" "$SESSIONS" >"$WORK/readback" 2>&1
nlogs=0 differing=0 unrotated=0 short=0
while read -r name sent committed verdict files; do
	[[ $name == f* && $sent =~ ^[0-9]+$ && $committed =~ ^[0-9]+$ ]] || {
		fail "the read-back said: $name $sent $committed $verdict"
		break
	}
	nlogs=$((nlogs + 1))
	[ "$sent" = "$committed" ] && [ "$sent" -gt 0 ] ||
		fail "$name: $committed of $sent lines committed"
	[ "$verdict" = same ] || differing=$((differing + 1))
	# a line a second: a session held up for good (a full pool never
	# started over) sends fewer, and its unsent lines count nowhere else
	[ "$sent" -ge $((DURATION * 9 / 10)) ] || short=$((short + 1))
	[ -z "$ARCHIVE" ] || [ "$files" -gt 0 ] || unrotated=$((unrotated + 1))
	if [ "$nlogs" -le 10 ] && [ -z "$ARCHIVE" ]; then
		fleet_lines "${name#f}" "$committed" >"$WORK/expect"
		check_pool "$WORK/$name.pool" "$WORK/expect"
	fi
done <"$WORK/readback"
[ "$nlogs" = "$SESSIONS" ] || fail "read back $nlogs logs, not $SESSIONS: $(tail -n 3 "$WORK/readback")"
[ "$differing" = 0 ] || fail "$differing of $nlogs logs differ from the lines committed to them"
[ "$short" = 0 ] || fail "$short of $nlogs sessions sent fewer than 9 in 10 of their $DURATION lines"
log "(read back $nlogs logs in $((SECONDS - t1)) s: $differing differing${ARCHIVE:+, $unrotated never rotated; $(find "$WORK/archive" -name 'f*.log' | wc -l) archive files})"
[ "$unrotated" = 0 ] || fail "$unrotated logs never rotated into their archive"

cores=$(nproc)
bound "lines sent $(key lines_sent), committed $(key lines_committed)" \
	"$([ "$(key lines_sent)" = "$(key lines_committed)" ] && echo 1)"
bound "threads $(key threads), at most 2 x $cores cores + 4" \
	"$([ "$(key threads)" -le $((2 * cores + 4)) ] && echo 1)"
if [ -z "$ARCHIVE" ]; then
	bound "receiver resident $(($(key rss_kib) / 1024)) MiB (pinned $(($(key pinned_kib) / 1024)) MiB), under 1024" \
		"$([ "$(key rss_kib)" -lt $((1 << 20)) ] && echo 1)"
else
	# Every page of every pool is written (and read by the archiver)
	# here, and a pool file's pages count in the resident memory of what
	# maps them: bound what is beyond them.
	pools_mib=$((SESSIONS * 2))
	bound "receiver resident $(($(key rss_kib) / 1024)) MiB (its own $(($(key anon_kib) / 1024)), pinned $(($(key pinned_kib) / 1024))), beyond the $pools_mib MiB of pool files it maps under 1024" \
		"$([ $(($(key rss_kib) / 1024 - pools_mib)) -lt 1024 ] && echo 1)"
fi
bound "idle CPU $(key idle_cpu_pct)% of a core, under 5%" \
	"$(awk -v c="$(key idle_cpu_pct)" 'BEGIN { print (c < 5) }')"
if [ -z "$KILL_AT" ]; then
	bound "fleet p99 $(key fleet_p99_us) us, at most twice the lone sender's $(key lone_p99_us) us" \
		"$(awk -v f="$(key fleet_p99_us)" -v l="$(key lone_p99_us)" 'BEGIN { print (f <= 2 * l) }')"
fi
end_case
summary
