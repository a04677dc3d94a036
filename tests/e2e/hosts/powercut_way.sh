# shellcheck shell=bash
# One way of the powercut group (sourced by tests/e2e/hosts/powercut.sh,
# once for each receiving host): host S streams the input into the log
# "main" of host R while a loop on S replaces R's log "repl", and R's power
# is cut pc_cuts times; see powercut.sh for what is checked.

# The persistence model (tests/shadow) on $R's receiver: what it makes
# persistent goes to a shadow in b's tmpfs and, written through, to its
# mirror here on the driver's side ($D/shadow-$R), which outlives the cut.
# After a cut the pools go back as the mirror says before anything reads
# them: a store the receiver never made persistent is lost, whatever the
# emulated NVDIMM kept. RPMA_POWERCUT_SKIP=word|record|floor|data leaves
# one kind of the receiver's persists out (a self-test: the cuts must then
# find a loss; scripts/powercut --skip).
pc_skip=${RPMA_POWERCUT_SKIP:-}
rm -rf "$D/shadow-$R"
mkdir -p "$D/shadow-$R"

# Aimed cuts (RPMA_POWERCUT_AIMS, words: scripts/powercut names them for
# a campaign): the first cuts each way come where R's receiver stops
# itself at the named step (RPMA_RECV_STOP_AT, rpma-recv(1)), one step a
# cut, in order; the others at the seeded positions.
read -r -a pc_aims <<<"${RPMA_POWERCUT_AIMS:-}"

# pc_recv [AIM]: $R's receiver under the model, from the configuration on
# its disk, as the host starts it at boot, stopping at AIM if given; its
# log is recv-BOOT.log.
pc_recv() {
	on $R "mkdir -p \$RPMA_TMPDIR/shadow
	printf '#!/bin/sh\nexec env LD_PRELOAD=%q RPMA_SHADOW_DIR=%q RPMA_SHADOW_MIRROR=%q RPMA_SHADOW_SKIP=%q RPMA_RECV_STOP_AT=%q %q \"\$@\"\n' \
		\$BUILD/tests/shadow/librpma_persist_shadow.so \$RPMA_TMPDIR/shadow \$D/shadow-$R '$pc_skip' '${1:-}' \$RECV >\$W/model-recv
	chmod +x \$W/model-recv
	RECV=\$W/model-recv RECV_OPTS=(-v); recv_up recv-${HOST_BOOTS[$R]}.log --config \$RPMA_DISK/rpma-recv.conf" 180
}

start_case "$pc_mib MiB from ${REL[$S]} into ${REL[$R]}'s rotating log, $R power-cut $pc_cuts time(s): every committed byte kept, a prefix, exact at the end"
out=$(on $R "mkdir -p \$RPMA_DISK/archive && cat >\$RPMA_DISK/rpma-recv.conf <<EOF
$pc_conf
EOF
sync" 60) || fail "$R's configuration: $out"
out=$(pc_recv "${pc_aims[0]:-}") || fail "$R's receiver did not start: $out"
slog=${W[$S]}/send-power.log
# paced (4 MiB/s, in pieces of 1 MiB): the cuts, which wait for positions,
# land near them however fast the machine streams. Its progress reaches the
# share written through (dd oflag=dsync): Debian 13's 9p (cache=mmap, on
# netfs) keeps a file's writes in the guest's page cache until writeback,
# so the driver saw none of b's progress and b's stream ended before the
# first position (CI, stop 77). Its time bound grows with the cuts (each
# costs the stream a boot, the checks and a reconnect, 30 to 40 s under
# TCG): a fixed 3000 s ended a campaign of 100 cuts at its 82nd.
on_bg $S "pace \$D/power 0.25 1048576 | timeout $((1800 + pc_cuts * 120)) \$SEND --retry 1000 --progress=commits \$RPMA_IP_${R^^}/main - 2> >(dd oflag=dsync bs=64K status=none of=\$W/send-power.log); echo \"exit \$?\""
pc_sender=$JOB
# the replacements: round K ships repl(K mod 4) with --truncate; its start
# and its end are written down (through, as above) before and after
on_bg $S "k=0
	while [ ! -e \$W/repl.stop ]; do
		k=\$((k + 1))
		echo \$k | dd oflag=dsync status=none of=\$W/repl.started
		echo \"round \$k at \$(date +%T)\" >>\$W/repl.log
		rc=0
		bounded 300 \$W/repl.log \$SEND --truncate \$RPMA_IP_${R^^}/repl \$D/repl\$((k % 4)) 2>>\$W/repl.log || rc=\$?
		echo \"\$k \$rc\" | dd oflag=dsync,append conv=notrunc status=none of=\$W/repl.done
		nap 0.3
	done"
pc_repl=$JOB

# pc_repl_ok: the replacement round that last ended 0, and the one started
# after it (0: none)
pc_repl_state() {
	local ok
	ok=$(awk '$2 == 0 { k = $1 } END { print k + 0 }' "${W[$S]}/repl.done" 2>/dev/null)
	REPL_OK=${ok:-0}
	REPL_NEXT=$(cat "${W[$S]}/repl.started" 2>/dev/null || echo 0)
	[ "$REPL_NEXT" -gt "$REPL_OK" ] || REPL_NEXT=0
}

# pc_repl_rounds: the rounds whose content repl may hold after a cut: the
# one it held at the last check or the last that ended 0, whichever is
# later; each later one whose sender sent the switch and lost the
# connection before the answer (it says so: the switch may have been
# decided); and the one in flight. Newest first.
pc_repl_rounds() {
	local base=$((REPL_OK > pc_repl_held ? REPL_OK : pc_repl_held))
	{
		echo "$REPL_NEXT"
		awk -v base="$base" '$1 == "round" { k = $2 }
			/did not confirm the switch/ && k > base { print k }' "${W[$S]}/repl.log" 2>/dev/null
		echo "$base"
	} | awk '!seen[$0]++' | sort -rn | { grep -vx 0 || :; }
	[ "$base" != 0 ] || echo 0
}

# pc_stopped AIM: R's receiver said it stops at AIM (read on R: Debian
# 13's 9p keeps the guest's writes from the driver until writeback),
# within 300 s, while the stream runs
pc_stopped() {
	local end=$((SECONDS + 300))
	while [ "$SECONDS" -lt "$end" ] && ! job_done $S "$pc_sender"; do
		on $R "grep -q 'stopping at $1' \$W/recv-${HOST_BOOTS[$R]}.log" 30 >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	return 1
}

# pc_cut_at_position: cut C (0-based) once the stream has reached its
# drawn position, after a drawn pause; 1 when it cannot be (said)
pc_cut_at_position() {
	local want=${pc_at[c]} end=$((SECONDS + 900)) pause
	while [ "$(reported "$slog")" -lt "$want" ] && ! job_done $S "$pc_sender"; do
		[ "$SECONDS" -lt "$end" ] && host_up $R || break
		sleep 0.2
	done
	if ! host_up $R; then
		fail "before cut $((c + 1)): host $R went down by itself"
		return 1
	fi
	if [ "$(reported "$slog")" -lt "$want" ] && ! job_done $S "$pc_sender"; then
		fail "cut $((c + 1)): the stream did not reach $want bytes committed in 900 s (at $(reported "$slog")): not cut"
		return 1
	fi
	if job_done $S "$pc_sender"; then
		fail "the sender ended before cut $((c + 1)): $(job_wait $S "$pc_sender" 1)"
		return 1
	fi
	pause=$((RANDOM % 1500))
	sleep "$((pause / 1000)).$(printf %03d $((pause % 1000)))"
	host_cut $R
	# read after the cut: every commit the sender was told of before it
	committed=$(reported "$slog")
	partition $R
	pc_repl_state
	log "cut $((c + 1)) of $pc_cuts at $(date +%T): at ${committed} bytes reported committed (waited for $want, then ${pause} ms); repl: round $REPL_OK ended 0, round $REPL_NEXT in flight"
}

# pc_after_cut: R boots again; its pools go back as the model says, are
# checked, its receiver starts, and main and repl are checked; then the
# receiver starts again to stop at the next cut's aim, if any; 1 when the
# campaign cannot go on
pc_after_cut() {
	if ! host_boot_ready $R; then
		fail "$R did not boot again after cut $((c + 1))"
		return 1
	fi
	# what the cut left, before the receiver repairs it
	parts=$(on $R 'ls -a "$RPMA_DISK/archive" | grep -c "\.part$"' 60)
	[ "${parts:-0}" = 0 ] || pc_hit[mid-archive]=$((${pc_hit[mid-archive]:-0} + 1))
	[ "$REPL_NEXT" = 0 ] || pc_hit[during a replacement]=$((${pc_hit[during a replacement]:-0} + 1))
	# the pools as the model says the cut left them
	out=$(on $R "\"\$BUILD/tests/shadow/persist-shadow-restore\" \$D/shadow-$R 2>&1" 300) ||
		fail "after cut $((c + 1)): the model's restore: $out"
	log "after cut $((c + 1)): ${out//$'\n'/; }"
	# the pool as the cut left it, before the receiver repairs anything
	# (its exit status: "not consistent" holds "consistent"); a pool
	# the cut caught before it was made is empty, right only when
	# nothing was committed to it
	out=$(on $R 'pmempool check -v "$RPMA_DEVDAX" 2>&1; echo "exit $?"' 120)
	if [ "${out##*$'\n'}" != "exit 0" ] || ! grep -q ': consistent$' <<<"$out"; then
		if [ "$committed" = 0 ] && grep -q "empty pool hdr" <<<"$out"; then
			log "after cut $((c + 1)): main's pool was not made yet, and nothing was committed to it"
		else
			fail "after cut $((c + 1)): pmempool check of main's pool before the receiver starts: $out"
		fi
	fi
	out=$(pc_recv) || {
		fail "$R's receiver did not start after cut $((c + 1)): $out"
		return 1
	}
	rlog=${W[$R]}/recv-${HOST_BOOTS[$R]}.log
	grep -q "finishing a rotation cut short" "$rlog" && pc_hit[mid-rotation]=$((${pc_hit[mid-rotation]:-0} + 1))
	grep -q "finishing the switch" "$rlog" && pc_hit[mid-switch]=$((${pc_hit[mid-switch]:-0} + 1))
	out=$(on $R "SKIP=$pc_checked log_prefix \$RPMA_DEVDAX \$D/power $committed \$RPMA_DISK/archive main" 300) ||
		fail "after cut $((c + 1)): main: $out"
	len=${out%%$'\n'*}
	[[ $len =~ ^[0-9]+$ ]] && pc_checked=$len
	# repl: one replacement whole (or nothing yet), none older than what
	# it held before
	rounds=$(pc_repl_rounds | tr '\n' ' ')
	out=$(on $R "\"\$RECV\" --export \$RPMA_TMPDIR/repl \$RPMA_DISK/repl.pool 2>&1 || exit 1
		for k in $rounds; do
			[ \$k != 0 ] || { [ -s \$RPMA_TMPDIR/repl ] || { echo 0; exit 0; }; continue; }
			cmp -s \$RPMA_TMPDIR/repl \$D/repl\$((k % 4)) && { echo \$k; exit 0; }
		done
		same=\$(for f in 0 1 2 3; do cmp -s \$RPMA_TMPDIR/repl \$D/repl\$f && echo \" (the input of rounds \$f mod 4)\"; done)
		echo \"repl holds \$(stat -c %s \$RPMA_TMPDIR/repl) bytes\$same: no round of $rounds whole\"
		exit 1" 120) || fail "after cut $((c + 1)): repl: $out; the rounds since $REPL_OK: $(awk -v k="$REPL_OK" '$1 > k { printf "%s exit %s, ", $1, $2 }' "${W[$S]}/repl.done")"
	[[ ${out##*$'\n'} =~ ^[0-9]+$ ]] && pc_repl_held=${out##*$'\n'}
	log "after cut $((c + 1)): main holds $len bytes, a prefix (the sender had reported $committed); repl holds round $pc_repl_held's whole (it may: $rounds)"
	# the next aim in a receiver started again once this one finished
	# what the cut left half done (which may pass that very step)
	if [ -n "${pc_aims[c + 1]:-}" ]; then
		out=$(on $R "recv_down || echo 'the receiver did not stop'" 120)
		[ -z "$out" ] && out=$(pc_recv "${pc_aims[c + 1]}") || {
			fail "$R's receiver did not start again to stop at ${pc_aims[c + 1]}: $out"
			return 1
		}
	fi
	link_heal >/dev/null 2>&1
}

declare -A pc_hit=()
pc_broke=
pc_checked=0
pc_repl_held=0
for ((c = 0; c < pc_cuts; c++)); do
	aim=${pc_aims[c]:-}
	if [ -n "$aim" ]; then
		# an aimed cut: where the receiver stopped itself, at once
		pc_stopped "$aim" || {
			fail "cut $((c + 1)): $R's receiver never stopped at $aim: $(tail -n 2 "${W[$R]}/recv-${HOST_BOOTS[$R]}.log")"
			pc_broke=1
			break
		}
		host_cut $R
		committed=$(reported "$slog")
		partition $R
		pc_repl_state
		pc_hit[at $aim]=$((${pc_hit[at $aim]:-0} + 1))
		log "cut $((c + 1)) of $pc_cuts at $(date +%T): at $aim, ${committed} bytes reported committed; repl: round $REPL_OK ended 0, round $REPL_NEXT in flight"
	else
		pc_cut_at_position || { pc_broke=1; break; }
	fi
	pc_after_cut || { pc_broke=1; break; }
done

# (after a failed step, no longer than it takes to say so: a sender with
# --retry 1000 waits for a receiver that may not come back)
out=$(job_wait $S "$pc_sender" "$([ -n "$pc_broke" ] && echo 30 || echo 2400)")
[ "$out" = "exit 0" ] || fail "the sender: $out, want exit 0: $(grep -v '^rpma-send: committed ' "$slog" | tail -n 5)"
: >"${W[$S]}/repl.stop"
job_wait $S "$pc_repl" 400 >/dev/null || fail "the replacement loop did not end"
out=$(on $S "timeout 600 \$SEND --verify \$D/power \$RPMA_IP_${R^^}/main 2>&1" 620) ||
	fail "--verify of main after the cuts: $out"
out=$(on $R "recv_down || echo 'the receiver did not stop'
	SKIP=$pc_checked log_prefix \$RPMA_DEVDAX \$D/power $pc_total \$RPMA_DISK/archive main" 300) ||
	fail "main at the end: $out"
hits=
for k in "${!pc_hit[@]}"; do hits+="${hits:+, }$k ${pc_hit[$k]}"; done
rounds=$(awk '{ n[$2]++ } END { for (rc in n) printf "%s%d exit %s", (s++ ? ", " : ""), n[rc], rc }' "${W[$S]}/repl.done" 2>/dev/null)
log "power cuts: $pc_cuts cut(s) (seed $pc_seed); what they hit: ${hits:-mid-stream only}; replacement rounds: ${rounds:-none}"
# a replacement's sender (no --retry) whose receiver's host vanished ends
# on its own (exit 3), within its bounds: none waits for timeout to end it
grep -q ' 124$' "${W[$S]}/repl.done" 2>/dev/null &&
	fail "a replacement's sender hung until timeout killed it (rounds $(awk '$2 == 124 { printf "%s ", $1 }' "${W[$S]}/repl.done")): $(grep -v ' committed, ' "${W[$S]}/repl.log" | grep -B3 -A40 -m1 '^bounded:')"
end_case
