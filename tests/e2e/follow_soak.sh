#!/bin/bash
# rpma-send -f at a size the suite's follow group does not reach, run by
# scripts/soak (minutes under TCG, outside CI):
# - stop-90mb: the receiver stopped (SIGSTOP) while logrotate (create,
#   rotate 20) runs 5 times over 1.8 million lines (about 90 MB), continued,
#   and the sender stopped by SIGTERM 1 s later: it ships all or names each
#   file and range it left (exit 9); --resume -f then ships exactly the
#   rest. stop-90mb-now: the same with --stop-wait 0. The remote log is checked byte for byte against the files, oldest
#   first: nothing missing, nothing doubled.
# - rotations-1000: the receiver stopped while the log is rotated 1000
#   times by size (numbered, rotate 2000, as logrotate does it, but in one
#   process), the sender started with a soft descriptor limit of 1024:
#   no "Too many open files", the reconnect succeeds, every line once.
# Runs inside the VM test bed: tests/e2e/follow_soak.sh BUILD [CASE...]
BUILD="$1"
. "$(dirname "$0")/lib.sh"

# soak_receiver NAME POOL SIZE: a receiver serving log NAME on POOL.
soak_receiver() {
	RECV_TIMEOUT=3000 start_recv "$WORK/recv.log" --log "$1=$2,create=$3" && return 0
	fail "receiver did not start: $(cat "$WORK/recv.log")"
	return 1
}

# lines FILE FROM COUNT: COUNT numbered lines of 50 bytes from FROM,
# appended to FILE (opened once, as an application between rotations).
lines() {
	perl -e 'my ($f, $n) = @ARGV[1, 2];
		open(my $o, ">>", $ARGV[0]) or die "$ARGV[0]: $!";
		printf $o "%07d %s\n", $_, "x" x 42 for $f .. $f + $n - 1;' "$@" ||
		fail "writing $1 failed"
}

# same_as_files POOL FILE...: the pool's log is the files' bytes, in order.
same_as_files() {
	local pool=$1
	shift
	pool_data "$pool" "$WORK/remote" || {
		fail "pmempool dump failed"
		return
	}
	cat "$@" >"$WORK/kept"
	if ! cmp -s "$WORK/remote" "$WORK/kept"; then
		fail "the remote log ($(wc -l <"$WORK/remote") lines) is not the files' $(wc -l <"$WORK/kept") lines in order: $(cmp "$WORK/remote" "$WORK/kept" 2>&1 | head -c 200)"
		return
	fi
	log "the remote log is the files' $(wc -l <"$WORK/kept") lines ($(stat -c %s "$WORK/kept") bytes), in order"
}

# left_said DIR: the stop's line names what was left, and what it names
# and what the sender committed make up every byte the files hold.
left_said() {
	local dir=$1 line committed left total
	line=$(grep "^rpma-send: [0-9]* stretch.* of followed files w[a-z]* left unread at the stop: .*; rpma-send --resume -f ships them" "$dir/send")
	[ -n "$line" ] || {
		fail "exit 9 with no line naming what was left: $(tail -n 3 "$dir/send")"
		return
	}
	committed=$(sed -n 's/^rpma-send: committed \([0-9]*\) bytes in .*/\1/p' "$dir/send")
	left=$(grep -o ' bytes [0-9]* to [0-9]*' <<<"$line" | awk '{ t += $4 - $2 } END { print t + 0 }')
	total=$(cat "$dir"/app.log* | wc -c)
	[ "$((committed + left))" = "$total" ] ||
		fail "committed $committed and left $left bytes, not the files' $total: $line"
}

# stop_90mb_case STOP_WAIT: see the top; the first sender's --stop-wait
# STOP_WAIT (5s, its default: it may ship all; 0: it names what is left).
stop_90mb_case() {
	local dir="$WORK/stop-$1" sender r t0=$SECONDS
	start_case "-f --stop-wait $1: receiver stopped through 5 logrotates over 1.8 million lines, SIGTERM 1 s after it continued: all shipped or the rest named (exit 9), --resume -f ships exactly the rest"
	mkdir -p "$dir"
	cat >"$dir/rotate.conf" <<EOF
$dir/app.log {
	create
	rotate 20
}
EOF
	soak_receiver app "$dir/app.pool" 160M || {
		end_case
		return
	}
	lines "$dir/app.log" 1 1000
	spawn 900 "$dir/send" "$SEND" -f --retry 100 --rotate-wait 1s --stop-wait "$1" "$RECV_IP/app" "$dir/app.log"
	sender=$SPAWN_PID
	wait_for "$WORK/recv.log" "connected at" 60 || fail "the sender did not connect"
	nap 2
	kill -STOP "$RECV_PID"
	for r in 0 1 2 3 4; do
		lines "$dir/app.log" $((1001 + r * 360000)) 360000
		logrotate -f -s "$dir/state" "$dir/rotate.conf" || fail "logrotate failed"
	done
	lines "$dir/app.log" 1800001 1000
	log "(5 rotations of 1.8 million lines written by $((SECONDS - t0)) s)"
	kill -CONT "$RECV_PID"
	nap 1
	kill -TERM "$sender"
	reap "$sender"
	log "(the sender exited $REAP_RC at $((SECONDS - t0)) s: $(tail -n 2 "$dir/send" | tr '\n' ' '))"
	case "$REAP_RC" in
	0) ;;
	9) left_said "$dir" ;;
	*) fail "the sender exited $REAP_RC: $(tail -n 5 "$dir/send")" ;;
	esac
	spawn 900 "$dir/send.2" "$SEND" -v --resume -f --stop-wait 10m "$RECV_IP/app" "$dir/app.log"
	sender=$SPAWN_PID
	wait_for "$dir/send.2" "batches of" 120 "$sender" || fail "--resume -f did not start: $(cat "$dir/send.2")"
	nap 2
	kill -TERM "$sender"
	reap "$sender"
	[ "$REAP_RC" = 0 ] || fail "--resume -f exited $REAP_RC: $(tail -n 5 "$dir/send.2")"
	log "(--resume -f: $(grep -m1 'end at byte' "$dir/send.2"))"
	kill -TERM "$RECV_PID"
	wait_recv
	same_as_files "$dir/app.pool" "$dir"/app.log.{5,4,3,2,1} "$dir/app.log"
	log "($((SECONDS - t0)) s)"
	end_case
}

# rotate_by_size LOG COUNT: COUNT rotations of LOG, each after 50 lines,
# numbered as logrotate's rotate 2000 names them (LOG.K to LOG.K+1, LOG to
# LOG.1, a new LOG).
rotate_by_size() {
	perl -e 'my ($log, $count) = @ARGV;
		my $n = 0;
		for my $r (1 .. $count) {
			open(my $o, ">>", $log) or die "$log: $!";
			printf $o "%07d %s\n", ++$n, "x" x 42 for 1 .. 50;
			close($o);
			rename("$log.$_", "$log." . ($_ + 1)) for reverse 1 .. $r - 1;
			rename($log, "$log.1") or die "rename $log: $!";
			open(my $new, ">>", $log) or die "$log: $!";
		}
		open(my $o, ">>", $log) or die "$log: $!";
		printf $o "%07d %s\n", ++$n, "x" x 42 for 1 .. 50;' "$@" ||
		fail "the rotations failed"
}

# rotations_1000_case: see the top.
rotations_1000_case() {
	local dir="$WORK/many" sender t0=$SECONDS end k files=()
	start_case "-f: 1000 rotations by size while the receiver is stopped, soft descriptor limit 1024: no EMFILE, every line once"
	mkdir -p "$dir"
	soak_receiver app "$dir/app.pool" 16M || {
		end_case
		return
	}
	: >"$dir/app.log"
	# (prlimit sets its own soft limit and execs the sender)
	spawn 1800 "$dir/send" prlimit --nofile=1024: -- "$SEND" -f --retry 200 --rotate-wait 0 "$RECV_IP/app" "$dir/app.log"
	sender=$SPAWN_PID
	wait_for "$WORK/recv.log" "connected at" 60 || fail "the sender did not connect"
	kill -STOP "$RECV_PID"
	rotate_by_size "$dir/app.log" 1000
	log "(1000 rotations by $((SECONDS - t0)) s; the sender holds $(find /proc/"$sender"/fd -mindepth 1 | wc -l) descriptors)"
	kill -CONT "$RECV_PID"
	# caught up, or no file done for 120 s
	local done=0 was=-1
	while [ "$done" -lt 1000 ] && kill -0 "$sender" 2>/dev/null; do
		[ "$done" = "$was" ] || end=$((SECONDS + 120))
		[ "$SECONDS" -lt "$end" ] || break
		was=$done
		nap 2
		done=$(grep -c 'done with ' "$dir/send")
	done
	log "(caught up by $((SECONDS - t0)) s: $(grep -c 'done with ' "$dir/send") files done)"
	kill -INT "$sender"
	reap "$sender"
	[ "$REAP_RC" = 0 ] || fail "the sender exited $REAP_RC: $(tail -n 5 "$dir/send")"
	! grep -q "Too many open files" "$dir/send" "$WORK/recv.log" ||
		fail "EMFILE: $(grep -m2 "Too many open files" "$dir/send" "$WORK/recv.log")"
	kill -TERM "$RECV_PID"
	wait_recv
	for ((k = 1000; k >= 1; k--)); do files+=("$dir/app.log.$k"); done
	same_as_files "$dir/app.pool" "${files[@]}" "$dir/app.log"
	end_case
}

shift # BUILD
for c in ${*:-stop-90mb stop-90mb-now rotations-1000}; do
	case "$c" in
	stop-90mb) stop_90mb_case 5s ;;
	stop-90mb-now) stop_90mb_case 0 ;;
	rotations-1000) rotations_1000_case ;;
	*) fail "no case $c" ;;
	esac
done

summary
