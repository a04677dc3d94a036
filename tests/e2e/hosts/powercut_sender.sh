# shellcheck shell=bash
# The sending host's power cut (sourced by tests/e2e/hosts/powercut.sh): a
# on a growing file, as an application's log is followed: a pacer appends
# the input to a file on the share (which outlives a's cut, as a file an
# application had synced would) and `rpma-send -f` ships it into b's log.
# a's power is cut mid-stream. b's log must hold every byte the sender
# reported committed, a prefix of the file; once a is up again, `rpma-send
# --resume` of the file (no option but that) appends exactly the rest, and
# `--verify` finds the log equal to the file.

start_case "${REL[a]}'s sending host power-cut while it follows a growing file: what it committed stays on ${REL[b]}, --resume after its boot ends the log exact"
out=$(on b 'recv_up recv-sender.log --peer-timeout 3 --create 1 "$RPMA_DEVDAX"' 120) ||
	fail "b's receiver did not start: $out"
on_bg a "pace \$D/power 0.25 1048576 >\$D/app.log"
on_bg a "timeout 600 \$SEND -f --retry 100 --progress=commits \$RPMA_IP_B \$D/app.log 2>\$W/send-follow.log; echo \"exit \$?\""
ps_sender=$JOB
ps_log=${W[a]}/send-follow.log
ps_want=$(((4 + RANDOM % 16) << 20))
end=$((SECONDS + 300))
while [ "$(reported "$ps_log")" -lt "$ps_want" ] && ! job_done a "$ps_sender" && [ "$SECONDS" -lt "$end" ]; do
	sleep 0.2
done
if job_done a "$ps_sender" || [ "$(reported "$ps_log")" -lt "$ps_want" ]; then
	fail "the follower did not reach $ps_want bytes committed: $(job_wait a "$ps_sender" 1)"
else
	pause=$((RANDOM % 1000))
	sleep "0.$(printf %03d "$pause")"
	host_cut a
	committed=$(reported "$ps_log")
	held=$(stat -c %s "$D/app.log")
	log "a power-cut at $committed bytes reported committed (waited for $ps_want, then $pause ms); the file holds $held"
	if ! host_boot_ready a; then
		fail "a did not boot again"
	else
		out=$(on b "\"\$RECV\" --export \$RPMA_TMPDIR/sent \$RPMA_DEVDAX 2>&1 &&
			n=\$(stat -c %s \$RPMA_TMPDIR/sent) && echo \$n &&
			cmp -s -n \$n \$RPMA_TMPDIR/sent \$D/app.log && [ \$n -ge $committed ] ||
			echo 'not a prefix of the file holding every committed byte'" 120)
		[ "$(wc -l <<<"$out")" = 1 ] || fail "after the cut: b's log: $out"
		log "after the cut: b's log holds ${out%%$'\n'*} bytes"
		out=$(on a "timeout 300 \$SEND --resume --retry 10 \$RPMA_IP_B \$D/app.log 2>&1; echo \"exit \$?\"" 320)
		[[ $out == *"exit 0" ]] || fail "--resume after a's boot: $out"
		out=$(on a "timeout 300 \$SEND --verify \$D/app.log \$RPMA_IP_B 2>&1" 320) ||
			fail "--verify after --resume: $out"
	fi
fi
on b recv_down >/dev/null
end_case
