#!/bin/bash
# rpma-send -f through a real logrotate (Debian's): each kind of rotation
# users meet (create, copytruncate, dateext with olddir, compress with
# delaycompress, nocreate, the file deleted and created again, a symlink
# put in its place), each with two applications at once writing numbered
# lines: one that reopens its log on SIGHUP from logrotate's postrotate (a
# moment after the rename, as a busy daemon does) and one that opens it
# for every line. Afterwards the remote logs are checked line by line
# against every file that holds lines (rotated, compressed, live): nothing
# the files keep is missing, nothing doubled, the order kept. And --resume
# -f after rotations while the sender was down, or when the copy it needs
# was compressed meanwhile.
# Runs inside the VM test bed: scripts/vm-run -- tests/e2e/follow.sh BUILD
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

# writer_each_time LOG: numbered lines, LOG opened for each, until SIGTERM.
writer_each_time() {
	local log=$1 n=0
	trap 'exit 0' TERM
	while :; do
		n=$((n + 1))
		printf 'line %06d\n' "$n" >>"$log"
		nap 0.01
	done
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
			ln -s "$dir/elsewhere/$log.$rotations" "$dir/$log.log"
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

# the_files DIR LOG: every file of DIR that holds lines of LOG.
the_files() {
	local dir=$1 name=$2
	find "$dir" -name "$name.log*" -o -path "$dir/elsewhere/$name.*" | sort
}

# rotation_case KIND: the two writers, their senders, ROTATIONS rotations
# of KIND APART seconds apart, then the check.
rotation_case() {
	local kind=$1 dir="$WORK/$1" t0=$SECONDS
	rotations=0
	start_case "-f through $kind: nothing the files keep is missing or doubled"
	mkdir -p "$dir/old" "$dir/elsewhere"
	rotate_conf "$kind" "$dir" >"$dir/rotate.conf"
	: >"$dir/sig.log"
	: >"$dir/each.log"
	if ! start_recv "$WORK/recv.log" --log "sig=$dir/sig.pool,create=16M" \
		--log "each=$dir/each.pool,create=16M"; then
		fail "receiver did not start: $(cat "$WORK/recv.log")"
		end_case
		return
	fi
	local sig_send each_send sig_writer each_writer
	spawn 120 "$dir/sig.send" "$SEND" -f --rotate-wait "$GRACE" "$RECV_IP/sig" "$dir/sig.log"
	sig_send=$SPAWN_PID
	spawn 120 "$dir/each.send" "$SEND" -f --rotate-wait "$GRACE" "$RECV_IP/each" "$dir/each.log"
	each_send=$SPAWN_PID
	writer_on_signal "$dir/sig.log" &
	sig_writer=$!
	echo "$sig_writer" >"$dir/sig.pid"
	writer_each_time "$dir/each.log" &
	each_writer=$!
	nap 1
	log "(started in $((SECONDS - t0)) s)"
	local r
	for r in $(seq 1 "$ROTATIONS"); do
		rotate "$kind" "$dir"
		nap "$APART"
	done
	kill -TERM "$sig_writer" "$each_writer"
	wait "$sig_writer" "$each_writer"
	# the last rotated files are read until quiet, then the live ones;
	# what is left when the senders stop is read on the signal
	log "(rotated by $((SECONDS - t0)) s)"
	nap 1.5
	kill -INT "$sig_send" "$each_send"
	reap "$sig_send"
	[ "$REAP_RC" = 0 ] || fail "sig's sender exited $REAP_RC: $(cat "$dir/sig.send")"
	reap "$each_send"
	[ "$REAP_RC" = 0 ] || fail "each's sender exited $REAP_RC: $(cat "$dir/each.send")"
	kill -TERM "$RECV_PID"
	wait_recv
	log "(stopped by $((SECONDS - t0)) s)"
	# shellcheck disable=SC2046 # one word a file
	check_lines "reopened on SIGHUP" "$dir/sig.pool" $(the_files "$dir" sig)
	# shellcheck disable=SC2046
	check_lines "opened for each line" "$dir/each.pool" $(the_files "$dir" each)
	[ "$case_failed" = 0 ] || log "senders: $(cat "$dir/sig.send" "$dir/each.send")"
	log "($((SECONDS - t0)) s)"
	end_case
}

# FOLLOW_CASES: the rotation kinds to run (default all), for a quick look.
for kind in ${FOLLOW_CASES:-create copytruncate dateext-olddir delaycompress nocreate deleted symlink}; do
	rotation_case "$kind"
done

# sender_killed DIR: a receiver serving DIR/sig.pool as sig, the signalled
# writer on DIR/sig.log (WRITER_PID) and a sender following it, killed -9
# after 2 s, mid-stream.
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
	spawn 120 "$dir/send.1" "$SEND" -f "$RECV_IP/sig" "$dir/sig.log"
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

resume_case
resume_refused_case

summary
