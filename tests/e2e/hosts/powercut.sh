# shellcheck shell=bash
# Power cuts of the receiving host (sourced by tests/e2e/hosts.sh; the long
# campaign is scripts/powercut). Host a streams RPMA_POWERCUT_MIB MiB
# (default 64) with --retry into the log "main" of host b: its pool on b's
# NVDIMM (device-DAX), rotating into an archive on b's disk; meanwhile a
# loop on a replaces b's log "repl" (a plain pool file on the disk) with
# --truncate, round after round. b's power is cut RPMA_POWERCUT_CUTS times
# (default 3) at seeded moments: when the stream has reached a position
# drawn from the seed, plus a drawn pause, so cuts fall mid-stream,
# mid-rotation, mid-archive and during a replacement. Each time b boots
# again on the same NVDIMM and disk, partitioned until it is checked:
# pmempool checks main's pool as the cut left it, its receiver starts from
# the configuration on its disk (finishing what a cut left half done), and
# then
#   - main (archive + pool, as rpma-recv --export reads it) is a prefix of
#     the input holding every byte the sender reported committed before
#     the cut;
#   - repl holds one replacement whole: the last that ended 0 before the
#     cut, or the one in flight (its switch was decided).
# At the end the sender has exited 0 and main is the input exactly
# (--verify agrees). RPMA_POWERCUT_SEED (default: the run's seed) replays
# the schedule; what each cut hit is counted from the logs.

pc_seed=${RPMA_POWERCUT_SEED:-$seed}
pc_cuts=${RPMA_POWERCUT_CUTS:-3}
pc_mib=${RPMA_POWERCUT_MIB:-64}
RANDOM=$pc_seed
log "power cuts: seed $pc_seed, $pc_cuts cuts in $pc_mib MiB (replay: RPMA_POWERCUT_SEED=$pc_seed RPMA_POWERCUT_CUTS=$pc_cuts RPMA_POWERCUT_MIB=$pc_mib)"

# the input, from the seed (openssl's AES-CTR stream of a key drawn from
# it): a replay ships the same bytes
pc_key=$(printf '%08x%08x' "$pc_seed" $((RANDOM * 32768 + RANDOM)))
head -c "$((pc_mib << 20))" /dev/zero |
	openssl enc -aes-128-ctr -K "$pc_key$pc_key" -iv 0 -nosalt 2>/dev/null >"$D/power"
for r in 0 1 2 3; do
	head -c $(((1 + RANDOM % 3) << 20)) /dev/urandom >"$D/repl$r"
done
pc_total=$(stat -c %s "$D/power")
[ "$pc_total" = $((pc_mib << 20)) ] || fail "could not make the input (openssl)"

# the positions the cuts wait for: one drawn in each of PC_CUTS equal
# stretches of the input, none in its last 16 MiB (a cut overshoots its
# position by what streams during its pause and what the sender's ring
# held back, up to 10 MiB here: the stream still runs at the last cut)
pc_slot=$(((pc_total - (17 << 20)) / pc_cuts))
[ "$pc_slot" -ge $((1 << 20)) ] || {
	log "powercut: $pc_mib MiB has no room for $pc_cuts cuts (a MiB each past its first 17 MiB)"
	pc_slot=$((1 << 20))
}
pc_at=()
for ((i = 0; i < pc_cuts; i++)); do
	pc_at+=($(((1 << 20) + i * pc_slot + (RANDOM * 32768 + RANDOM) % pc_slot)))
done

# b's configuration, on its disk (rewritten only on the first boot)
pc_conf='listen = $RPMA_HOST_IP
peer-timeout = 3s
[main]
pool = $RPMA_DEVDAX
create = 2M
archive = $RPMA_DISK/archive
rotate-at = 25%
[repl]
pool = $RPMA_DISK/repl.pool
create = 16M'

# pc_recv: b's receiver, from the configuration on its disk, as the host
# starts it at boot; its log is recv-BOOT.log.
pc_recv() {
	on b "RECV_OPTS=(-v); recv_up recv-${HOST_BOOTS[b]}.log --config \$RPMA_DISK/rpma-recv.conf" 180
}

start_case "$pc_mib MiB from ${REL[a]} into ${REL[b]}'s rotating log, b power-cut $pc_cuts times: every committed byte kept, a prefix, exact at the end"
out=$(on b "mkdir -p \$RPMA_DISK/archive && cat >\$RPMA_DISK/rpma-recv.conf <<EOF
$pc_conf
EOF
sync" 60) || fail "b's configuration: $out"
out=$(pc_recv) || fail "b's receiver did not start: $out"
slog=${W[a]}/send-power.log
# paced (4 MiB/s, in pieces of 1 MiB): the cuts, which wait for positions,
# land near them however fast the machine streams
on_bg a "pace \$D/power 0.25 1048576 | timeout 3000 \$SEND --retry 1000 --progress=commits \$RPMA_IP_B/main - 2>\$W/send-power.log; echo \"exit \$?\""
pc_sender=$JOB
# the replacements: round K ships repl(K mod 4) with --truncate; its start
# and its end are written down before and after
on_bg a "k=0
	while [ ! -e \$W/repl.stop ]; do
		k=\$((k + 1))
		echo \$k >\$W/repl.started
		rc=0
		timeout 300 \$SEND --truncate \$RPMA_IP_B/repl \$D/repl\$((k % 4)) 2>>\$W/repl.log || rc=\$?
		echo \"\$k \$rc\" >>\$W/repl.done
		nap 0.3
	done"
pc_repl=$JOB

# reported LOG: the input bytes the sender last said were committed, exact
# (--progress=commits: a line per commit)
reported() {
	local n
	n=$(sed -n 's/^rpma-send: committed \([0-9]*\) input bytes$/\1/p' "$1" 2>/dev/null | tail -n 1)
	echo "${n:-0}"
}
# pc_repl_ok: the replacement round that last ended 0, and the one started
# after it (0: none)
pc_repl_state() {
	local ok
	ok=$(awk '$2 == 0 { k = $1 } END { print k + 0 }' "${W[a]}/repl.done" 2>/dev/null)
	REPL_OK=${ok:-0}
	REPL_NEXT=$(cat "${W[a]}/repl.started" 2>/dev/null || echo 0)
	[ "$REPL_NEXT" -gt "$REPL_OK" ] || REPL_NEXT=0
}

declare -A pc_hit=()
pc_checked=0
for ((c = 0; c < pc_cuts; c++)); do
	want=${pc_at[c]}
	end=$((SECONDS + 900))
	while [ "$(reported "$slog")" -lt "$want" ] && ! job_done a "$pc_sender"; do
		[ "$SECONDS" -lt "$end" ] || break
		sleep 0.2
	done
	if [ "$(reported "$slog")" -lt "$want" ] && ! job_done a "$pc_sender"; then
		fail "cut $((c + 1)): the stream did not reach $want bytes committed in 900 s (at $(reported "$slog")): not cut"
		break
	fi
	if job_done a "$pc_sender"; then
		fail "the sender ended before cut $((c + 1)): $(job_wait a "$pc_sender" 1)"
		break
	fi
	pause=$((RANDOM % 1500))
	sleep "$((pause / 1000)).$(printf %03d $((pause % 1000)))"
	host_cut b
	# read after the cut: every commit the sender was told of before it
	committed=$(reported "$slog")
	partition b
	pc_repl_state
	log "cut $((c + 1)) of $pc_cuts: at ${committed} bytes reported committed (waited for $want, then ${pause} ms); repl: round $REPL_OK ended 0, round $REPL_NEXT in flight"
	host_boot b
	if ! host_ready b; then
		fail "b did not boot again after cut $((c + 1))"
		break
	fi
	# what the cut left, before the receiver repairs it
	parts=$(on b 'ls -a "$RPMA_DISK/archive" | grep -c "\.part$"' 60)
	[ "${parts:-0}" = 0 ] || pc_hit[mid-archive]=$((${pc_hit[mid-archive]:-0} + 1))
	[ "$REPL_NEXT" = 0 ] || pc_hit[during a replacement]=$((${pc_hit[during a replacement]:-0} + 1))
	# the pool as the cut left it, before the receiver repairs anything
	out=$(on b 'pmempool check -v "$RPMA_DEVDAX" 2>&1' 120)
	grep -q consistent <<<"$out" || fail "after cut $((c + 1)): pmempool check of main's pool before the receiver starts: $out"
	out=$(pc_recv) || {
		fail "b's receiver did not start after cut $((c + 1)): $out"
		break
	}
	rlog=${W[b]}/recv-${HOST_BOOTS[b]}.log
	grep -q "finishing a rotation cut short" "$rlog" && pc_hit[mid-rotation]=$((${pc_hit[mid-rotation]:-0} + 1))
	grep -q "finishing the switch" "$rlog" && pc_hit[mid-switch]=$((${pc_hit[mid-switch]:-0} + 1))
	out=$(on b "SKIP=$pc_checked log_prefix \$RPMA_DEVDAX \$D/power $committed \$RPMA_DISK/archive main" 300) ||
		fail "after cut $((c + 1)): main: $out"
	len=${out%%$'\n'*}
	[[ $len =~ ^[0-9]+$ ]] && pc_checked=$len
	# repl: one replacement whole (or nothing yet)
	out=$(on b "\"\$RECV\" --export \$RPMA_TMPDIR/repl \$RPMA_DISK/repl.pool 2>&1 || exit 1
		for k in $REPL_OK $REPL_NEXT; do
			[ \$k != 0 ] || { [ -s \$RPMA_TMPDIR/repl ] || exit 0; continue; }
			cmp -s \$RPMA_TMPDIR/repl \$D/repl\$((k % 4)) && exit 0
		done
		echo \"repl holds \$(stat -c %s \$RPMA_TMPDIR/repl) bytes: neither round $REPL_OK nor round $REPL_NEXT whole\"
		exit 1" 120) || fail "after cut $((c + 1)): repl: $out"
	log "after cut $((c + 1)): main holds $len bytes, a prefix (the sender had reported $committed); repl whole"
	link_heal >/dev/null 2>&1
done

out=$(job_wait a "$pc_sender" 2400)
[ "$out" = "exit 0" ] || fail "the sender: $out, want exit 0: $(grep -v '^rpma-send: committed ' "$slog" | tail -n 5)"
: >"${W[a]}/repl.stop"
job_wait a "$pc_repl" 400 >/dev/null || fail "the replacement loop did not end"
out=$(on a "timeout 600 \$SEND --verify \$D/power \$RPMA_IP_B/main 2>&1" 620) ||
	fail "--verify of main after the cuts: $out"
out=$(on b "recv_down || echo 'the receiver did not stop'
	SKIP=$pc_checked log_prefix \$RPMA_DEVDAX \$D/power $pc_total \$RPMA_DISK/archive main" 300) ||
	fail "main at the end: $out"
hits=
for k in "${!pc_hit[@]}"; do hits+="${hits:+, }$k ${pc_hit[$k]}"; done
rounds=$(awk '{ n[$2]++ } END { for (rc in n) printf "%s%d exit %s", (s++ ? ", " : ""), n[rc], rc }' "${W[a]}/repl.done" 2>/dev/null)
log "power cuts: $pc_cuts cuts (seed $pc_seed); what they hit: ${hits:-mid-stream only}; replacement rounds: ${rounds:-none}"
# a replacement's sender (no --retry) whose receiver's host vanished ends
# on its own (exit 3), within its bounds: none waits for timeout to end it
grep -q ' 124$' "${W[a]}/repl.done" 2>/dev/null &&
	fail "a replacement's sender hung until timeout killed it (rounds $(awk '$2 == 124 { printf "%s ", $1 }' "${W[a]}/repl.done")): $(grep -v ' committed, ' "${W[a]}/repl.log" | tail -n 3)"
end_case
