#!/bin/bash
# The busy fleet of issue 60 in the VM test bed: one receiver serving
# SENDERS logs on 4 MiB pool files (max-senders SENDERS + 8), SENDERS
# rpma-send processes started together with defaults, --batch 64K and
# --retry 20, each fed 1 MiB of its own in 64 KiB pieces every 0.5 s
# (tests/load/busy_drive.py). Afterwards every log is read back against its
# input, and each bound of the issue is said met or not: every sender exits
# 0, no sender's log has a "lost" or "refused" line, the receiver logs no
# queue pair failure, every connect request is answered within 1 s, the
# receiver's memory after the senders have gone is within 32 MiB of its
# idle figure. What explains a failure is printed with it: the receiver's
# and the senders' telling lines counted, the RDMA devices' counters, the
# queue pairs and the receiver's memory sampled every 2 s.
# With KEEP (a folder the guest shares with the host), the logs, the
# samples and the counters are copied there at the end.
# DRIVER (busy_drive.py, one Python process for all senders, or shell:
# busy_shell.sh, a shell pipeline per sender, a host short of CPU) and
# RETRY (--retry, 20; 0: no session may be lost to be found again) and
# HOGS (processes that spin, `yes > /dev/null`, meanwhile: 0) and
# SOFTIRQ_NICE (the nice of the guest's ksoftirqd threads while the senders
# run, unset: left at 0; Soft-RoCE's packets, a probe's answer among them,
# are worked there, where an RNIC works them without the host's CPU).
#   scripts/vm-run --memory 8G -- tests/load/busy.sh BUILD [SENDERS [KEEP [DRIVER [RETRY [HOGS [SOFTIRQ_NICE]]]]]]
# scripts/busy-fleet runs it (long: not in the suite).
BUILD=$1
SENDERS=${2:-128}
KEEP=${3:-}
DRIVER=${4:-python}
RETRY=${5:-20}
HOGS=${6:-0}
SOFTIRQ_NICE=${7:-}
. "$(dirname "$0")/../e2e/lib.sh"
RECV_TIMEOUT=3600
HERE=$(cd "$(dirname "$0")" && pwd)

bound() {
	if [ "$2" = 1 ]; then log "met: $1"; else fail "not met: $1"; fi
}

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
# rss_parts PID: its resident memory's parts (kiB): anonymous (its own:
# buffers, rings, heaps), file (libraries and the like) and shared memory
# (here: the pool files' pages it maps, in tmpfs, which stay the pools'
# whatever maps them)
rss_parts() {
	awk '/^Rss(Anon|File|Shmem):/ { sub(/:/, "", $1); printf "%s=%s ", $1, $2 }' "/proc/$1/status" 2>/dev/null
}

# counters NAME: every RDMA device's counters that are not 0, one line each
counters() {
	local d c v
	for d in /sys/class/infiniband/*; do
		for c in "$d"/ports/1/hw_counters/*; do
			read -r v <"$c" 2>/dev/null || continue
			[ "$v" = 0 ] || printf '%s %s %s\n' "${d##*/}" "${c##*/}" "$v"
		done
	done >"$WORK/counters.$1"
}

# sample: every 2 s the receiver's memory, its queue pairs and connection
# ids (both ends: the senders' are the same device's), until told to stop
sample() {
	while [ ! -e "$WORK/stop-sampling" ]; do
		printf '%s rss_kib=%s %sqps=%s cm_ids=%s load=%s\n' "$SECONDS" \
			"$(rss_kib "$RECV_PID")" "$(rss_parts "$RECV_PID")" \
			"$(rdma res show qp 2>/dev/null | grep -c 'state RTS')" \
			"$(rdma res show cm_id 2>/dev/null | grep -c .)" \
			"$(cut -d' ' -f1 /proc/loadavg)"
		sleep 2
	done >"$WORK/samples"
}

start_case "$SENDERS senders streaming at once ($DRIVER driver, --retry $RETRY, $HOGS CPU hogs), a log each: none dropped, none refused"
conf=$WORK/busy.conf
{
	printf 'max-senders = %d\n' "$((SENDERS + 8))"
	for ((i = 0; i < SENDERS; i++)); do
		printf '[l%d]\npool = %s/l%d.pool\ncreate = 4M\n' "$i" "$WORK" "$i"
	done
} >"$conf"
if ! start_recv "$WORK/recv.log" --config "$conf" ||
	! wait_for "$WORK/recv.log" "all logs opened" 1800 "$RECV_PID"; then
	fail "the receiver did not start: $(tail -n 3 "$WORK/recv.log")"
	end_case
	summary
	exit
fi
sleep 5
# Ahead of the senders' work, as the packaged unit runs it (Nice=-10): a
# receiver that cannot run for two peer timeouts is dropped as hung. Each
# thread's (the nice of a process is its threads').
for t in /proc/"$RECV_PID"/task/*; do renice -n -10 -p "${t##*/}" >/dev/null; done
if [ -n "$SOFTIRQ_NICE" ]; then
	softirq_nice "$SOFTIRQ_NICE"
	log "(ksoftirqd at nice $SOFTIRQ_NICE:$(ps -o ni=,comm= -p "$(pgrep -d, -x 'ksoftirqd/[0-9]+')" | tr -s ' \n' ' '))"
fi
idle=$(rss_kib "$RECV_PID")
idle_parts=$(rss_parts "$RECV_PID")
log "(the receiver serves $SENDERS logs; resident $((idle / 1024)) MiB idle)"
counters before
sample &
sampler=$!
hogs=()
for ((i = 0; i < HOGS; i++)); do
	yes >/dev/null &
	hogs+=($!)
done
t0=$SECONDS
if [ "$DRIVER" = shell ]; then
	timeout 1800 "$HERE/busy_shell.sh" "$SEND" "$RECV_IP" "$SENDERS" "$WORK" 1200 \
		-- -v --stats --batch 64K --retry "$RETRY" >"$WORK/drive.out" 2>&1
else
	timeout 1800 python3 "$HERE/busy_drive.py" "$SEND" "$RECV_IP" "$SENDERS" "$WORK" \
		--timeout 1200 -- -v --stats --batch 64K --retry "$RETRY" >"$WORK/drive.out" 2>&1
fi
log "(the senders ran for $((SECONDS - t0)) s${HOGS:+, $HOGS CPU hogs beside})"
[ "${#hogs[@]}" = 0 ] || kill "${hogs[@]}"
# The receiver notices each sender's end at once (a disconnect), but give
# it a few seconds to end their sessions and give their memory back.
sleep 10
after=$(rss_kib "$RECV_PID")
after_parts=$(rss_parts "$RECV_PID")
touch "$WORK/stop-sampling"
wait "$sampler"
counters after
kill -TERM "$RECV_PID"
wait_recv
peak=$(sed -n 's/.* rss_kib=\([0-9]*\).*/\1/p' "$WORK/samples" | sort -n | tail -n 1)
peak_qps=$(sed -n 's/.* qps=\([0-9]*\).*/\1/p' "$WORK/samples" | sort -n | tail -n 1)

# Every log read back: a fresh pool's committed bytes (start_offset to
# write_offset, u64 at 4096 and 4112: DESIGN.md) are its sender's input.
python3 - "$WORK" "$SENDERS" >"$WORK/readback" 2>&1 <<'PY'
import struct, sys
work, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    data = open(f"{work}/l{i}.pool", "rb").read()
    start, _, write = struct.unpack_from("<QQQ", data, 4096)
    want = open(f"{work}/in.{i}", "rb").read()
    print(i, "exact" if data[start:write] == want else
          f"differs ({write - start} of {len(want)} bytes)")
PY
inexact=$(grep -vc ' exact$' "$WORK/readback")
exits=$(grep -c '^sender .* rc=0 ' "$WORK/drive.out")
# count PATTERN FILES...: lines matching PATTERN in all FILES
count() { cat "${@:2}" 2>/dev/null | grep -c -- "$1"; }
senders_logs=("$WORK"/send.*.log)
complaints=$(grep -l -i -e lost -e refused "${senders_logs[@]}" | wc -l)
qp_failures=$(count 'cannot create a queue pair' "$WORK/recv.log")
# how long each connect request waited for its answer (rpma-send -v)
sed -n 's/.*connect request answered in \([0-9]*\) ms.*/\1/p' "${senders_logs[@]}" |
	sort -n >"$WORK/answers"
answers=$(wc -l <"$WORK/answers")
slowest=$(tail -n 1 "$WORK/answers")
unanswered=$(count 'no answer to the connect request' "${senders_logs[@]}")

log "the senders: $(sed -n 's/^sender .* rc=\([0-9-]*\) .*/\1/p' "$WORK/drive.out" | sort | uniq -c | awk '{ printf "%s exited %s; ", $1, $2 }')"
log "  wall time: $(sed -n 's/^sender .* secs=\([0-9.]*\)/\1/p' "$WORK/drive.out" | sort -n |
	awk '{ a[NR] = $1 } END { if (NR) printf "min %s, median %s, max %s s", a[1], a[int((NR + 1) / 2)], a[NR] }')"
log "  their logs: $(count 'lost after committing' "${senders_logs[@]}") 'connection lost',"\
	"$(count 'probing the link' "${senders_logs[@]}") links probed (slow answers),"\
	"$(count 'none to a probe' "${senders_logs[@]}") links lost (probe unanswered),"\
	"$unanswered 'no answer to the connect request',"\
	"$(count 'refused the connection' "${senders_logs[@]}") 'refused the connection',"\
	"$(count 'retrying in' "${senders_logs[@]}") retries,"\
	"$(count 'failed: ' "${senders_logs[@]}") completion failures"
log "  connect requests answered: $answers, p50 $(sed -n "$(((answers + 1) / 2))p" "$WORK/answers") ms,"\
	"p99 $(sed -n "$(((answers * 99 + 99) / 100))p" "$WORK/answers") ms, slowest ${slowest:-?} ms"
# the receiver's part of it: from a request's hand-over to its log's
# thread to the accept sent (rpma-recv -v)
sed -n 's/.*accepted \([0-9]*\) ms after its request was handed over.*/\1/p' "$WORK/recv.log" |
	sort -n >"$WORK/accepts"
accepts=$(wc -l <"$WORK/accepts")
log "  the receiver's part (hand-over to accept): $accepts, p50 $(sed -n "$(((accepts + 1) / 2))p" "$WORK/accepts") ms,"\
	"p99 $(sed -n "$(((accepts * 99 + 99) / 100))p" "$WORK/accepts") ms, slowest $(tail -n 1 "$WORK/accepts") ms;"\
	"of it setting the session up: slowest $(sed -n 's/.*handed over (\([0-9]*\) ms setting it up).*/\1/p' "$WORK/recv.log" | sort -n | tail -n 1) ms"
log "the receiver's log: $qp_failures 'cannot create a queue pair',"\
	"$(count 'accept failed' "$WORK/recv.log") 'accept failed',"\
	"$(count 'the most max-senders allows' "$WORK/recv.log") refused at max-senders,"\
	"$(count 'busy with\|did not take its request\|came to its request' "$WORK/recv.log") refused as busy,"\
	"$(count 'takes its session over' "$WORK/recv.log") takeovers,"\
	"$(count 'peer timeout' "$WORK/recv.log") peer timeouts,"\
	"$(count 'refused a request' "$WORK/recv.log") requests refused ($(count 'which it does not hold' "$WORK/recv.log") naming a key not held),"\
	"$(count 'failed: ' "$WORK/recv.log") completion failures"
log "  its memory: $((idle / 1024)) MiB idle, $((${peak:-0} / 1024)) MiB at the peak, $((after / 1024)) MiB after the senders"
log "    in kiB, idle: $idle_parts; after: $after_parts"
log "  queue pairs in RTS at the peak (both ends): ${peak_qps:-?}"
log "the devices' counters during the run (after - before):"
log "$(join -a 1 -e 0 -o 1.1,1.2,2.3,1.3 <(awk '{ print $1 "/" $2, $1, $3 }' "$WORK/counters.after" | sort) \
	<(awk '{ print $1 "/" $2, $1, $3 }' "$WORK/counters.before" | sort) 2>/dev/null |
	awk '{ d = $4 - $3; if (d) printf "  %s %d\n", $1, d }')"

bound "every sender exits 0 ($exits of $SENDERS)" "$([ "$exits" = "$SENDERS" ] && echo 1)"
bound "every log exact ($inexact of $SENDERS not)" "$([ "$inexact" = 0 ] && echo 1)"
bound "no sender's log has a 'lost' or 'refused' line ($complaints have)" "$([ "$complaints" = 0 ] && echo 1)"
bound "the receiver logs no queue pair failure ($qp_failures)" "$([ "$qp_failures" = 0 ] && echo 1)"
bound "every connect request answered within 1 s (slowest ${slowest:-?} ms of $answers, $unanswered unanswered)" \
	"$([ "$unanswered" = 0 ] && [ "$answers" -gt 0 ] && [ "${slowest:-99999}" -le 1000 ] && echo 1)"
bound "resident memory after the senders within 32 MiB of idle ($((after / 1024)) against $((idle / 1024)) MiB)" \
	"$([ $((after - idle)) -le $((32 << 10)) ] && echo 1)"
if [ "$case_failed" != 0 ]; then
	log "the driver's last lines: $(grep -v '^sender ' "$WORK/drive.out" | tail -n 5)"
	log "the receiver's last lines: $(tail -n 15 "$WORK/recv.log")"
	log "a sender's log that complains: $(grep -l -i -e lost -e refused "${senders_logs[@]}" | head -n 1 | xargs -r tail -n 15)"
fi
end_case
if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP"
	cp "$WORK"/{recv.log,drive.out,samples,counters.*,readback,answers,accepts} "$WORK"/send.*.log "$KEEP/" 2>/dev/null
	log "(the logs are in $KEEP)"
fi
summary
