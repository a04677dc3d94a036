# shellcheck shell=bash
# Replicas on two receiving hosts (sourced by tests/e2e/hosts.sh): a sender
# on a streams with --quorum 1 --retry into a's own receiver and b's; b's
# power is cut mid-stream (qemu killed, no shutdown) and b boots again on
# the same NVDIMM and disk, its receiver started again on the pool it had.
# The stream never stops (what a's sender reports committed grows while b
# is down), b's replica is caught up from the sender's ring, the sender
# ends 0 and --verify finds both replicas equal to the input.
# Then a sender whose receiver's host vanishes while it owes an answer.

# 20 MiB: 40 s at the pace below, b's cut and boot (12-17 s) within it
head -c 20M /dev/urandom >"$D/quorum"

start_case "--quorum 1 over ${REL[a]} and ${REL[b]}: b power-cut mid-stream and back; the stream never stops, b catches up exact"
out=$(on a 'RECV_OPTS=(-v --listen "$RPMA_HOST_IP:7301"); recv_up recv.log --create 1 "$RPMA_DEVDAX"' 120) ||
	fail "a's receiver did not start: $out"
out=$(on b 'RECV_OPTS=(-v --listen "$RPMA_HOST_IP:7302"); recv_up recv.log --create 1 "$RPMA_DEVDAX"' 120) ||
	fail "b's receiver did not start: $out"
targets="${HOST_IP[a]}:7301,${HOST_IP[b]}:7302"
# 1 MiB every 2 s: the stream outlasts b's boot, and what passes while b is
# down stays within the sender's ring, so b is caught up rather than
# dropped. The ring holds 4 x depth batches (32 of them by default), not
# 32 MiB: pieces of 1 MiB make batches of 1 MiB (a slow pipe's batches
# of 64 KiB would let b fall out of a 2 MiB ring within seconds).
on_bg a "pace \$D/quorum 2 1048576 | timeout 600 \$SEND --quorum 1 --retry 100 --progress=always $targets - 2>\$W/send-quorum.log; echo \"exit \$?\""
sender=$JOB
slog=${W[a]}/send-quorum.log
# reported LOG: the most bytes LOG's progress lines and messages say were
# committed (the campaign's reading, scripts/campaign/checker.sh)
reported() { tr '\r' '\n' 2>/dev/null <"$1" | sed 's/^/0 /' | reported_committed /dev/stdin; }
end=$((SECONDS + 120))
until [ "$(reported "$slog")" -ge $((2 << 20)) ] || [ "$SECONDS" -ge "$end" ]; do sleep 0.5; done
sleep $((RANDOM % 4))
at_cut=$(reported "$slog")
host_cut b
log "b power-cut with ${at_cut} bytes reported committed"
host_boot_ready b || fail "b did not boot again"
back_at=$(reported "$slog")
log "b is back; meanwhile the sender reported ${back_at} bytes committed"
[ "$back_at" -ge $((at_cut + (1 << 20))) ] ||
	fail "the stream stopped while b was down: ${at_cut} bytes committed at the cut, ${back_at} once b was back"
out=$(on b 'RECV_OPTS=(-v --listen "$RPMA_HOST_IP:7302"); recv_up recv.log "$RPMA_DEVDAX"' 120) ||
	fail "b's receiver did not start on its pool after the cut: $out"
out=$(job_wait a "$sender" 600)
[ "$out" = "exit 0" ] || fail "the sender: $out, want exit 0: $(tr '\r' '\n' <"$slog" | tail -n 5); b's receiver said last: $(tail -n 5 "${W[b]}/recv.log" 2>&1)"
grep -q "reconnected to ${HOST_IP[b]}:7302" "$slog" ||
	fail "b's replica did not rejoin: $(tr '\r' '\n' <"$slog" | grep -v MiB | tail -n 5)"
out=$(on a "timeout 300 \$SEND --verify \$D/quorum $targets 2>&1" 320) ||
	fail "--verify of both replicas: $out"
on a recv_down >/dev/null
on b recv_down >/dev/null
end_case

# A sender whose receiver's host vanishes while it owes an answer: a
# --truncate replacement has asked b to switch it in (b's adapter took the
# request; its receiver, stopped, never answers) when b's power is cut.
# Nothing comes back from the CM or the link: the sender probes it, gets
# no answer, and ends (exit 3) within b's peer timeout, not after the
# switch's own bound (5 minutes); b, booted again, holds one content
# whole: the replacement or what it had before (a log of 384 KiB, shipped
# first: the replacement's bytes went in beside it and must not show).
start_case "b's host vanishes after a --truncate asked it to switch: the sender from ${REL[a]} ends within the peer timeout, b holds one content whole"
head -c 1M /dev/urandom >"$D/vanish"
head -c 384K /dev/urandom >"$D/vanish-old"
on b fresh_state >/dev/null
out=$(on b 'recv_up recv.log --peer-timeout 3 --create 1 "$RPMA_DEVDAX"' 120) ||
	fail "b's receiver did not start: $out"
out=$(on a "\$SEND \$RPMA_IP_B \$D/vanish-old 2>&1" 120) || fail "the old content: $out"
on_bg a "RPMA_SEND_STOP_AT=switch-asking timeout 200 \$SEND --truncate \$RPMA_IP_B \$D/vanish 2>\$W/send-vanish.log; echo \"exit \$?\""
sender=$JOB
out=$(on a 'for i in $(seq 900); do
		[ "$(ps -o stat= -C rpma-send | head -c 1)" = T ] && exit 0
		sleep 0.1
	done
	echo "rpma-send never reached the switch: $(cat $W/send-vanish.log)"; exit 1' 120) || fail "$out"
on b 'kill -STOP "$(cat $W/recv.pid)"' 30 >/dev/null
on a 'pkill -CONT -x rpma-send' 30 >/dev/null
sleep 2
host_cut b
cut_at=$SECONDS
out=$(job_wait a "$sender" 120)
took=$((SECONDS - cut_at))
[ "$out" = "exit 3" ] || fail "the sender: $out after ${took} s, want exit 3: $(cat "${W[a]}/send-vanish.log")"
[ "$took" -le 30 ] || fail "the sender took ${took} s to notice b was gone (peer timeout 3 s)"
grep -q "did not confirm the switch" "${W[a]}/send-vanish.log" ||
	fail "the sender did not say the switch is unconfirmed: $(cat "${W[a]}/send-vanish.log")"
log "the sender ended ${took} s after the cut: $(grep -m1 'did not confirm' "${W[a]}/send-vanish.log")"
host_boot_ready b || fail "b did not boot again"
out=$(on b 'recv_up recv.log "$RPMA_DEVDAX" || exit 1
	recv_down
	"$RECV" --export $RPMA_TMPDIR/vanish "$RPMA_DEVDAX" || exit 1
	for whole in $D/vanish-old $D/vanish; do
		cmp -s $RPMA_TMPDIR/vanish $whole && echo "b holds ${whole##*/}: whole" && exit 0
	done
	echo "b holds $(stat -c %s $RPMA_TMPDIR/vanish) bytes, neither the old content nor the replacement"' 180)
[[ $out == *": whole" ]] || fail "after the cut: $out"
log "after the cut: $out"
end_case
