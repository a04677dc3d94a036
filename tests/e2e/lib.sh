# The test harness of the end-to-end tests that run inside the VM test bed
# (real rxe, emulated NVDIMM): cases, failures, the summary, checks of pools
# and error lines, a paced sender. Source it from a test script: BUILD must be
# set to the build directory holding src/rpma-send/rpma-send and
# src/rpma-recv/rpma-recv. Starting programs and the receiver, waiting for
# lines and reading pools come from scripts/lib.sh (shared with the demo and
# the benchmark): spawn, reap, start_recv, wait_recv, wait_for, pool_data.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

SEND="$BUILD/src/rpma-send/rpma-send"
RECV="$BUILD/src/rpma-recv/rpma-recv"
# a fleet of sender sessions in one process (tests/load)
LOAD="$BUILD/tests/load/rpma-load"
# 1 when the build has the flush method (IBTA 1.5's RDMA FLUSH and ATOMIC
# WRITE: rdma-core 45 or later, Debian 13), else empty.
HAVE_FLUSH=$(grep -q '^RS_HAVE_IBV_FLUSH:INTERNAL=1' "$BUILD/CMakeCache.txt" 2>/dev/null && echo 1)
RECV_IP="${RPMA_RECV_IP:-192.0.2.1}"
# every receiver of the tests: verbose, on the test bed's receiving address
RECV_OPTS=(-v --listen "$RECV_IP")
# (RPMA_E2E_WORK: a folder of the caller's, e.g. one kept across a reboot)
WORK="${RPMA_E2E_WORK:-${RPMA_TMPDIR:-/tmp}/e2e.$$}"
mkdir -p "$WORK"
# where link_down drops (below): each veth's ingress
if [ -e /sys/class/net/veth0 ]; then
	for v in veth0 veth1; do
		tc qdisc replace dev $v ingress || echo "lib.sh: no ingress qdisc on $v" >&2
	done
fi

passed=0
failed=0
case_name=""

log() { printf '%s\n' "$*" >&2; }

# start_case NAME: begins one case; fail marks it failed. end_case says how
# long it took, so the suite's slow cases can be found in its log.
start_case() {
	case_name="$1"
	case_failed=0
	case_start=$SECONDS
	log "--- case: $case_name"
}

fail() {
	log "FAIL [$case_name]: $*"
	case_failed=1
}

end_case() {
	if [ "$case_failed" = 0 ]; then
		passed=$((passed + 1))
		log "ok: $case_name ($((SECONDS - case_start)) s)"
	else
		failed=$((failed + 1))
		log "failed: $case_name ($((SECONDS - case_start)) s)"
	fi
}

# summary: the closing line test runners read, and the exit status.
summary() {
	printf '%s passed, %s failed\n' "$passed" "$failed"
	[ "$failed" = 0 ]
}

# feed FILE: FILE in FEED_CHUNKS chunks (default 64) with pauses of
# FEED_PAUSE seconds (default 0.03), so a test can act mid-stream. Each
# chunk costs a dd and a sleep (a fork and an exec each) besides its pause:
# the chunks more than the bytes set how long the stream takes (about
# 0.2 s a chunk into three replicas under TCG).
feed() {
	local chunk i n=${FEED_CHUNKS:-64}
	chunk=$((($(stat -c %s "$1") + n - 1) / n))
	rm -f "$WORK/feed.end"
	echo 0 >"$WORK/feed.fed"
	for ((i = 0; i < n; i++)); do
		[ ! -e "$WORK/feed.end" ] || break
		dd if="$1" bs="$chunk" skip="$i" count=1 status=none || return
		echo "$(((i + 1) * chunk))" >"$WORK/feed.fed"
		sleep "${FEED_PAUSE:-0.03}"
	done
}

# end_feed FILE OUT: ends the input of start_fed_sender at the end of the
# chunk being fed (the sender sees the end of its input, and ends), sets
# FED to how many bytes of FILE it was fed and writes them to OUT. Not in a
# subshell: it waits for the feeder, a child of this shell.
end_feed() {
	local fed size
	: >"$WORK/feed.end"
	wait "$FEED_PID" 2>/dev/null
	fed=$(cat "$WORK/feed.fed" 2>/dev/null)
	size=$(stat -c %s "$1")
	FED=$((${fed:-0} < size ? ${fed:-0} : size))
	head -c "$FED" "$1" >"$2"
}

# start_fed_sender FILE ARGS...: rpma-send ARGS reading FILE through feed()
# (or the function FEEDER names) and a fifo; its stderr goes to
# $WORK/send.log, and it is killed after SEND_TIMEOUT seconds (default
# 120). Sets SEND_PID and FEED_PID.
start_fed_sender() {
	local file="$1"
	shift
	rm -f "$WORK/fifo"
	mkfifo "$WORK/fifo"
	"${FEEDER:-feed}" "$file" >"$WORK/fifo" &
	FEED_PID=$!
	spawn "${SEND_TIMEOUT:-120}" "$WORK/send.log" "$SEND" "$@" - <"$WORK/fifo"
	SEND_PID=$SPAWN_PID
}

# stop_feed: ends the feeder of start_fed_sender.
stop_feed() {
	kill "$FEED_PID" 2>/dev/null
	wait "$FEED_PID" 2>/dev/null
}

# pool_consistent POOL: PMDK's check of POOL passes: its exit status and
# its verdict (": consistent"; "not consistent" holds the word too); what
# it said in $WORK/check.
pool_consistent() {
	pmempool check -v "$1" >"$WORK/check" 2>&1 && grep -q ': consistent$' "$WORK/check"
}

# check_pool POOL EXPECTED: the pool checks clean and holds exactly EXPECTED.
check_pool() {
	local out="$WORK/dump"
	pool_consistent "$1" || fail "pool not consistent: $(cat "$WORK/check")"
	pool_data "$1" "$out" || { fail "pmempool dump failed"; return; }
	cmp "$out" "$2" >&2 || fail "pool content differs from $2 ($(stat -c %s "$out") vs $(stat -c %s "$2") bytes)"
}

# fleet_lines SESSION COUNT: what rpma-load's session SESSION ships as its
# first COUNT lines of 100 bytes ("load s=S n=N " padded with dots).
fleet_lines() {
	awk -v s="$1" -v k="$2" 'BEGIN {
		dots = sprintf("%99s", ""); gsub(/ /, ".", dots)
		for (n = 0; n < k; n++) {
			l = sprintf("load s=%d n=%d ", s, n)
			print l substr(dots, length(l) + 1)
		}
	}'
}

# ms_since START: milliseconds since START, a value of $EPOCHREALTIME.
ms_since() {
	local now=$EPOCHREALTIME
	echo $(((${now/./} - ${1/./}) / 1000))
}

# one_line_error FILE: stderr holds exactly one line, naming the program.
one_line_error() {
	local n
	n=$(grep -c . "$1")
	[ "$n" = 1 ] || fail "expected one error line, got $n: $(cat "$1")"
	grep -q '^rpma-\(send\|recv\): ' "$1" || fail "error line does not name the program: $(cat "$1")"
}

# link_down: the network between the two ends goes silent, both ways, as
# when a switch reboots: each veth drops every packet it receives (a tc
# filter on its ingress). Dropped on the way in, so the sending rxe never
# learns of it, as on a wire. Not a netem queue on the way out: on 6.12 rxe
# errors a queue pair whose packet the sending side refuses, and a root
# qdisc being swapped refuses packets for a moment (rdma_cm's QP1 so hit
# answers no connect request again), while a netem queue kept for good
# reorders a stream's packets across CPUs (seen: 1511 out-of-sequence
# requests in one replica group, against none without it, and connections
# lost). Not `ip link set veth1 down`: on 6.1 an rxe port that goes down
# under a live queue pair answers no new connection over that veth after
# it comes back (connections then only work over lo), which would leave
# the later cases without a real link.
link_down() {
	local v
	for v in veth0 veth1; do
		tc filter replace dev $v ingress pref 1 matchall action drop
	done
}

link_up() {
	local v
	for v in veth0 veth1; do
		tc filter del dev $v ingress pref 1 2>/dev/null
	done
}

# disconnects_lost / disconnects_pass: rdma_cm's disconnect requests (a
# DREQ: the CM MAD, attribute 0x0015, to queue pair 1 in a RoCE v2 UDP
# datagram, port 4791) dropped on each veth's way in, everything else let
# through: a peer that gives a connection up is not heard doing so, as when
# its DREQ is lost on a wire, while its next connection is. Offsets from
# the IPv4 header (20 bytes, no options): UDP 8, BTH 12 (destination queue
# pair at 4), DETH 8, then the MAD (attribute id at 16).
disconnects_lost() {
	local v
	for v in veth0 veth1; do
		tc filter replace dev $v ingress pref 2 protocol ip u32 \
			match ip protocol 17 0xff match ip dport 4791 0xffff \
			match u32 0x00000001 0x00ffffff at 32 \
			match u16 0x0015 0xffff at 64 action drop
	done
}

# disconnects_pass says how many were dropped meanwhile.
disconnects_pass() {
	local v n=0 k
	for v in veth0 veth1; do
		k=$(tc -s filter show dev $v ingress pref 2 2>/dev/null |
			sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n 1)
		n=$((n + ${k:-0}))
		tc filter del dev $v ingress pref 2 2>/dev/null
	done
	log "disconnect requests dropped: $n"
}

# cpu_ms PID: the CPU time PID has used, in milliseconds (all its threads).
cpu_ms() {
	awk -v hz="$(getconf CLK_TCK)" '{ print int(($14 + $15) * 1000 / hz) }' "/proc/$1/stat"
}

# wakeups PID: how many times the process's threads were switched to so
# far (voluntary and not, over every thread): an idle process's wake-ups.
wakeups() {
	cat /proc/"$1"/task/*/status 2>/dev/null |
		awk '/^(non)?voluntary_ctxt_switches:/ { n += $2 } END { print n + 0 }'
}

# spawn_piped SECS LOG ARGS...: spawns ARGS (scripts/lib.sh's spawn) reading
# a fresh fifo, $WORK/fifo, that the test writes on fd 7: opened here first,
# read-write, since opening a fifo to read blocks until it has a writer.
spawn_piped() {
	rm -f "$WORK/fifo"
	mkfifo "$WORK/fifo"
	exec 7<>"$WORK/fifo"
	spawn "$@" <"$WORK/fifo"
}

# stopped PID: the process is stopped (SIGSTOP: a test knob's stop).
stopped() {
	local stat
	read -r stat <"/proc/$1/stat" 2>/dev/null || return 1
	stat=${stat##*) }
	[ "${stat%% *}" = T ]
}

# wait_stopped PID SECONDS: it stops within SECONDS (1: it ended, or not).
wait_stopped() {
	local end=$((SECONDS + $2))
	while ! stopped "$1"; do
		kill -0 "$1" 2>/dev/null || return 1
		[ "$SECONDS" -lt "$end" ] || return 1
		nap 0.05
	done
}

# flip_byte FILE OFFSET: the byte at OFFSET becomes another value (its bits
# inverted), whatever it was: writing a fixed 'X' into random content leaves
# it unchanged once in 256 runs.
flip_byte() {
	local old
	old=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	[ -n "$old" ] || {
		log "flip_byte: $1 has no byte at $2"
		return 1
	}
	# shellcheck disable=SC2059 # the format is the octal escape itself
	printf "\\$(printf %03o $((255 - old)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
