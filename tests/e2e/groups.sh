#!/usr/bin/env bash
# Runs several VM groups one after the other in one guest (a boot costs
# about 15 s under TCG; the suite boots fewer guests this way). Each group
# starts as on a fresh boot: no program of ours left running, the link up,
# nothing on the fsdax mount, the device-DAX namespace's pool header
# zeroed, its own empty temporary directory.
#   tests/e2e/groups.sh BUILD GROUP...   (inside the test bed: scripts/vm/run)
# Prints a line per group with its result and time; exits 1 if any failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=$1
shift

# fresh_state: what one group may have left behind, gone.
fresh_state() {
	pkill -KILL -x rpma-recv 2>/dev/null
	pkill -KILL -x rpma-send 2>/dev/null
	pkill -KILL -x rpma-load 2>/dev/null
	pkill -KILL -x rogue_sender 2>/dev/null
	pkill -KILL -x window_check 2>/dev/null
	tc qdisc del dev veth1 root 2>/dev/null
	tc qdisc del dev veth0 root 2>/dev/null
	tc filter del dev veth1 ingress 2>/dev/null
	tc filter del dev veth0 ingress 2>/dev/null
	[ -z "${RPMA_FSDAX_DIR:-}" ] || find "$RPMA_FSDAX_DIR" -mindepth 1 -delete
	# device DAX takes no write(2): the header zeroed through a mapping
	[ -z "${RPMA_DEVDAX:-}" ] || python3 -c 'import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 2 << 20)
m[:] = bytes(2 << 20)
m.close()' "$RPMA_DEVDAX"
	rm -rf "$tmp_root/group"
	mkdir -p "$tmp_root/group"
}

# The kernel's RDMA side when a group failed: the devices' counters (send
# errors, retries, sequence errors), the queue pairs that are not RC (on
# 6.12 a packet refused at the sender errors rdma_cm's GSI queue pair for
# good, see link_down in lib.sh), the connection ids, the kernel's lines.
rdma_state() {
	echo "--- the RDMA devices after the failure"
	local d
	for d in /sys/class/infiniband/*; do
		echo "$(basename "$d"): $(grep -H . "$d"/ports/1/hw_counters/* 2>/dev/null |
			grep -v ':0$' | sed 's|.*/||' | tr '\n' ' ')"
	done
	rdma res show qp 2>&1 | grep -v ' type RC ' | head -8
	rdma res show cm_id 2>&1 | head -12
	dmesg | grep -i -E 'rxe|ib_cm|rdma_cm|infiniband' | tail -8
}

# outage's last case leaves the veth taking no new connection (tests/e2e/
# lib.sh, link_down): it goes last.
order=()
for group in "$@"; do [ "$group" = outage ] || order+=("$group"); done
[ "${#order[@]}" = $# ] || order+=(outage)
set -- "${order[@]}"

tmp_root=${RPMA_TMPDIR:-/tmp}
failed=() t0=$SECONDS
for group in "$@"; do
	fresh_state
	echo "=== group $group"
	t=$SECONDS
	if RPMA_TMPDIR=$tmp_root/group bash "$here/$group.sh" "$BUILD"; then
		echo "=== group $group: passed in $((SECONDS - t)) s"
	else
		echo "=== group $group: FAILED in $((SECONDS - t)) s"
		rdma_state
		failed+=("$group")
	fi
done
fresh_state
echo "=== $(($# - ${#failed[@]})) of $# groups passed in $((SECONDS - t0)) s${failed:+; failed: ${failed[*]}}"
[ "${#failed[@]}" = 0 ]
