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
# all, rotate-at 10%) and the lines are of 8 KiB, so that each log's pool
# fills and starts over during a run of 255 s or more: each log is then
# read back whole (archive and pool, rpma-recv --export) and must have
# rotated.
#   scripts/vm-run --memory 8G -- tests/load/fleet.sh BUILD [SESSIONS [DURATION [KILL_AT]]]
# scripts/fleet runs it (long: not in the suite).
BUILD=$1
SESSIONS=${2:-1000}
DURATION=${3:-60}
KILL_AT=${4:-}
ARCHIVE=${FLEET_ARCHIVE:-}
LINE=100
# 8 KiB lines fill a 2 MiB pool's data range (255 x 8 KiB) in 255 s.
[ -z "$ARCHIVE" ] || LINE=8192
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
	bound "a restarted receiver serves its first log within 5 s ($first_ms ms)" \
		"$([ "$first_ms" -le 5000 ] && echo 1)"
	bound "... and all $SESSIONS within 60 s ($all_ms ms)" \
		"$([ "$all_ms" -le 60000 ] && echo 1)"
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
# pool under TCG): the committed bytes of a pmemlog pool lie from its
# start_offset to its write_offset (u64 at 4096 and 4112: DESIGN.md);
# the first ten are read by pmempool dump too, so the two readings agree.
# With an archive, each log is read whole by rpma-recv --export (its
# archive's files, then its pool) and must have at least one archive file:
# its pool filled and was started over at least once.
t1=$SECONDS
# (an archived log is exported, compared and its copy removed one at a
# time: a thousand copies of a thousand logs would not fit in the guest)
python3 - "$WORK" "$WORK/load.report" "$LINE" "$ARCHIVE" "$RECV" >"$WORK/readback" 2>&1 <<'PY'
import glob, os, struct, subprocess, sys
work, report, size, archive, recv = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
dots = "." * (size - 1)
for row in open(report):
    name, sent, committed = row.split()
    if archive:
        out = f"{work}/export.{name}"
        p = subprocess.run([recv, "--export", out, "--log",
                            f"{name}={work}/{name}.pool,archive={work}/archive"],
                           stderr=subprocess.PIPE, text=True)
        if p.returncode:
            print(name, "export-failed", p.returncode, p.stderr.strip().splitlines()[-1:])
            continue
        data = open(out, "rb").read()
        os.unlink(out)
        files = len(glob.glob(f"{work}/archive/{name}-*.log"))
    else:
        pool = open(f"{work}/{name}.pool", "rb").read()
        start, _, write = struct.unpack_from("<QQQ", pool, 4096)
        data, files = pool[start:write], 0
    want = "".join(
        (l := f"load s={name[1:]} n={n} ") + dots[len(l):] + "\n"
        for n in range(int(committed)))
    same = data == want.encode()
    print(name, sent, committed, "same" if same else "differs", files)
PY
nlogs=0 differing=0 unrotated=0
while read -r name sent committed verdict files; do
	[[ $name == f* && $sent =~ ^[0-9]+$ && $committed =~ ^[0-9]+$ ]] || {
		fail "the read-back said: $name $sent $committed $verdict"
		break
	}
	nlogs=$((nlogs + 1))
	[ "$sent" = "$committed" ] && [ "$sent" -gt 0 ] ||
		fail "$name: $committed of $sent lines committed"
	[ "$verdict" = same ] || differing=$((differing + 1))
	[ -z "$ARCHIVE" ] || [ "$files" -gt 0 ] || unrotated=$((unrotated + 1))
	if [ "$nlogs" -le 10 ] && [ -z "$ARCHIVE" ]; then
		fleet_lines "${name#f}" "$committed" >"$WORK/expect"
		check_pool "$WORK/$name.pool" "$WORK/expect"
	fi
done <"$WORK/readback"
[ "$nlogs" = "$SESSIONS" ] || fail "read back $nlogs logs, not $SESSIONS: $(tail -n 3 "$WORK/readback")"
[ "$differing" = 0 ] || fail "$differing of $nlogs logs differ from the lines committed to them"
log "(read back $nlogs logs in $((SECONDS - t1)) s: $differing differing${ARCHIVE:+, $unrotated never rotated; $(find "$WORK/archive" -name 'f*.log' | wc -l) archive files})"
[ "$unrotated" = 0 ] || fail "$unrotated logs never rotated into their archive"

cores=$(nproc)
bound "lines sent $(key lines_sent), committed $(key lines_committed)" \
	"$([ "$(key lines_sent)" = "$(key lines_committed)" ] && echo 1)"
bound "threads $(key threads), at most 2 x $cores cores + 4" \
	"$([ "$(key threads)" -le $((2 * cores + 4)) ] && echo 1)"
bound "receiver resident $(($(key rss_kib) / 1024)) MiB (pinned $(($(key pinned_kib) / 1024)) MiB), under 1024" \
	"$([ "$(key rss_kib)" -lt $((1 << 20)) ] && echo 1)"
bound "idle CPU $(key idle_cpu_pct)% of a core, under 5%" \
	"$(awk -v c="$(key idle_cpu_pct)" 'BEGIN { print (c < 5) }')"
if [ -z "$KILL_AT" ]; then
	bound "fleet p99 $(key fleet_p99_us) us, at most twice the lone sender's $(key lone_p99_us) us" \
		"$(awk -v f="$(key fleet_p99_us)" -v l="$(key lone_p99_us)" 'BEGIN { print (f <= 2 * l) }')"
fi
end_case
summary
