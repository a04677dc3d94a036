# shellcheck shell=bash
# What the two-host groups run on a host (sourced at the start of every job
# there, see tests/e2e/hosts.sh): starting and stopping its receiver,
# pacing an input, checking a log against an input. Uses scripts/lib.sh,
# SEND, RECV, RECV_OPTS and W (this host's work folder, which the driver
# outside reads too).

# fresh_state: what a group may have left, gone: our programs, the
# device-DAX pool's header (zeroed through a mapping: device DAX takes no
# write(2)), everything on the disk.
fresh_state() {
	pkill -KILL -x rpma-recv
	pkill -KILL -x rpma-send
	rm -rf "${W:?}"/* "${RPMA_TMPDIR:?}"/*
	if [ -n "${RPMA_DEVDAX:-}" ]; then
		python3 -c 'import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 2 << 20)
m[:] = bytes(2 << 20)
m.close()' "$RPMA_DEVDAX" || return 1
	fi
	[ -z "${RPMA_DISK:-}" ] || find "$RPMA_DISK" -mindepth 1 -maxdepth 1 ! -name lost+found -exec rm -rf {} +
	sync
}

# recv_up LOG ARGS...: rpma-recv RECV_OPTS ARGS in the background (it
# outlives the job), its stderr in W/LOG, its pid in W/recv.pid; returns
# once it serves (1 if it did not, with its log).
recv_up() {
	local logf=$W/$1
	shift
	if ! RECV_TIMEOUT=0 start_recv "$logf" "$@"; then
		cat "$logf"
		return 1
	fi
	echo "$RECV_PID" >"$W/recv.pid"
	# what it said while starting (a rotation or a switch a cut left
	# half done, finished), seen from the driver's side: Debian 13's 9p
	# keeps a file's writes in the guest's page cache until writeback
	sync "$logf" 2>/dev/null || :
}

# recv_down [SIGNAL]: the receiver of recv_up ends (SIGTERM unless told),
# waited for up to 60 s; returns 1 if it did not end.
recv_down() {
	local pid i
	pid=$(cat "$W/recv.pid" 2>/dev/null) || return 0
	kill -s "${1:-TERM}" "$pid" 2>/dev/null
	for ((i = 0; i < 600; i++)); do
		kill -0 "$pid" 2>/dev/null || {
			rm -f "$W/recv.pid"
			return 0
		}
		nap 0.1
	done
	return 1
}

# bounded SECONDS LOG CMD...: CMD, ended by SIGTERM after SECONDS (status
# 124, as timeout(1)); before it is ended, where it waited goes to LOG:
# its threads' kernel stacks and a backtrace of each (gdb), so a hang
# found in a long run says where it was without a replay.
bounded() {
	local secs=$1 logf=$2 pid i t rc=0
	shift 2
	"$@" &
	pid=$!
	for ((i = 0; i < secs * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		nap 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		{
			echo "bounded: $1 (pid $pid) still running after $secs s; its stacks:"
			for t in /proc/"$pid"/task/*; do
				echo "${t##*/} $(cat "$t/wchan" 2>/dev/null)"
				cat "$t/stack" 2>/dev/null
			done
			timeout 60 gdb -q -batch -p "$pid" -ex 'thread apply all bt' 2>&1 | grep -E '^(#|Thread)'
		} >>"$logf" 2>&1
		# CONT: a gdb that timed out may leave it stopped
		kill -TERM "$pid" 2>/dev/null
		kill -CONT "$pid" 2>/dev/null
		wait "$pid"
		return 124
	fi
	wait "$pid" || rc=$?
	return "$rc"
}

# pace FILE SECONDS [PIECE]: FILE on stdout in pieces of PIECE bytes
# (default 64 KiB), SECONDS apart (one process: a dd per piece would cost
# more than the pause under TCG). Into a pipe, the pipe holds a whole
# piece (F_SETPIPE_SZ), so a reader may take it in one read.
pace() {
	python3 -c 'import fcntl, signal, sys, time
signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # a reader gone ends it quietly
out = sys.stdout.buffer
try:
    fcntl.fcntl(1, 1031, int(sys.argv[3]))  # F_SETPIPE_SZ
except OSError:
    pass
with open(sys.argv[1], "rb") as f:
    while True:
        piece = f.read(int(sys.argv[3]))
        if not piece:
            break
        out.write(piece)
        out.flush()
        time.sleep(float(sys.argv[2]))' "$1" "$2" "${3:-65536}"
}

# log_prefix POOL INPUT MIN [ARCHIVE NAME]: the log (the files of the log
# NAME in ARCHIVE, then POOL's bytes, as rpma-recv --export reads them) is
# a byte prefix of INPUT and at least MIN bytes long; prints its length.
# SKIP=N: the first N bytes were checked before (only the rest is compared).
log_prefix() {
	local pool=$1 input=$2 min=$3 out=$RPMA_TMPDIR/export len args=()
	args=("$pool")
	[ -z "${4:-}" ] || args=(--log "$5=$pool,archive=$4")
	if ! "$RECV" --export "$out" "${args[@]}" 2>"$out.err"; then
		# a pool a cut caught before it was made holds nothing: right
		# only when nothing was committed to it
		if [ "$min" = 0 ] && grep -q "no PMEMLOG signature" "$out.err"; then
			echo 0
			return 0
		fi
		echo "--export failed: $(cat "$out.err")"
		return 1
	fi
	len=$(stat -c %s "$out")
	echo "$len"
	[ "$len" -le "$(stat -c %s "$input")" ] || {
		echo "the log holds $len bytes, more than the input"
		return 1
	}
	local skip=${SKIP:-0}
	[ "$skip" -le "$len" ] || skip=$len
	cmp -n "$((len - skip))" -i "$skip" "$out" "$input" >/dev/null || {
		echo "the log ($len bytes) is not a prefix of the input: $(cmp -n "$len" "$out" "$input" 2>&1)"
		return 1
	}
	[ "$len" -ge "$min" ] || {
		echo "the log holds $len bytes, the sender reported $min committed"
		return 1
	}
	rm -f "$out"
}
