# shellcheck shell=bash
# Power cuts of the PMem under the persistence model (tests/shadow, sourced
# by crash.sh). The receiver runs with the model preloaded: every range it
# makes persistent is copied to the pool's shadow, nothing else is. A cut
# kills it (kill -9) and puts the pool back as the shadow says, which is
# what the PMem keeps when the power goes: a store that was never flushed
# and drained is gone, whatever the emulated NVDIMM kept. Then, before the
# receiver starts again, the pool must check clean (pmempool check), hold a
# prefix of the input, and hold every byte the sender had been told was
# committed (its own count, said when it lost the receiver). Each stream
# ships new random bytes into a pool that held others ($input, overwritten).
#
# The self-tests leave one kind of the receiver's persists out of the model
# (RPMA_SHADOW_SKIP: the offset word, a staged copy into the data range) and
# pass only when the cuts find the loss.

SHADOW_LIB=$BUILD/tests/shadow/librpma_persist_shadow.so
SHADOW_RESTORE=$BUILD/tests/shadow/persist-shadow-restore

# model_recv SKIP ARGS...: the receiver on ARGS under the model (the shadow
# in $WORK/shadow), leaving SKIP's persists out (none: every one kept),
# its log MODEL_RECV_LOG (default $WORK/recv.log); stopping at step
# MODEL_STOP of a rotation (RPMA_RECV_STOP_AT) if set; with MODEL_DEVICE=1
# a one-sided writer's bytes count as made persistent by the device up to
# the write offset the receiver persists (RPMA_SHADOW_DEVICE).
model_recv() {
	local skip=$1
	shift
	printf '#!/bin/sh\nexec env LD_PRELOAD=%q RPMA_SHADOW_DIR=%q RPMA_SHADOW_SKIP=%q RPMA_SHADOW_DEVICE=%q RPMA_RECV_STOP_AT=%q %q "$@"\n' \
		"$SHADOW_LIB" "$WORK/shadow" "$skip" "${MODEL_DEVICE:-}" "${MODEL_STOP:-}" "$RECV" >"$WORK/model-recv"
	chmod +x "$WORK/model-recv"
	RECV=$WORK/model-recv start_recv "${MODEL_RECV_LOG:-$WORK/recv.log}" "$@"
}

# model_check POOL MIN: the pool after a cut, as pmempool and the input say;
# sets VIOLATION (empty: none), LOSS (1: the pool broke a rule) and LEN (the
# bytes it holds).
model_check() {
	local pool=$1 min=$2 out=$WORK/dump
	VIOLATION='' LEN=0 LOSS=1
	if ! pool_consistent "$pool"; then
		VIOLATION="pmempool check: $(tr '\n' ' ' <"$WORK/check")"
		return
	fi
	if [ -n "${MODEL_ARCHIVE:-}" ]; then
		# the log's whole content: its archive, then its pool
		"$RECV" --export "$out" --archive "$MODEL_ARCHIVE" "$pool" 2>"$WORK/export.err" || {
			VIOLATION="--export: $(cat "$WORK/export.err")"
			return
		}
	elif ! pool_data "$pool" "$out"; then
		VIOLATION="pmempool dump failed"
		return
	fi
	LEN=$(stat -c %s "$out")
	if ! cmp -s -n "$LEN" "$out" "$input" || [ "$LEN" -gt "$(stat -c %s "$input")" ]; then
		VIOLATION="the log's $LEN bytes are not a prefix of the input"
	elif [ "$LEN" -lt "$min" ]; then
		VIOLATION="the log holds $LEN bytes, the sender had $min committed"
	fi
	[ -n "$VIOLATION" ] || LOSS=0
}

# model_provoke_takeover: the receiver silent (stopped) until its sender
# gives its session up and asks for it again with its token; then it goes
# on, and takes the session over (its stopped time counts as no silence of
# the sender's). The sender's disconnect is lost on the way (until
# model_cuts lets them pass again): heard, it could end the old session
# before the new request is read, and there would be nothing to take over
# (CI saw it once). Sets VIOLATION when the sender never gave up.
model_provoke_takeover() {
	local n i
	n=$(grep -c 'lost after committing' "$WORK/send.log")
	disconnects_lost
	kill -STOP "$RECV_PID"
	for ((i = 0; i < 600; i++)); do
		[ "$(grep -c 'lost after committing' "$WORK/send.log")" -gt "$n" ] && break
		nap 0.1
	done
	kill -CONT "$RECV_PID"
	[ "$i" -lt 600 ] || VIOLATION="the sender never gave up on a silent receiver: $(tail -n 2 "$WORK/send.log")"
	[ -z "$VIOLATION" ]
}

# model_cuts POOL METHOD CUTS SKIP [RECV ARGS...]: a stream of the input
# into POOL with --retry, its receiver cut CUTS times: first at each step
# named in MODEL_AIMS (where the receiver stops itself, RPMA_RECV_STOP_AT:
# a rotation's steps, a commit's, a takeover's, which is provoked first),
# then at seeded moments. Returns 1 at the first
# violation (in VIOLATION), 0 when every cut kept what it should and the
# pool ended as exactly what was fed (the input ends after the last cut).
model_cuts() {
	local pool=$1 method=$2 cuts=$3 skip=$4 c committed lost restored t0 t1 t2 t3 stopped
	local aims=() MODEL_STOP
	shift 4
	read -r -a aims <<<"${MODEL_AIMS:-}"
	MODEL_STOP=${aims[0]:-}
	rm -rf "$WORK/shadow"
	mkdir -p "$WORK/shadow"
	VIOLATION='' LOSS=0 MODEL_MID_ROTATION=0
	# bytes the pool never held: a lost truncation or a stale copy shows
	head -c 8M /dev/urandom >"$input"
	model_recv "$skip" "$@" "$pool" || {
		VIOLATION="the receiver did not start: $(cat "$WORK/recv.log")"
		return 1
	}
	# paced: the stream outlasts the cuts (about 16 s of input, stalled
	# while the receiver is down; between cuts a pause of up to 1.4 s)
	FEED_PAUSE=0.25 SEND_TIMEOUT=400 start_fed_sender "$input" --truncate=in-place \
		--method "$method" --batch 64K --retry 60 "$RECV_IP"
	wait_for "$WORK/recv.log" "connected at" 30 || VIOLATION="the sender did not connect: $(cat "$WORK/send.log")"
	for ((c = 1; c <= cuts && !${#VIOLATION}; c++)); do
		if [ -n "$MODEL_STOP" ]; then
			# an aimed cut: it must happen where it is aimed
			if [[ $MODEL_STOP == takeover-* ]]; then
				# the sender's loss is said now: the cut comes
				# while it waits for its request's answer
				model_provoke_takeover || {
					VIOLATION="cut $c: $VIOLATION"
					break
				}
			fi
			stopped=0
			wait_for "$WORK/recv.log" "stopping at $MODEL_STOP" 90 "$SEND_PID" && stopped=1
			[[ $MODEL_STOP != takeover-* ]] || disconnects_pass
			[ "$stopped" = 1 ] || {
				VIOLATION="cut $c: the receiver never stopped at $MODEL_STOP: $(tail -n 2 "$WORK/recv.log")"
				break
			}
		else
			delay
		fi
		kill -0 "$SEND_PID" 2>/dev/null || {
			VIOLATION="the stream ended after $((c - 1)) of $cuts cuts: make the input last longer"
			break
		}
		t0=$(date +%s%N)
		kill -9 "$RECV_PID"
		wait_recv
		# the sender's own count of what was committed when it lost it
		lost=
		for _ in $(seq 300); do
			[ "$(grep -c 'lost after committing' "$WORK/send.log")" -ge "$c" ] && lost=1 && break
			nap 0.1
		done
		[ -n "$lost" ] || {
			VIOLATION="cut $c: the sender did not say it lost the receiver: $(tail -n 3 "$WORK/send.log")"
			break
		}
		t1=$(date +%s%N)
		committed=$(sed -n 's/.*lost after committing \([0-9]*\) input bytes.*/\1/p' "$WORK/send.log" | tail -n 1)
		restored=$("$SHADOW_RESTORE" "$WORK/shadow" 2>&1) || {
			VIOLATION="cut $c: $restored"
			break
		}
		model_check "$pool" "$committed"
		[ -z "$VIOLATION" ] || {
			VIOLATION="cut $c: $VIOLATION (${restored##*: })"
			break
		}
		t2=$(date +%s%N)
		MODEL_STOP=${aims[c]:-}
		model_recv "$skip" "$@" "$pool" || VIOLATION="cut $c: the receiver did not start again: $(cat "$WORK/recv.log")"
		! grep -q "finishing a rotation cut short" "$WORK/recv.log" || MODEL_MID_ROTATION=$((MODEL_MID_ROTATION + 1))
		# the next cut falls in a session, not between two
		[ -n "$VIOLATION" ] || ! kill -0 "$SEND_PID" 2>/dev/null ||
			wait_for "$WORK/recv.log" "connected at" 60 "$SEND_PID" ||
			VIOLATION="cut $c: the sender did not come back: $(tail -n 3 "$WORK/send.log")"
		t3=$(date +%s%N)
		log "cut $c${aims[c - 1]:+ (at ${aims[c - 1]})}: the log holds $LEN bytes, a prefix; the sender had $committed committed; ${restored##*: }; the loss seen in $(((t1 - t0) / 1000000)) ms, restored and checked in $(((t2 - t1) / 1000000)) ms, streaming again $(((t3 - t2) / 1000000)) ms later"
	done
	if [ -n "$VIOLATION" ]; then
		kill -9 "$SEND_PID" "$RECV_PID" 2>/dev/null
		reap "$SEND_PID"
		wait_recv
		stop_feed
		return 1
	fi
	# The cuts done, the input ends (at the end of the chunk being fed: the
	# rest of the paced stream took 20-45 s under TCG and tested nothing
	# more); the log must end as exactly what was fed.
	end_feed "$input" "$WORK/fed"
	reap "$SEND_PID"
	[ "$REAP_RC" = 0 ] || VIOLATION="the sender exited $REAP_RC after the cuts: $(grep -v committed "$WORK/send.log" | tail -n 3)"
	kill -TERM "$RECV_PID"
	wait_recv
	[ -n "$VIOLATION" ] || model_check "$pool" "$FED"
	[ -z "$VIOLATION" ] || return 1
	cmp -s "$WORK/dump" "$WORK/fed" || VIOLATION="the log at the end is not the $FED bytes it was fed"
	[ -z "$VIOLATION" ]
}

# MODEL_ARCHIVE=DIR model_rotation_cuts POOL METHOD CUTS SKIP: model_cuts of
# a fresh 2 MiB log rotating at half full into DIR (8 MiB of input: a
# rotation every MiB or so, some cut in their seal or rebase); the log is checked as
# --export reads it, archive and pool.
model_rotation_cuts() {
	rm -rf "$1" "$MODEL_ARCHIVE"
	mkdir -p "$MODEL_ARCHIVE"
	model_cuts "$1" "$2" "$3" "$4" --create 2M --archive "$MODEL_ARCHIVE" --rotate-at 50%
}

# model_cut_case POOL METHOD CUTS [RECV ARGS...]: every cut keeps what was
# committed, the stream ends exact.
model_cut_case() {
	local pool=$1 method=$2 cuts=$3
	shift 3
	start_case "$cuts power cuts of the PMem under the persistence model: $method on $pool"
	model_cuts "$pool" "$method" "$cuts" none "$@" || fail "$VIOLATION"
	end_case
}

# model_self_test POOL METHOD CUTS SKIP [RECV ARGS...]: with SKIP's persists
# left out of the model, the cuts must find a loss.
model_self_test() {
	local pool=$1 method=$2 cuts=$3 skip=$4 run=model_cuts
	shift 4
	[ -z "${MODEL_ARCHIVE:-}" ] || run=model_rotation_cuts
	[ "$method" != switch ] || run=model_switch_runner
	start_case "self-test: the $skip's persists left out ($method on $pool${MODEL_ARCHIVE:+, rotating}), the cuts find it within $cuts"
	if $run "$pool" "$method" "$cuts" "$skip" "$@"; then
		fail "$cuts cuts with the $skip's persists left out found nothing: the cut cases cannot fail"
	elif [ "$LOSS" = 1 ]; then
		log "found: $VIOLATION"
	else
		fail "the self-test did not get to a cut's check: $VIOLATION"
	fi
	end_case
}

# model_rotation_case POOL METHOD CUTS: model_cut_case of a rotating log,
# its first cuts aimed at each step of a rotation.
model_rotation_case() {
	local steps="archive-copy archive-sealed pool-rewound base-recorded"
	start_case "$3 power cuts of the PMem under the persistence model: $2 on $1, rotating into an archive, cut first at $steps"
	MODEL_AIMS=$steps MODEL_ARCHIVE=$WORK/archive model_rotation_cuts "$1" "$2" "$3" none || fail "$VIOLATION"
	log "rotations: $(find "$WORK/archive" -type f | wc -l) archive files; 4 cuts aimed at a rotation's steps; after $MODEL_MID_ROTATION of the $3 the receiver finished a rotation cut short"
	end_case
}

# model_switch_cuts POOL SKIP: a replacement (--truncate) of a fresh 8 MiB
# log, cut at each step of its switch (switch-recorded: decided;
# switch-moving: its first chunk moved over the old content;
# switch-committed: the write offset covers it), a new replacement each
# time. After each cut, once the receiver has started (it finishes a
# decided switch), the log must be the replacement whole. Returns 1 at
# the first violation (VIOLATION, LOSS as model_cuts sets them).
# MODEL_SWITCH_STEPS names fewer steps.
model_switch_cuts() {
	local pool=$1 skip=$2 step out
	rm -rf "$pool" "$WORK/shadow"
	mkdir -p "$WORK/shadow"
	VIOLATION='' LOSS=0
	head -c 1M /dev/urandom >"$WORK/switch.old"
	if ! MODEL_STOP='' model_recv "$skip" --create 8M "$pool" ||
		! timeout 60 "$SEND" "$RECV_IP" "$WORK/switch.old" 2>"$WORK/send.log"; then
		VIOLATION="the first content: $(tail -n 2 "$WORK/recv.log" "$WORK/send.log")"
		return 1
	fi
	for step in ${MODEL_SWITCH_STEPS:-switch-recorded switch-moving switch-committed}; do
		# 2.5 MiB beside 1 MiB or more: moved in chunks over the old
		head -c 2560K /dev/urandom >"$WORK/switch.new"
		kill -TERM "$RECV_PID"
		wait_recv
		MODEL_STOP=$step model_recv "$skip" "$pool" || {
			VIOLATION="the receiver did not start: $(tail -n 2 "$WORK/recv.log")"
			return 1
		}
		spawn 120 "$WORK/send.log" "$SEND" --truncate "$RECV_IP" "$WORK/switch.new"
		SEND_PID=$SPAWN_PID
		wait_for "$WORK/recv.log" "stopping at $step" 60 "$SEND_PID" ||
			VIOLATION="the receiver never stopped at $step: $(tail -n 2 "$WORK/recv.log" "$WORK/send.log")"
		kill -9 "$RECV_PID" "$SEND_PID" 2>/dev/null
		wait_recv
		reap "$SEND_PID"
		[ -z "$VIOLATION" ] || return 1
		out=$("$SHADOW_RESTORE" "$WORK/shadow" 2>&1) || {
			VIOLATION="cut at $step: $out"
			return 1
		}
		LOSS=1
		if ! pool_consistent "$pool"; then
			VIOLATION="cut at $step: pmempool check: $(tr '\n' ' ' <"$WORK/check")"
		elif ! MODEL_STOP='' model_recv "$skip" "$pool"; then
			VIOLATION="cut at $step: the receiver refused the log: $(grep -v '^persist-shadow' "$WORK/recv.log" | tail -n 2)"
		elif ! "$RECV" --export "$WORK/dump" "$pool" 2>"$WORK/export.err"; then
			VIOLATION="cut at $step: --export: $(cat "$WORK/export.err")"
		elif cmp -s "$WORK/dump" "$WORK/switch.old"; then
			VIOLATION="cut at $step: the switch was decided, the log is the old content"
		elif ! cmp -s "$WORK/dump" "$WORK/switch.new"; then
			VIOLATION="cut at $step: the log ($(stat -c %s "$WORK/dump") bytes) is neither the old content nor the replacement"
		fi
		[ -z "$VIOLATION" ] || break
		LOSS=0
		log "cut at $step: the log is the replacement whole; ${out##*: }"
		mv "$WORK/switch.new" "$WORK/switch.old"
	done
	kill -TERM "$RECV_PID" 2>/dev/null
	wait_recv
	[ -z "$VIOLATION" ]
}

# model_switch_runner POOL switch CUTS SKIP: model_switch_cuts for
# model_self_test (its cuts are the switch's three steps).
model_switch_runner() { model_switch_cuts "$1" "$4"; }

# model_switch_case POOL: model_switch_cuts, every persist kept.
model_switch_case() {
	start_case "power cuts of the PMem under the persistence model inside a --truncate switch, at each of its steps: the replacement whole"
	model_switch_cuts "$1" none || fail "$VIOLATION"
	end_case
}
