#!/bin/bash
# Releases side by side: this build and each of the last releases
# (scripts/release-before writes their builds' paths into
# BUILD/release-before, one a line, newest first) in one guest, each way
# round, as a fleet is upgraded: the old sender into a new receiver, the
# new sender into an old one, an old reader (--verify, --fetch) against a
# new receiver, one stream to three replicas of mixed releases with
# --quorum 2, and a rolling upgrade: three old receivers, each in turn
# stopped and started on this build while an old sender streams under
# --retry; it never stops and every replica ends exact.
# Runs inside the VM test bed: scripts/vm-run -- tests/e2e/releases.sh BUILD
BUILD="$1"
. "$(dirname "$0")/lib.sh"

mapfile -t olds < <(grep -v '^$' "$BUILD/release-before" 2>/dev/null)
for old in "${olds[@]:-}"; do
	[ -n "$old" ] && [ -x "$old/src/rpma-send/rpma-send" ] && continue
	start_case "the releases before are built beside this one"
	fail "BUILD/release-before names no build of a release ($BUILD/release-before: '$old'): { scripts/release-before; scripts/release-before 0.3.0; } > $BUILD/release-before"
	end_case
	summary
	exit
done
NEW_SEND=$SEND NEW_RECV=$RECV
RECV_OPTS=(-v) # each receiver gets its own --listen ADDR:PORT

input="$WORK/input"
head -c 8M /dev/urandom >"$input"

# recv_as RELEASE I POOL [ARGS...]: receiver I of that release (old, new)
# on port 730I and POOL; its pid in rpid[I].
rpid=()
recv_as() {
	local release=$1 i=$2 pool=$3
	shift 3
	if [ "$release" = old ]; then RECV=$OLD_RECV; else RECV=$NEW_RECV; fi
	start_recv "$WORK/recv$i.$release.log" --listen "$RECV_IP:730$i" \
		--create 64M "$@" "$pool"
	local rc=$?
	rpid[i]=$RECV_PID
	RECV=$NEW_RECV
	[ "$rc" = 0 ] || fail "the $release receiver $i did not start: $(cat "$WORK/recv$i.$release.log")"
	return "$rc"
}

stop_recv() {
	kill -TERM "${rpid[$1]}" 2>/dev/null
	reap "${rpid[$1]}"
	[ "$REAP_RC" = 0 ] || fail "receiver $1 exited $REAP_RC on SIGTERM"
}

# run_as RELEASE NAME ARGS...: that release's rpma-send ARGS must exit 0.
run_as() {
	local release=$1 name=$2 bin=$NEW_SEND rc=0
	shift 2
	[ "$release" = old ] && bin=$OLD_SEND
	timeout 120 "$bin" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
	[ "$rc" = 0 ] || fail "$name: the $release rpma-send exited $rc: $(cat "$WORK/err")"
	return "$rc"
}

# one_way SENDER RECEIVER: SENDER's rpma-send ships the input into
# RECEIVER's rpma-recv and says it is there (--verify); the pool exact.
one_way() {
	local pool="$WORK/$1-to-$2.pool"
	start_case "the $1 sender into the $2 receiver, both ways with --verify (old: $OLD_VERSION)"
	if recv_as "$2" 1 "$pool"; then
		run_as "$1" "ship" --truncate=in-place "$RECV_IP:7301" "$input"
		run_as "$1" "its --verify" --verify "$input" "$RECV_IP:7301"
		run_as "$([ "$1" = old ] && echo new || echo old)" "the other's --verify" \
			--verify "$input" "$RECV_IP:7301"
		stop_recv 1
		check_pool "$pool" "$input"
	fi
	end_case
}

# against OLD: every case with OLD (a release's build folder) as "old".
against() {
	OLD_SEND=$1/src/rpma-send/rpma-send OLD_RECV=$1/src/rpma-recv/rpma-recv
	# the release's number from its build's folder
	# (release-VERSION-COMMIT/build/release): 0.3.0's programs say 0.1.0
	OLD_VERSION=$(sed -n 's|.*/release-\([0-9][0-9.]*\)-[0-9a-f]*/build/release/*$|\1|p' <<<"$1")
	[ -n "$OLD_VERSION" ] || OLD_VERSION=$("$OLD_SEND" --version | cut -d' ' -f2)
	log "this build: $("$NEW_SEND" --version); against: $("$OLD_SEND" --version)"
	# each release starts from new pools (the receivers --create them)
	rm -f "$WORK"/*.pool
	one_way old new
	one_way new old

	start_case "an old reader (--verify, --fetch) against a new receiver (old: $OLD_VERSION)"
	if recv_as new 1 "$WORK/reader.pool"; then
		run_as new "ship" --truncate=in-place "$RECV_IP:7301" "$input"
		run_as old "--verify" --verify "$input" "$RECV_IP:7301"
		run_as old "--fetch" --fetch "$RECV_IP:7301" "$WORK/fetched"
		cmp -s "$WORK/fetched" "$input" || fail "the old --fetch did not read the log back"
		stop_recv 1
	fi
	end_case

	# The replicas' pools and targets.
	pools=("$WORK/rep0.pool" "$WORK/rep1.pool" "$WORK/rep2.pool")
	targets="$RECV_IP:7300,$RECV_IP:7301,$RECV_IP:7302"

	start_case "one stream to three replicas of mixed releases (new, old, new), --quorum 2 (old: $OLD_VERSION)"
	if recv_as new 0 "${pools[0]}" && recv_as old 1 "${pools[1]}" && recv_as new 2 "${pools[2]}"; then
		for s in new old; do
			run_as "$s" "the $s sender" --truncate=in-place --quorum 2 "$targets" "$input"
		done
	fi
	for i in 0 1 2; do stop_recv "$i"; done
	for i in 0 1 2; do check_pool "${pools[$i]}" "$input"; done
	end_case

	# A rolling upgrade: the old sender streams (fed, 16 MiB in 128 KiB
	# pieces 0.25 s apart: 32 s and more) while each old receiver in turn
	# goes down (SIGTERM) and comes back on this build, some seconds apart:
	# with --quorum 2 the stream goes on through each (its input ends after
	# the last), and the replica back catches up.
	start_case "a rolling upgrade of three receivers under an old sender's stream (--quorum 2, --retry) (old: $OLD_VERSION)"
	head -c 16M /dev/urandom >"$WORK/stream"
	for i in 0 1 2; do recv_as old "$i" "${pools[$i]}" || break; done
	SEND=$OLD_SEND FEED_CHUNKS=128 FEED_PAUSE=0.25 start_fed_sender "$WORK/stream" --truncate=in-place --quorum 2 --retry 50 "$targets"
	for i in 0 1 2; do
		nap 6
		stop_recv "$i"
		nap 1
		recv_as new "$i" "${pools[$i]}" || break
		log "receiver $i upgraded: $(head -n 1 "$WORK/recv$i.new.log")"
	done
	nap 1
	kill -0 "$SEND_PID" 2>/dev/null || fail "the stream ended before the last upgrade: give it a longer input"
	end_feed "$WORK/stream" "$WORK/stream.fed"
	reap "$SEND_PID"
	[ "$REAP_RC" = 0 ] || fail "the old sender stopped: exit $REAP_RC: $(tail -n 5 "$WORK/send.log")"
	for i in 0 1 2; do stop_recv "$i"; done
	for i in 0 1 2; do check_pool "${pools[$i]}" "$WORK/stream.fed"; done
	end_case
}

for old in "${olds[@]}"; do against "$old"; done

summary
