#!/bin/bash
# rpma-send -f through a real logrotate (Debian's): each kind of rotation
# users meet (create, copytruncate, dateext with olddir, compress with
# delaycompress, copytruncate with dateext and compress or with olddir and
# extension, nocreate, the file deleted and created again, a symlink put in
# its place), each with two applications at once writing numbered lines:
# one that reopens its log on SIGHUP from logrotate's postrotate (a moment
# after the rename, as a busy daemon does) and one that opens it for every
# line; 20 rotations 0.1 s apart, within the grace period; the kinds side
# by side, each into two logs of one receiver. Afterwards the
# remote logs are checked line by line against every file that holds lines
# (rotated, compressed, live): nothing the files keep is missing, nothing
# doubled, the order kept. The receiver stopped (SIGSTOP) for 30 s while
# logrotate runs 12 times on four logs (create, dateext, compress without
# delaycompress, copytruncate), then continued: every line, once, in order.
# A path whose directory appears 5 s later. And --resume -f after rotations
# while the sender was down, or when the copy it needs was compressed
# meanwhile. A file rotated and compressed before it was read: named at
# the end (under -q too), exit 8; copytruncate's own loss likewise; and
# lines written to a rotated file after the sender left it.
# copytruncate twice (numbered copies) while the sender cannot look. A
# stop with a backlog: named, exit 9, and --resume -f ships the rest.
# Runs inside the VM test bed: scripts/vm-run -- tests/e2e/follow.sh BUILD
# [CASE...] (the cases at the bottom; default all). The same at size, out
# of the suite: tests/e2e/follow_soak.sh (scripts/soak).
BUILD="$1"
. "$(dirname "$0")/lib.sh"

GRACE=${FOLLOW_GRACE:-1s} # --rotate-wait of the senders
ROTATIONS=2      # logrotate -f runs a case makes
APART=1.5        # seconds between them
REOPEN_DELAY=0.3 # the signalled application reopens this long after

# writer_on_signal LOG: numbered lines into LOG, reopened on SIGHUP, until
# SIGTERM (each line one write).
writer_on_signal() {
	local log=$1 n=0
	exec 3>>"$log"
	trap 'exec 3>>"$log"' HUP
	trap 'exit 0' TERM
	while :; do
		n=$((n + 1))
		printf 'line %06d\n' "$n" >&3
		nap 0.01
	done
}

# writer_each_time LOG: numbered lines, LOG opened for each, until SIGTERM,
# as an application that makes its log again only once it has been gone a
# second: one that creates it at every line races logrotate's create
# (rename, then create with O_EXCL: logrotate fails "File exists", CI saw
# it), a race between them, not one rpma-send could lose lines to.
writer_each_time() {
	exec perl -MFcntl -MTime::HiRes=sleep,time -e '
		my ($log, $n, $gone) = ($ARGV[0], 0, 0);
		$SIG{TERM} = sub { exit 0 };
		while (1) {
			my $flags = O_WRONLY | O_APPEND;
			$flags |= O_CREAT if $gone && time - $gone > 1;
			if (sysopen(my $f, $log, $flags)) {
				syswrite($f, sprintf("line %06d\n", ++$n));
				close($f);
				$gone = 0;
			} else {
				$gone ||= time;
			}
			sleep 0.01;
		}
	' "$1"
}

# rotate_conf KIND DIR: logrotate's configuration of a case for both logs
# of DIR (sig.log, each.log), its postrotate signalling the first writer.
rotate_conf() {
	local kind=$1 dir=$2 opts
	case "$kind" in
	create) opts="create" ;;
	copytruncate) opts="copytruncate" ;;
	dateext-olddir) opts="create
	dateext
	dateformat -%Y%m%d-%s
	olddir $dir/old" ;;
	delaycompress) opts="create
	compress
	delaycompress" ;;
	nocreate) opts="nocreate" ;;
	copytruncate-dateext-compress) opts="copytruncate
	dateext
	dateformat -%Y%m%d-%s
	compress" ;;
	copytruncate-olddir-extension) opts="copytruncate
	olddir $dir/old
	extension .log" ;;
	*) opts="" ;; # rotated by hand (rotate)
	esac
	cat <<EOF
$dir/sig.log $dir/each.log {
	$opts
	rotate 20
	missingok
	sharedscripts
	postrotate
		(sleep $REOPEN_DELAY; kill -HUP \$(cat $dir/sig.pid)) &
	endscript
}
EOF
}

# rotate KIND DIR: one rotation of both logs: logrotate -f with the case's
# configuration, or by hand for what logrotate does not do.
rotate() {
	local kind=$1 dir=$2 log
	case "$kind" in
	deleted)
		rm -f "$dir/sig.log" "$dir/each.log"
		(
			sleep "$REOPEN_DELAY"
			kill -HUP "$(cat "$dir/sig.pid")"
		) &
		;;
	symlink)
		# The directory's file becomes a symlink to a file elsewhere
		# (each rotation another one), the old file kept as .N.
		for log in sig each; do
			rotations=$((rotations + 1))
			mv "$dir/$log.log" "$dir/$log.log.$rotations"
			: >"$dir/elsewhere/$log.$rotations"
			# -f: the application that opens its log for every
			# line may have created it again meanwhile
			ln -sfn "$dir/elsewhere/$log.$rotations" "$dir/$log.log"
		done
		(
			sleep "$REOPEN_DELAY"
			kill -HUP "$(cat "$dir/sig.pid")"
		) &
		;;
	*)
		logrotate -f -s "$dir/state" "$dir/rotate.conf" ||
			fail "logrotate failed"
		;;
	esac
}

# burst DIR COUNT APART: COUNT rotations of both logs of DIR APART seconds
# apart in one process (logrotate's own start-up takes longer than that
# under TCG), each as logrotate does it with numbered names and create:
# LOG.K to LOG.K+1 (rotate 20), LOG to LOG.1, a new LOG; the signalled
# writer told REOPEN_DELAY later, as from postrotate.
burst() {
	local dir=$1 t=$EPOCHREALTIME
	perl -e '
		my ($dir, $count, $apart, $delay) = @ARGV;
		for my $r (1 .. $count) {
			for my $log ("$dir/sig.log", "$dir/each.log") {
				unlink("$log.20");
				rename("$log.$_", "$log." . ($_ + 1))
				    for reverse 1 .. 19;
				rename($log, "$log.1") or die "rename $log: $!";
				open(my $new, ">>", $log) or die "$log: $!";
				close($new);
			}
			if (!fork) {
				select(undef, undef, undef, $delay);
				open(my $p, "<", "$dir/sig.pid") or exit 0;
				kill "HUP", 0 + <$p>;
				exit 0;
			}
			select(undef, undef, undef, $apart);
		}
		1 while wait != -1;
	' "$dir" "$2" "$3" "$REOPEN_DELAY" || fail "the rotations failed"
	log "($2 rotations and their reopen signals in $(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s)"
}

# numbers FILE...: the line numbers the files hold (gzip'd ones read
# through zcat), one a line, in the order they appear.
numbers() {
	local f
	for f; do
		case "$f" in
		*.gz) zcat "$f" ;;
		*) cat "$f" ;;
		esac
	done | sed -n 's/^line \([0-9]\{6\}\)$/\1/p'
}

# check_lines WHAT POOL FILE...: the pool holds numbered lines only, in
# strictly increasing order (nothing doubled, the order kept), and every
# line the files hold.
check_lines() {
	local what=$1 pool=$2
	shift 2
	pool_data "$pool" "$WORK/remote" || {
		fail "$what: pmempool dump failed"
		return
	}
	local bad
	bad=$(grep -cv '^line [0-9]\{6\}$' "$WORK/remote")
	[ "$bad" = 0 ] || fail "$what: $bad lines of the remote log are not whole lines: $(grep -v '^line [0-9]\{6\}$' "$WORK/remote" | head -n 3)"
	numbers "$WORK/remote" >"$WORK/remote.n"
	sort -c -u "$WORK/remote.n" 2>"$WORK/order" ||
		fail "$what: remote log out of order or doubled: $(cat "$WORK/order")"
	numbers "$@" | sort -u >"$WORK/kept.n"
	sort -u "$WORK/remote.n" >"$WORK/remote.sorted"
	local missing
	missing=$(comm -23 "$WORK/kept.n" "$WORK/remote.sorted")
	[ -z "$missing" ] || fail "$what: $(wc -l <<<"$missing") of $(wc -l <"$WORK/kept.n") lines the files keep are missing from the remote log: $(head -c 200 <<<"$missing" | tr '\n' ' ')"
	log "$what: the remote log holds $(wc -l <"$WORK/remote.n") lines, the files $(wc -l <"$WORK/kept.n")"
}

# follow_rc_ok KIND RC LOG: a follower's exit status is 0, or 8 where
# copytruncate itself lost lines (written between its copy and its
# truncation, in no file) and the sender named them at the end.
follow_rc_ok() {
	[ "$2" = 0 ] && return 0
	[[ $2 == 8 && $1 == copytruncate* ]] &&
		grep -q "copytruncate's own loss" "$3" &&
		grep -q "of followed files w[a-z]* not shipped: " "$3"
}

# the_files DIR LOG: every file of DIR that holds lines of LOG (rotated,
# compressed, in olddir, named with logrotate's extension: LOG.1.log).
the_files() {
	local dir=$1 name=$2
	find "$dir" -name "$name.log*" -o -name "${name}[.-]*.log*" \
		-o -path "$dir/elsewhere/$name.*" | sort
}

# rotate_kind KIND DIR COUNT APART: COUNT rotations of KIND APART seconds
# apart; fails (exit 1, in a subshell) if one did.
rotate_kind() {
	local kind=$1 dir=$2 count=$3 apart=$4
	rotations=0
	if [ "$kind" = burst ]; then
		burst "$dir" "$count" "$apart"
	else
		for _ in $(seq 1 "$count"); do
			rotate "$kind" "$dir"
			nap "$apart"
		done
	fi
	[ "$case_failed" = 0 ]
}

# The kinds of rotation_case side by side: the helpers below share its
# arrays (bash's scope: a function sees its caller's locals), each indexed
# by SPEC: dir, count, apart, name (log names hold 31 bytes: sig-N,
# each-N), sig_send, each_send, writers, rotator, rotated, sig_rc,
# each_rc; and kinds, recv_logs.

# rotation_dirs SPEC...: each kind's folder, logrotate file and logs.
rotation_dirs() {
	local spec kind
	for spec; do
		IFS=: read -r kind "count[$spec]" "apart[$spec]" <<<"$spec"
		kinds+=("$spec")
		name[$spec]=${#kinds[@]}
		count[$spec]=${count[$spec]:-$ROTATIONS} apart[$spec]=${apart[$spec]:-$APART}
		dir[$spec]="$WORK/$kind-${count[$spec]}"
		mkdir -p "${dir[$spec]}/old" "${dir[$spec]}/elsewhere"
		rotate_conf "$kind" "${dir[$spec]}" >"${dir[$spec]}/rotate.conf"
		: >"${dir[$spec]}/sig.log"
		: >"${dir[$spec]}/each.log"
		recv_logs+=(--log "sig-${name[$spec]}=${dir[$spec]}/sig.pool,create=4M"
			--log "each-${name[$spec]}=${dir[$spec]}/each.pool,create=4M")
	done
}

# rotation_senders: each kind's two writers and their senders.
rotation_senders() {
	local spec d n
	for spec in "${kinds[@]}"; do
		d=${dir[$spec]} n=${name[$spec]}
		spawn 180 "$d/sig.send" "$SEND" -f --rotate-wait "$GRACE" "$RECV_IP/sig-$n" "$d/sig.log"
		sig_send[$spec]=$SPAWN_PID
		spawn 180 "$d/each.send" "$SEND" -f --rotate-wait "$GRACE" "$RECV_IP/each-$n" "$d/each.log"
		each_send[$spec]=$SPAWN_PID
		writer_on_signal "$d/sig.log" &
		echo "$!" >"$d/sig.pid"
		writers[$spec]=$!
		writer_each_time "$d/each.log" &
		writers[$spec]+=" $!"
	done
}

# rotation_run: every kind's rotations at once, then the writers end, and
# the senders once the last rotated files were read until quiet (what is
# left then is read on the signal); their exit codes kept.
rotation_run() {
	local spec
	for spec in "${kinds[@]}"; do
		rotate_kind "${spec%%:*}" "${dir[$spec]}" "${count[$spec]}" "${apart[$spec]}" &
		rotator[$spec]=$!
	done
	for spec in "${kinds[@]}"; do
		rotated[$spec]=0
		wait "${rotator[$spec]}" || rotated[$spec]=$?
	done
	# shellcheck disable=SC2086 # two pids a kind
	kill -TERM ${writers[*]}
	# shellcheck disable=SC2086
	wait ${writers[*]}
	nap 1.5
	kill -INT "${sig_send[@]}" "${each_send[@]}"
	for spec in "${kinds[@]}"; do
		reap "${sig_send[$spec]}"
		sig_rc[$spec]=$REAP_RC
		reap "${each_send[$spec]}"
		each_rc[$spec]=$REAP_RC
	done
}

# rotation_check SPEC: the kind's case: both senders ended as they should
# and each log holds every line its files keep, once, in order (the
# receiver's log shown at the first kind that failed).
rotation_check() {
	local spec=$1 d=${dir[$1]} k=${1%%:*}
	start_case "-f through ${count[$spec]} x $k ${apart[$spec]} s apart: nothing the files keep is missing or doubled"
	[ "${rotated[$spec]}" = 0 ] || fail "its rotations failed (said above)"
	follow_rc_ok "$k" "${sig_rc[$spec]}" "$d/sig.send" || fail "sig's sender exited ${sig_rc[$spec]}: $(cat "$d/sig.send")"
	follow_rc_ok "$k" "${each_rc[$spec]}" "$d/each.send" || fail "each's sender exited ${each_rc[$spec]}: $(cat "$d/each.send")"
	# shellcheck disable=SC2046 # one word a file
	check_lines "reopened on SIGHUP" "$d/sig.pool" $(the_files "$d" sig)
	# shellcheck disable=SC2046
	check_lines "opened for each line" "$d/each.pool" $(the_files "$d" each)
	if [ "$case_failed" != 0 ]; then
		log "senders: $(cat "$d/sig.send" "$d/each.send")"
		[ "$recv_said" = 1 ] || log "the receiver: $(cat "$WORK/recv.log")"
		recv_said=1
	fi
	end_case
}

# rotation_case SPEC...: for each SPEC (KIND, or KIND:COUNT:APART: COUNT
# rotations, default ROTATIONS, of KIND APART seconds apart, default
# APART) the two writers and their senders into a log each of one
# receiver, the kinds side by side (they wait on timers most of the time:
# one after another, nine took 9 x 11 s under TCG); then each kind's
# check, a case of its own.
rotation_case() {
	local spec t0=$SECONDS recv_logs=() kinds=() recv_said=0
	local -A dir count apart name sig_send each_send writers rotator rotated sig_rc each_rc
	rotation_dirs "$@"
	start_case "-f: ${#kinds[@]} kinds of rotation side by side (${kinds[*]}), one receiver, $((2 * ${#kinds[@]})) senders"
	# every log open before the senders start: what this case tests is
	# -f, not a receiver's start (twenty pools made at once under TCG
	# took 1.5 s each while the writers ran: senders with no --retry gave
	# up waiting)
	if ! start_recv "$WORK/recv.log" "${recv_logs[@]}" ||
		! wait_for "$WORK/recv.log" "all logs opened in" 120 "$RECV_PID"; then
		fail "receiver did not start: $(cat "$WORK/recv.log")"
		end_case
		return
	fi
	log "($(grep -o "all logs opened in [0-9.]* s" "$WORK/recv.log"))"
	rotation_senders
	nap 1
	log "(started in $((SECONDS - t0)) s)"
	rotation_run
	kill -TERM "$RECV_PID"
	wait_recv
	log "(stopped by $((SECONDS - t0)) s)"
	end_case
	for spec in "${kinds[@]}"; do
		rotation_check "$spec"
	done
}

# sender_killed DIR: a receiver serving DIR/sig.pool as sig, the signalled
# writer on DIR/sig.log (WRITER_PID) and a sender following it, killed -9
# 2 s after it connected, mid-stream (under a loaded TCG guest a sender
# can take longer than that to connect at all).
sender_killed() {
	local dir=$1
	mkdir -p "$dir"
	: >"$dir/sig.log"
	if ! start_recv "$WORK/recv.log" --log "sig=$dir/sig.pool,create=16M"; then
		fail "receiver did not start: $(cat "$WORK/recv.log")"
		return 1
	fi
	writer_on_signal "$dir/sig.log" &
	WRITER_PID=$!
	echo "$WRITER_PID" >"$dir/sig.pid"
	spawn 120 "$dir/send.1" "$SEND" -v -f "$RECV_IP/sig" "$dir/sig.log"
	wait_for "$dir/send.1" "method " 60 "$SPAWN_PID" ||
		fail "the first sender did not connect: $(cat "$dir/send.1")"
	nap 2
	kill -9 "$SPAWN_PID"
	reap "$SPAWN_PID"
}

# resume_case: a sender killed -9 mid-stream, the file rotated twice while
# it is down, then --resume -f: it finds where the log's last bytes end
# (in the oldest copy) and goes on from there through the newer copies to
# the live file: every line exactly once.
resume_case() {
	local dir="$WORK/resume"
	start_case "--resume -f after rotations while the sender was down: every line once, in order"
	local writer sender
	mkdir -p "$dir"
	rotate_conf create "$dir" >"$dir/rotate.conf"
	sender_killed "$dir" || {
		end_case
		return
	}
	writer=$WRITER_PID
	logrotate -f -s "$dir/state" "$dir/rotate.conf" || fail "logrotate failed"
	nap 1
	logrotate -f -s "$dir/state" "$dir/rotate.conf" || fail "logrotate failed"
	nap 1
	spawn 120 "$dir/send.2" "$SEND" --resume -f --rotate-wait "$GRACE" "$RECV_IP/sig" "$dir/sig.log"
	sender=$SPAWN_PID
	nap 2
	kill -TERM "$writer"
	wait "$writer"
	nap 3
	kill -INT "$sender"
	reap "$sender"
	[ "$REAP_RC" = 0 ] || fail "--resume -f exited $REAP_RC: $(cat "$dir/send.2")"
	grep -q "end at byte [0-9]* of $dir/sig.log.2, rotated while" "$dir/send.2" ||
		fail "it did not say where it went on: $(cat "$dir/send.2")"
	kill -TERM "$RECV_PID"
	wait_recv
	# shellcheck disable=SC2046 # one word a file
	check_lines "resumed" "$dir/sig.pool" $(the_files "$dir" sig)
	local last
	last=$(numbers $(the_files "$dir" sig) | sort -n | tail -n 1)
	[ "$(wc -l <"$WORK/remote.n")" = "$((10#$last))" ] ||
		fail "the remote log holds $(wc -l <"$WORK/remote.n") lines, not all $((10#$last))"
	end_case
}

# resume_refused_case: the copy the log's last bytes are in was compressed
# while the sender was down: --resume -f cannot know where to go on, and
# says so (exit 6), the log untouched.
resume_refused_case() {
	local dir="$WORK/refused"
	start_case "--resume -f when the copy it needs was compressed: exit 6, one line, the log untouched"
	local writer sender
	mkdir -p "$dir"
	rotate_conf create "$dir" | sed 's/^\tcreate$/\tcreate\n\tcompress/' >"$dir/rotate.conf"
	sender_killed "$dir" || {
		end_case
		return
	}
	writer=$WRITER_PID
	logrotate -f -s "$dir/state" "$dir/rotate.conf" || fail "logrotate failed"
	nap 1
	pool_data "$dir/sig.pool" "$dir/before"
	timeout 60 "$SEND" --resume -f "$RECV_IP/sig" "$dir/sig.log" 2>"$dir/send.2" &
	sender=$!
	wait "$sender"
	local rc=$?
	kill -TERM "$writer"
	wait "$writer"
	[ "$rc" = 6 ] || fail "--resume -f exited $rc, not 6: $(cat "$dir/send.2")"
	one_line_error "$dir/send.2"
	grep -q "cannot resume $dir/sig.log: the remote log's last" "$dir/send.2" ||
		fail "the line does not say why: $(cat "$dir/send.2")"
	kill -TERM "$RECV_PID"
	wait_recv
	pool_data "$dir/sig.pool" "$dir/after"
	cmp -s "$dir/before" "$dir/after" || fail "the log changed"
	end_case
}

OUTAGE_KINDS="create dateext compress copytruncate"
OUTAGE_SECONDS=30 # the receiver stopped (a rotation every 2.5 s)
OUTAGE_ROTATIONS=12

# outage_conf KIND DIR: logrotate's stanza for DIR/KIND.log in the outage
# case, its postrotate signalling KIND's writer.
outage_conf() {
	local kind=$1 dir=$2 opts
	case "$kind" in
	create) opts="create" ;;
	dateext) opts="create
	dateext
	dateformat -%Y%m%d-%s" ;;
	compress) opts="create
	compress" ;;
	copytruncate) opts="copytruncate" ;;
	esac
	cat <<EOF
$dir/$kind.log {
	$opts
	rotate 20
	missingok
	postrotate
		(sleep $REOPEN_DELAY; kill -HUP \$(cat $dir/$kind.pid)) &
	endscript
}
EOF
}

# cpu_seconds STAT...: the user and system time of the processes or
# threads of those /proc stat files, in seconds.
cpu_seconds() {
	cat "$@" 2>/dev/null | awk -v hz="$(getconf CLK_TCK)" \
		'{ t += $14 + $15 } END { printf "%.1f", t / hz }'
}

# caught_up LOGFILE: the sender has read every rotated file of the outage
# (one "done with" line each) and gone on to the live one.
caught_up() {
	[ "$(grep -c 'done with ' "$1")" -ge "$OUTAGE_ROTATIONS" ]
}

# outage_case: one receiver for four logs (OUTAGE_KINDS), each with a
# writer that reopens on SIGHUP and a sender with --retry; the receiver
# stopped (SIGSTOP) for OUTAGE_SECONDS while logrotate (rotate 20) runs
# OUTAGE_ROTATIONS times on all four, then continued: once the senders
# have caught up, every line the files keep is in each remote log, once,
# in order.
outage_case() {
	local dir="$WORK/outage" kind t0=$SECONDS i r end
	start_case "-f while the receiver is stopped for $OUTAGE_SECONDS s and logrotate runs $OUTAGE_ROTATIONS times ($OUTAGE_KINDS): every line once, in order"
	mkdir -p "$dir"
	local logs=() senders=() writers=()
	: >"$dir/rotate.conf"
	for kind in $OUTAGE_KINDS; do
		: >"$dir/$kind.log"
		outage_conf "$kind" "$dir" >>"$dir/rotate.conf"
		logs+=(--log "$kind=$dir/$kind.pool,create=16M")
	done
	if ! RECV_TIMEOUT=900 start_recv "$WORK/recv.log" "${logs[@]}"; then
		fail "receiver did not start: $(cat "$WORK/recv.log")"
		end_case
		return
	fi
	for kind in $OUTAGE_KINDS; do
		spawn 600 "$dir/$kind.send" "$SEND" -f --retry 50 \
			--rotate-wait "$GRACE" "$RECV_IP/$kind" "$dir/$kind.log"
		senders+=("$SPAWN_PID")
		writer_on_signal "$dir/$kind.log" &
		writers+=($!)
		echo $! >"$dir/$kind.pid"
	done
	nap 2
	kill -STOP "$RECV_PID"
	local stopped=$SECONDS
	log "(receiver stopped at $((SECONDS - t0)) s)"
	# one rotation every OUTAGE_SECONDS / OUTAGE_ROTATIONS, by the clock
	for r in $(seq 1 "$OUTAGE_ROTATIONS"); do
		logrotate -f -s "$dir/state" "$dir/rotate.conf" ||
			fail "logrotate failed"
		end=$((stopped + r * OUTAGE_SECONDS / OUTAGE_ROTATIONS))
		[ "$SECONDS" -ge "$end" ] || nap $((end - SECONDS))
	done
	kill -CONT "$RECV_PID"
	log "(receiver continued at $((SECONDS - t0)) s)"
	i=0
	end=$((SECONDS + 180)) # all of them caught up by then
	for kind in $OUTAGE_KINDS; do
		until caught_up "$dir/$kind.send" || [ "$SECONDS" -ge "$end" ] ||
			! kill -0 "${senders[$i]}" 2>/dev/null; do
			nap 0.5
		done
		caught_up "$dir/$kind.send" ||
			fail "$kind's sender did not read all $OUTAGE_ROTATIONS rotated files: $(tail -n 5 "$dir/$kind.send")"
		i=$((i + 1))
	done
	log "(caught up at $((SECONDS - t0)) s)"
	kill -TERM "${writers[@]}"
	wait "${writers[@]}"
	nap 1.5
	i=0
	for kind in $OUTAGE_KINDS; do
		local pid=${senders[$i]} threads=()
		for t in /proc/"$pid"/task/*; do
			[ "$t" = "/proc/$pid/task/$pid" ] || threads+=("$t/stat")
		done
		log "($kind's sender used $(cpu_seconds "/proc/$pid/stat") s of CPU, $(cpu_seconds "${threads[@]}") s of it in its follower's thread)"
		kill -INT "${senders[$i]}"
		reap "${senders[$i]}"
		follow_rc_ok "$kind" "$REAP_RC" "$dir/$kind.send" || fail "$kind's sender exited $REAP_RC: $(tail -n 5 "$dir/$kind.send")"
		i=$((i + 1))
	done
	kill -TERM "$RECV_PID"
	wait_recv
	for kind in $OUTAGE_KINDS; do
		# shellcheck disable=SC2046 # one word a file
		check_lines "$kind" "$dir/$kind.pool" $(the_files "$dir" "$kind")
	done
	[ "$case_failed" = 0 ] ||
		log "senders: $(cat "$dir"/*.send); the receiver: $(tail -n 40 "$WORK/recv.log")"
	end_case
}

# one_log_receiver NAME POOL SIZE: a receiver serving log NAME on POOL
# (created SIZE); says so and returns 1 when it does not start.
one_log_receiver() {
	start_recv "$WORK/recv.log" --log "$1=$2,create=$3" && return 0
	fail "receiver did not start: $(cat "$WORK/recv.log")"
	return 1
}

# log_case TITLE NAME POOL SIZE: a case of one log: its folder ($dir) and
# a receiver serving log NAME on POOL (created SIZE); returns 1, the case
# ended as failed, when the receiver does not start.
log_case() {
	start_case "$1"
	mkdir -p "$dir"
	one_log_receiver "$2" "$3" "$4" && return 0
	end_case
	return 1
}

# sender_done SENDER LOG: a following sender stopped by SIGINT, which must
# exit 0 (its stderr in LOG), then the receiver.
sender_done() {
	kill -INT "$1"
	reap "$1"
	[ "$REAP_RC" = 0 ] || fail "the sender exited $REAP_RC: $(cat "$2")"
	kill -TERM "$RECV_PID"
	wait_recv
}

# late_dir_case: -f on a path whose directory (and the one above it) is
# created 5 s later; then the writer and a rotation: every line.
late_dir_case() {
	local dir="$WORK/late" logdir="$WORK/late/not-yet/logs" writer sender
	log_case "-f on a path whose directory is created 5 s later: every line" late "$dir/late.pool" 16M || return 0
	spawn 120 "$dir/send" "$SEND" -f --rotate-wait "$GRACE" \
		"$RECV_IP/late" "$logdir/sig.log"
	sender=$SPAWN_PID
	nap 5
	mkdir -p "$logdir"
	writer_on_signal "$logdir/sig.log" &
	writer=$!
	echo "$writer" >"$logdir/sig.pid"
	rotate_conf create "$logdir" >"$dir/rotate.conf"
	nap 2
	logrotate -f -s "$dir/state" "$dir/rotate.conf" || fail "logrotate failed"
	nap 2
	kill -TERM "$writer"
	wait "$writer"
	nap 1.5
	sender_done "$sender" "$dir/send"
	# shellcheck disable=SC2046 # one word a file
	check_lines "late directory" "$dir/late.pool" $(the_files "$logdir" sig)
	[ -s "$WORK/kept.n" ] || fail "the writer wrote nothing"
	end_case
}

# lost_case: a file that comes to the name and is rotated away and
# compressed before the follower looks (it is stopped meanwhile) is lost:
# under -q the sender says so at the end in one line naming it, and exits
# 8; the lines before and after it are shipped.
lost_case() {
	local dir="$WORK/lost" sender
	log_case "-q -f: a file rotated and compressed before it was read is named at the end, exit 8" lost "$dir/lost.pool" 16M || return 0
	printf 'line 000001\n' >"$dir/app.log"
	spawn 60 "$dir/send" "$SEND" -q -f --rotate-wait 1s "$RECV_IP/lost" "$dir/app.log"
	sender=$SPAWN_PID
	wait_for "$WORK/recv.log" "connected at" 30 || fail "the sender did not connect"
	nap 1
	kill -STOP "$sender"
	mv "$dir/app.log" "$dir/app.log.1"
	printf 'line 000002\n' >"$dir/app.log"
	mv "$dir/app.log" "$dir/app.log.2"
	gzip "$dir/app.log.2"
	printf 'line 000003\n' >"$dir/app.log"
	kill -CONT "$sender"
	nap 2
	kill -INT "$sender"
	reap "$sender"
	[ "$REAP_RC" = 8 ] || fail "the sender exited $REAP_RC, not 8: $(cat "$dir/send")"
	grep -q "^rpma-send: 1 stretch of followed files was not shipped: .*app.log.2" "$dir/send" ||
		fail "no line naming the file lost: $(cat "$dir/send")"
	[ "$(wc -l <"$dir/send")" = 1 ] || fail "-q: more than that line: $(cat "$dir/send")"
	kill -TERM "$RECV_PID"
	wait_recv
	printf 'line %06d\n' 1 3 >"$dir/want"
	check_pool "$dir/lost.pool" "$dir/want"
	end_case
}

# late_write_case: the application writes on to its rotated file after
# the sender left it (held up past --rotate-wait and the second look): the
# sender names those bytes at the end, exit 8, not a silent loss; the
# lines before and after them are shipped.
late_write_case() {
	local dir="$WORK/late-write" sender
	log_case "-f: lines written to a rotated file after the sender left it are named at the end, exit 8" written "$dir/written.pool" 16M || return 0
	: >"$dir/app.log"
	exec 7>>"$dir/app.log" # the application's descriptor
	printf 'line 000001\n' >&7
	spawn 60 "$dir/send" "$SEND" -v -f --rotate-wait 1s "$RECV_IP/written" "$dir/app.log"
	sender=$SPAWN_PID
	wait_for "$WORK/recv.log" "connected at" 30 || fail "the sender did not connect"
	mv "$dir/app.log" "$dir/app.log.1"
	printf 'line 000003\n' >"$dir/app.log"
	wait_for "$dir/send" "app.log.1 (quiet" 30 "$sender" ||
		fail "the sender did not leave app.log.1: $(cat "$dir/send")"
	printf 'line 000002\n' >&7 # held up until now
	exec 7>&-
	nap 1
	kill -INT "$sender"
	reap "$sender"
	[ "$REAP_RC" = 8 ] || fail "the sender exited $REAP_RC, not 8: $(cat "$dir/send")"
	grep -q "^rpma-send: 1 stretch of followed files was not shipped: .*/app.log.1 bytes 12 to 24" "$dir/send" ||
		fail "no line naming the late bytes: $(cat "$dir/send")"
	kill -TERM "$RECV_PID"
	wait_recv
	printf 'line %06d\n' 1 3 >"$dir/want"
	check_pool "$dir/written.pool" "$dir/want"
	end_case
}

# copytruncate_twice_case: logrotate's copytruncate twice while the sender
# is stopped (it cannot look between them): both copies and the file are
# shipped, every line once, in order, exit 0.
copytruncate_twice_case() {
	local dir="$WORK/twice" sender n
	start_case "-f: copytruncate twice within one look: every line the copies and the file keep, once, in order"
	mkdir -p "$dir"
	rotate_conf copytruncate "$dir" | sed '/postrotate/,/endscript/d' >"$dir/rotate.conf"
	if ! one_log_receiver sig "$dir/sig.pool" 16M; then
		end_case
		return
	fi
	printf 'line %06d\n' $(seq 1 300) >"$dir/sig.log"
	: >"$dir/each.log"
	spawn 60 "$dir/send" "$SEND" -v -f --rotate-wait 1s "$RECV_IP/sig" "$dir/sig.log"
	sender=$SPAWN_PID
	wait_for "$WORK/recv.log" "connected at" 30 || fail "the sender did not connect"
	nap 1
	kill -STOP "$sender"
	for n in 301 401; do
		printf 'line %06d\n' $(seq "$n" $((n + 99))) >>"$dir/sig.log"
		logrotate -f -s "$dir/state" "$dir/rotate.conf" || fail "logrotate failed"
	done
	# fewer bytes than the sender had read: the file shrank
	printf 'line %06d\n' $(seq 501 510) >>"$dir/sig.log"
	kill -CONT "$sender"
	nap 2
	printf 'line %06d\n' $(seq 511 520) >>"$dir/sig.log"
	nap 2
	sender_done "$sender" "$dir/send"
	# shellcheck disable=SC2046 # one word a file
	check_lines "copytruncate twice" "$dir/sig.pool" $(the_files "$dir" sig)
	[ "$(wc -l <"$WORK/remote.n")" = 520 ] ||
		fail "the remote log holds $(wc -l <"$WORK/remote.n") lines, not 520"
	[ "$case_failed" = 0 ] || log "the sender: $(grep -v 'batches of' "$dir/send")"
	end_case
}

# backlog_case: SIGTERM with --stop-wait 0 soon after the start, 48 MiB
# in the file: the sender names what it left (the file from the byte it
# reached), exit 9; --resume -f then ships exactly the rest.
backlog_case() {
	local dir="$WORK/backlog" sender size
	log_case "-f --stop-wait 0: a stop with a backlog names what is left, exit 9; --resume -f ships the rest" backlog "$dir/backlog.pool" 80M || return 0
	head -c 36M /dev/urandom | base64 >"$dir/app.log"
	size=$(stat -c %s "$dir/app.log")
	spawn 120 "$dir/send" "$SEND" -v -f --stop-wait 0 "$RECV_IP/backlog" "$dir/app.log"
	sender=$SPAWN_PID
	# streaming: a signal while it still connects is exit 20 (nothing read)
	wait_for "$dir/send" "batches of" 60 "$sender" || fail "the sender did not start streaming: $(cat "$dir/send")"
	kill -TERM "$sender"
	reap "$sender"
	[ "$REAP_RC" = 9 ] || fail "the sender exited $REAP_RC, not 9: $(cat "$dir/send")"
	grep -q "^rpma-send: 1 stretch of followed files was left unread at the stop: $dir/app.log bytes [0-9]* to $size; rpma-send --resume -f ships them" "$dir/send" ||
		fail "no line naming what was left: $(cat "$dir/send")"
	spawn 300 "$dir/send.2" "$SEND" -v --resume -f --stop-wait 5m "$RECV_IP/backlog" "$dir/app.log"
	sender=$SPAWN_PID
	# streaming (a signal while it checks or connects is exit 20)
	wait_for "$dir/send.2" "batches of" 60 "$sender" || fail "--resume -f did not start streaming: $(cat "$dir/send.2")"
	kill -TERM "$sender"
	reap "$sender"
	[ "$REAP_RC" = 0 ] || fail "--resume -f exited $REAP_RC: $(cat "$dir/send.2")"
	kill -TERM "$RECV_PID"
	wait_recv
	check_pool "$dir/backlog.pool" "$dir/app.log"
	end_case
}

# The cases to run (the arguments after BUILD, else FOLLOW_CASES, else
# all), for a quick look: the rotation kinds, burst (20 rotations 0.1 s
# apart, within the grace period, made as logrotate makes them but in one
# process), outage, late-dir, resume, resume-refused, lost, late-write,
# copytruncate-twice, backlog.
kinds="create copytruncate dateext-olddir delaycompress
	copytruncate-dateext-compress copytruncate-olddir-extension nocreate
	deleted symlink burst:20:0.1"
all_cases="kinds outage late-dir resume resume-refused lost late-write
	copytruncate-twice backlog"
shift # BUILD
# shellcheck disable=SC2086 # one word a kind
for c in ${*:-${FOLLOW_CASES:-$all_cases}}; do
	case "$c" in
	kinds) rotation_case ${kinds} ;; # one word a kind
	burst) rotation_case burst:20:0.1 ;;
	outage) outage_case ;;
	late-dir) late_dir_case ;;
	resume) resume_case ;;
	resume-refused) resume_refused_case ;;
	lost) lost_case ;;
	late-write) late_write_case ;;
	copytruncate-twice) copytruncate_twice_case ;;
	backlog) backlog_case ;;
	*) rotation_case "$c" ;;
	esac
done

summary
