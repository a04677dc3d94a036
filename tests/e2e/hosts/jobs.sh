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
	rm -rf "$W"/* "$RPMA_TMPDIR"/*
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

# pace FILE SECONDS: FILE on stdout in 64 KiB pieces, SECONDS apart.
pace() {
	local n i
	n=$((($(stat -c %s "$1") + 65535) / 65536))
	for ((i = 0; i < n; i++)); do
		dd if="$1" bs=64K skip="$i" count=1 status=none 2>/dev/null || return
		nap "$2"
	done
}

# log_prefix POOL INPUT MIN [ARCHIVE]: the log (ARCHIVE's files, then
# POOL's bytes, as rpma-recv --export reads them) is a byte prefix of INPUT
# and at least MIN bytes long; prints its length. SKIP=N: the first N bytes
# were checked before (only the rest is compared).
log_prefix() {
	local pool=$1 input=$2 min=$3 out=$RPMA_TMPDIR/export len args=()
	[ -z "${4:-}" ] || args=(--archive "$4")
	if ! "$RECV" --export "$out" "${args[@]}" "$pool" 2>"$out.err"; then
		echo "--export failed: $(cat "$out.err")"
		return 1
	fi
	len=$(stat -c %s "$out")
	echo "$len"
	[ "$len" -le "$(stat -c %s "$input")" ] || {
		echo "the log holds $len bytes, more than the input"
		return 1
	}
	cmp -n "$len" -i "${SKIP:-0}" "$out" "$input" >/dev/null || {
		echo "the log ($len bytes) is not a prefix of the input: $(cmp -n "$len" "$out" "$input" 2>&1)"
		return 1
	}
	[ "$len" -ge "$min" ] || {
		echo "the log holds $len bytes, the sender reported $min committed"
		return 1
	}
	rm -f "$out"
}
