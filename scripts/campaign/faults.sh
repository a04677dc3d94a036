# shellcheck shell=bash
# The nemesis (scripts/campaign/guest): every fault our users meet, drawn
# from the seeded random sequence (kind, target, length, the pause before
# it), so that a seed replays the same schedule. Timed faults heal in the
# background, so that faults overlap (at most two at once); the history
# says when each began ("fault") and ended ("healed"). Uses from the guest:
# RUN, RECV, RECV_IP, the RECEIVERS and STREAMS lists, procs.sh, hist, nap.

# Which receivers may be killed: all but the one whose memory and
# descriptors are watched over the whole run.
KILLABLE=()
heals=()
link_busy=0

# Draws set a variable instead of printing: a draw in $(...) would come
# from a copy of the sequence, and the next one would repeat it.
# rand_ms VAR LOW HIGH: VAR is a number from LOW to HIGH (milliseconds).
rand_ms() { printf -v "$1" '%d' $(($2 + RANDOM % ($3 - $2 + 1))); }
# pick VAR WORD...: VAR is one of the words.
pick() {
	local var=$1
	shift
	local a=("$@")
	printf -v "$var" '%s' "${a[RANDOM % ${#a[@]}]}"
}
secs() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

# later MS WHAT COMMAND...: COMMAND after MS milliseconds, in the
# background; then "healed WHAT" in the history.
later() {
	local ms=$1 what=$2
	shift 2
	(
		nap "$(secs "$ms")"
		"$@"
		hist "healed $what"
	) &
	heals+=("$!")
}

# heals_wait MAX: waits until fewer than MAX timed faults are running.
heals_wait() {
	local live=() pid
	while :; do
		live=()
		for pid in "${heals[@]}"; do
			! kill -0 "$pid" 2>/dev/null || live+=("$pid")
		done
		heals=("${live[@]}")
		[ "${#heals[@]}" -ge "$1" ] || return 0
		nap 0.2
	done
}

# The link's netem queue stays for the whole run, a fault changing only its
# loss and delay: a packet rxe sends is then always queued (ip_local_out
# succeeds) and any loss is on the wire. Without it a veth's drop comes back
# to rxe as a send error, and on kernel 6.12 that puts a UD queue pair in the
# error state for good: with rdma_cm's QP1, no connect request is answered.
link_queue() {
	local v
	for v in veth0 veth1; do
		# shellcheck disable=SC2068 # netem's options, word by word
		tc qdisc replace dev $v root netem limit 1000000 $@ || return 1
	done
}

netem_clear() {
	link_queue || violation "tc qdisc replace failed (clearing the link)"
	link_busy=0
	echo 0 >"$RUN/link-busy"
}

fault_kill9_recv() {
	local name status ms
	pick name "${KILLABLE[@]}"
	rand_ms ms 0 2000
	hist "fault kill9_recv $name"
	status=$(recv_kill "$name" KILL)
	nap "$(secs "$ms")"
	recv_launch "$name"
	hist "healed kill9_recv $name (it ended with $status)"
}

fault_term_recv() {
	local name status
	pick name "${KILLABLE[@]}"
	hist "fault term_recv $name"
	status=$(recv_kill "$name" TERM)
	[ "$status" = 0 ] || violation "receiver $name exited $status on SIGTERM, not 0"
	recv_launch "$name"
	hist "healed term_recv $name"
}

fault_stop_recv() {
	local name ms pid
	pick name "${RECEIVERS[@]}"
	rand_ms ms 500 6000
	pid=$(recv_pid "$name")
	hist "fault stop_recv $name for $(secs "$ms") s"
	signal STOP "$pid"
	later "$ms" "stop_recv $name" signal CONT "$pid"
}

fault_stop_send() {
	local name ms pid
	pick name "${STREAMS[@]}"
	rand_ms ms 500 6000
	pid=$(cat "$RUN/send-$name.pid" 2>/dev/null)
	hist "fault stop_send $name for $(secs "$ms") s"
	[ -z "$pid" ] || signal STOP "$pid"
	later "$ms" "stop_send $name" signal CONT "$pid"
}

fault_kill9_send() {
	local name pid
	pick name "${STREAMS[@]}"
	pid=$(cat "$RUN/send-$name.pid" 2>/dev/null)
	hist "fault kill9_send $name"
	if [ -n "$pid" ] && is_ours "$pid"; then
		echo "$pid" >"$RUN/send-$name.killed"
		signal KILL "$pid"
	fi
	hist "healed kill9_send $name"
}

# The link: all of it (netem loss 100%: taking the veth down leaves this
# kernel's rxe deaf for good), or lossy and slow for a while.
fault_link() {
	local ms what loss delay pct d
	rand_ms ms 1000 6000
	rand_ms pct 1 3
	rand_ms d 1 10
	if [ $((RANDOM % 2)) = 0 ]; then
		what="link_cut" loss=100% delay=
	else
		what="netem" loss="$pct%" delay="delay ${d}ms"
	fi
	hist "fault $what loss $loss $delay for $(secs "$ms") s"
	echo 1 >"$RUN/link-busy"
	# shellcheck disable=SC2086 # delay is two words or none
	link_queue loss "$loss" $delay || violation "tc qdisc replace failed"
	later "$ms" "$what" netem_clear
}

# A reload of the receiver that serves several logs: a spare log added or
# removed, with SIGHUP, while its streams run.
fault_reload() {
	local spare
	spare=spare$((RANDOM % 3))
	if grep -q "^\[$spare\]" "$MULTI_CONF"; then
		sed -i "/^\[$spare\]/,+2d" "$MULTI_CONF"
		hist "fault reload multi: $spare removed"
	else
		printf '[%s]\npool = %s/%s.pool\ncreate = 4M\n' "$spare" "$RUN" "$spare" >>"$MULTI_CONF"
		hist "fault reload multi: $spare added"
	fi
	signal HUP "$(recv_pid multi)"
	hist "healed reload multi"
}

# A second receiver on another port, on a pool another one serves: it must
# be refused (one writer per pool), naming the holder.
fault_second_recv() {
	local name pool rc=0 out="$RUN/second-recv.log"
	pick name "${KILLABLE[@]}"
	pool=$(tr '\0' '\n' <"$RUN/recv-$name.args" | grep -m1 '\.pool$')
	hist "fault second_recv on $name's pool $pool"
	timeout 60 "$RECV" --once --listen "$RECV_IP:7399" "$pool" 2>"$out" || rc=$?
	[ "$rc" = 2 ] && grep -q "is in use by another rpma-recv (pid $(recv_pid "$name"))" "$out" ||
		violation "a second receiver on $name's pool $pool was not refused as in use (exit $rc): $(head -c 300 "$out")"
	hist "healed second_recv"
}

# A rogue writer (tests/rogue/rogue_sender, apm) against multi's log r: an
# offset past the end, before the start or backwards, one left unflushed,
# or old keys after a takeover. Each scenario first commits one honest
# chunk; the log must hold exactly such chunks, at least one per run that
# ended safe (checked at the end: check_rogue_log). A run the receiver got
# wrong (a write that SUCCEEDED, the log's end not where it must be) is a
# violation; one the other faults cut short is not.
fault_rogue() {
	local scenario rc=0 out="$RUN/rogue.out" ip arg=apm
	pick scenario offset-past-end offset-before-start offset-backwards \
		unflushed-offset stale-keys-reader takeover-across
	pick ip "$RECV_IP" "$OTHER_IP"
	# across: from one device to the other
	[ "$scenario" != takeover-across ] || arg="apm@$([ "$ip" = "$RECV_IP" ] && echo "$OTHER_IP" || echo "$RECV_IP")"
	hist "fault rogue $scenario on multi's log r through $ip"
	# a chunk for each run (takeover-across: two, one per device)
	local chunks=x
	[ "$scenario" != takeover-across ] || chunks=$'x\nx'
	echo "$chunks" >>"$RUN/rogue-runs"
	timeout 130 "$ROGUE" "$scenario" "$ip:7302/r" "$arg" >"$out" 2>&1 || rc=$?
	[ "$rc" != 0 ] || echo "$chunks" >>"$RUN/rogue-safe"
	if [ "$rc" = 1 ] && grep -q -E 'SUCCEEDED|, not [0-9]+' "$out"; then
		violation "the rogue writer's $scenario: $(head -c 600 "$out")"
	fi
	hist "healed rogue $scenario (exit $rc): $(head -c 300 "$out")"
}

# nemesis_strike: one fault, drawn from the sequence (rogue: where the
# test bed has a second device-DAX for its log).
nemesis_strike() {
	local kinds=(kill9_recv term_recv stop_recv stop_send kill9_send link reload second_recv)
	[ -z "${RPMA_DEVDAX2:-}" ] || kinds+=(rogue)
	local kind
	heals_wait 2
	link_busy=$(cat "$RUN/link-busy" 2>/dev/null || echo 0)
	pick kind "${kinds[@]}"
	# one link fault at a time; draw again (from the same sequence)
	while [ "$kind" = link ] && [ "$link_busy" = 1 ]; do
		pick kind "${kinds[@]}"
	done
	"fault_$kind"
}
