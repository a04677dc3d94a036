# shellcheck shell=bash
# The two-host test bed, driven from outside the guests: source it from a
# driver (bash, set -u), which then boots hosts, runs jobs on them, cuts
# their power and breaks the link between them. Each host is a qemu guest
# of its own: its release's kernel and root (this machine's /, or another
# Debian release's root from scripts/vm/release-root), one NIC on an
# emulated Ethernet, Soft-RoCE on it (scripts/vm/host-setup), and, for a
# receiving host, an NVDIMM (device-DAX) and a small virtio disk that both
# outlive a power cut.
#
# The Ethernet is a Linux bridge in a network namespace of the driver's own
# (hosts_enter), each host a tap on it: faults are made on the taps, outside
# every guest, so no guest's kernel sees a send fail (a silent link is
# silent: the frames go nowhere). See docs/testing.md for why a bridge and
# not qemu's socket/dgram netdev (measured), and what a cut keeps.
#
#   hosts_enter "$0" "$@"       first line of a driver: re-runs it in its own
#                               network and mount namespaces (needs root)
#   hosts_init RUN              RUN: a fresh folder for the hosts' state
#   host_add NAME RELEASE [receiver]   a host (address 198.51.100.N, N its
#                               rank); receiver: with the NVDIMM and disk
#   host_boot NAME; host_ready NAME [SECONDS]; host_cut NAME; hosts_stop
#   on NAME SCRIPT; on_bg NAME SCRIPT; job_wait NAME JOB [SECONDS]
#   link_loss PCT; link_delay MS; link_silent; partition NAME; link_heal
#
# Jobs run as root in the guest (scripts/vm/agent), with RPMA_HOST,
# RPMA_HOST_IP, RPMA_IP_<NAME> for every host, RPMA_DEVDAX and RPMA_DISK
# (/var/lib/rpma-ship) in their environment.

HOSTS_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
HOSTS_VM=$HOSTS_TOP/scripts/vm
HOSTS_NET=198.51.100 # TEST-NET-2: never leaves the namespace
HOSTS=()
declare -gA HOST_RELEASE=() HOST_ROOT=() HOST_KDIR=() HOST_KVER=() HOST_INITRD=()
declare -gA HOST_IP=() HOST_MAC=() HOST_RECEIVER=() HOST_QMP=() HOST_PID=()
declare -gA HOST_BOOTS=() HOST_BOOT_START=()
HOSTS_RUN=
HOSTS_NVDIMM_SIZE=${HOSTS_NVDIMM_SIZE:-64M}
HOSTS_DISK_SIZE=${HOSTS_DISK_SIZE:-768M}
HOSTS_MEMORY=${HOSTS_MEMORY:-2048}
# the disk's cache mode on the host side: see docs/testing.md (a cut loses
# what the guest had not written out of its own page cache, whatever this is)
HOSTS_DISK_CACHE=${HOSTS_DISK_CACHE:-none}

hosts_log() { printf 'vm-hosts: %s\n' "$*" >&2; }

# hosts_enter SCRIPT ARGS...: SCRIPT again, in network and mount namespaces
# of its own (the bridge, the taps and the bind mounts go with it), unless
# it already runs in them.
hosts_enter() {
	[ -n "${RPMA_HOSTS_NS:-}" ] && return 0
	[ "$(id -u)" = 0 ] || {
		hosts_log "needs root (network namespace, taps, bind mounts)"
		exit 2
	}
	RPMA_HOSTS_NS=1 exec unshare --net --mount --propagation private -- "$@"
}

# hosts_init RUN: RUN (created) holds the hosts' disks, NVDIMM backing files,
# consoles and control folders; the bridge comes up.
hosts_init() {
	HOSTS_RUN=$1
	mkdir -p "$HOSTS_RUN/data" "$HOSTS_RUN/bpf"
	ip link set lo up
	ip link add br0 type bridge || return 1
	# no STP, no learning delay: a port forwards as soon as it is up
	ip link set br0 type bridge stp_state 0 forward_delay 0 ageing_time 30000
	ip link set br0 up
	trap 'hosts_stop' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# this_release: the codename of this machine's Debian.
this_release() { (. /etc/os-release && echo "${VERSION_CODENAME:-}"); }

# host_add NAME RELEASE [receiver]: a host of RELEASE (bookworm, trixie).
host_add() {
	local name=$1 release=$2 role=${3:-} root kdir kver n
	n=$((${#HOSTS[@]} + 1))
	if [ "$release" = "$(this_release)" ]; then
		root=/
		eval "$("$HOSTS_VM/kernel")" || return 1
		# shellcheck disable=SC2153 # set by the eval
		kdir=$KDIR kver=$KVER
	else
		root=$("$HOSTS_VM/release-root" "$release") || return 1
		kdir=$(ls -d "$root"/root/.cache/rpma-ship/vm/kernel-*/ 2>/dev/null | head -n 1)
		kdir=${kdir%/}
		[ -n "$kdir" ] || {
			hosts_log "no kernel in the $release root (run scripts/test-release $release once)"
			return 1
		}
		kver=${kdir##*/kernel-}
		# the guest sees this checkout at its path in that root
		mkdir -p "$root$HOSTS_TOP"
		mountpoint -q "$root$HOSTS_TOP" || mount --bind "$HOSTS_TOP" "$root$HOSTS_TOP" || return 1
	fi
	if [ "$root" = / ]; then
		HOST_INITRD[$name]=$("$HOSTS_VM/initramfs" "$kdir" "$kver") || return 1
	else
		# made in the root, as scripts/test-release makes it (the same
		# cached image, keyed by the paths there)
		HOST_INITRD[$name]=$root$("$HOSTS_VM/in-root" "$root" \
			scripts/vm/initramfs "${kdir#"$root"}" "$kver") || return 1
	fi
	HOSTS+=("$name")
	HOST_RELEASE[$name]=$release HOST_ROOT[$name]=$root
	HOST_KDIR[$name]=$kdir HOST_KVER[$name]=$kver
	HOST_IP[$name]=$HOSTS_NET.$n
	HOST_MAC[$name]=$(printf '02:00:c6:33:64:%02x' "$n")
	HOST_RECEIVER[$name]=$([ "$role" = receiver ] && echo 1 || echo 0)
	HOST_QMP[$name]=$((4440 + n))
	HOST_BOOTS[$name]=0
	mkdir -p "$HOSTS_RUN/$name/ctl"
	if [ "${HOST_RECEIVER[$name]}" = 1 ]; then
		truncate -s "$HOSTS_NVDIMM_SIZE" "$HOSTS_RUN/$name/nvdimm.img"
		truncate -s "$HOSTS_DISK_SIZE" "$HOSTS_RUN/$name/disk.img"
	fi
	ip tuntap add "tap-$name" mode tap || return 1
	ip link set "tap-$name" master br0 up || return 1
	tc qdisc add dev "tap-$name" clsact || return 1
}

# host_netdev NAME: NAME's end of the link, as qemu's -netdev: a tap on the
# bridge; or, with HOSTS_LINK=dgram (two hosts; kept to measure it against
# the bridge, see docs/testing.md), a UDP socket on lo sending to the other
# host's, frames going from qemu to qemu with no bridge (and no faults).
host_netdev() {
	local n=${HOST_IP[$1]##*.}
	if [ "${HOSTS_LINK:-bridge}" = dgram ]; then
		printf 'dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=%d,' $((4460 + n))
		printf 'remote.type=inet,remote.host=127.0.0.1,remote.port=%d\n' $((4460 + 3 - n))
	else
		printf 'tap,id=n0,ifname=tap-%s,script=no,downscript=no\n' "$1"
	fi
}

# host_boot NAME: starts NAME's qemu (in the background, under timeout);
# host_ready waits for it.
host_boot() {
	local name=$1 boot p peers=() shares=() rw=() job append verdict
	boot=$((HOST_BOOTS[$name] + 1))
	HOST_BOOTS[$name]=$boot
	local dir=$HOSTS_RUN/$name ctl=$HOSTS_RUN/$name/ctl
	rm -rf "$ctl/jobs" "$ctl/ready" "$ctl/failed" "$ctl/env"
	mkdir -p "$ctl/jobs"
	for p in "${HOSTS[@]}"; do
		[ "$p" = "$name" ] || peers+=("$p=${HOST_IP[$p]}=${HOST_MAC[$p]}")
	done
	# the checkout is in another release's root by a bind mount, which 9p
	# shows; the control folder and the data folder are writable shares
	shares=("$ctl" "$HOSTS_RUN/data") rw=(1 1)
	job=$({
		printf 'NAME=%q KDIR=%q KVER=%q ADDR=%q MAC=%q CTL_PATH=%q NVDIMM=%q DISK=%q\n' \
			"$name" "${HOST_KDIR[$name]#"${HOST_ROOT[$name]%/}"}" "${HOST_KVER[$name]}" \
			"${HOST_IP[$name]}" "${HOST_MAC[$name]}" "$ctl" \
			"${HOST_RECEIVER[$name]}" "${HOST_RECEIVER[$name]}"
		printf 'PEERS=('
		[ "${#peers[@]}" = 0 ] || printf ' %q' "${peers[@]}"
		printf ' )\nSHARES=('
		printf ' %q' "${shares[@]}"
		printf ' )\nRW=('
		printf ' %q' "${rw[@]}"
		printf ' )\n'
	} | base64 -w0)
	# as scripts/vm/run, and what host_stuck needs on the console: SysRq's
	# task dumps allowed, a task blocked 30 s reported (an error: loglevel 4)
	append="console=ttyS0 quiet loglevel=4 panic=-1 mitigations=off sysctl.kernel.sysrq=1 sysctl.kernel.hung_task_timeout_secs=30 rpma.setup=$HOSTS_VM/host-setup rpma.job=$job"
	verdict=$("$HOSTS_VM/accel" "${HOST_KDIR[$name]}/boot/vmlinuz-${HOST_KVER[$name]}" "${HOST_INITRD[$name]}" 2>/dev/null) || return 1
	eval "$verdict"
	# shellcheck disable=SC2054 # the commas are qemu's
	local qemu=(qemu-system-x86_64 "${ACCEL_ARGS[@]}"
		-machine pc,nvdimm=on
		-m "${HOSTS_MEMORY}M,slots=2,maxmem=$((HOSTS_MEMORY + 2048))M"
		-kernel "${HOST_KDIR[$name]}/boot/vmlinuz-${HOST_KVER[$name]}"
		-initrd "${HOST_INITRD[$name]}" -append "$append"
		-virtfs "local,path=${HOST_ROOT[$name]},mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-netdev "$(host_netdev "$name")"
		-device "virtio-net-pci,netdev=n0,mac=${HOST_MAC[$name]}"
		-qmp "tcp:127.0.0.1:${HOST_QMP[$name]},server=on,wait=off"
		-display none -monitor none -serial "file:$dir/console.$boot" -no-reboot
		-pidfile "$dir/qemu.pid")
	for p in "${!shares[@]}"; do
		qemu+=(-virtfs "local,path=${shares[$p]},mount_tag=share$p,security_model=none,multidevs=remap")
	done
	if [ "${HOST_RECEIVER[$name]}" = 1 ]; then
		# shellcheck disable=SC2054 # the commas are qemu's
		qemu+=(-object "memory-backend-file,id=nv0,share=on,mem-path=$dir/nvdimm.img,size=$HOSTS_NVDIMM_SIZE"
			-device nvdimm,id=nvdimm0,memdev=nv0
			-drive "file=$dir/disk.img,if=virtio,format=raw,cache=$HOSTS_DISK_CACHE")
	fi
	rm -f "$dir/qemu.pid"
	HOST_BOOT_START[$name]=$(date +%s%N)
	timeout -k 5 "${HOSTS_QEMU_TIMEOUT:-3600}" "${qemu[@]}" </dev/null >"$dir/qemu.$boot.log" 2>&1 &
	HOST_PID[$name]=$!
}

# host_ready NAME [SECONDS]: waits until NAME serves jobs (default 180 s);
# says how long its boot took.
host_ready() {
	local name=$1 end=$((SECONDS + ${2:-180})) ctl=$HOSTS_RUN/$1/ctl ms
	until [ -e "$ctl/ready" ]; do
		if [ -e "$ctl/failed" ] || ! kill -0 "${HOST_PID[$name]}" 2>/dev/null ||
			[ "$SECONDS" -ge "$end" ]; then
			hosts_log "host $name did not come up (boot ${HOST_BOOTS[$name]}): $(cat "$ctl/failed" 2>/dev/null)"
			tail -n 15 "$HOSTS_RUN/$name/console.${HOST_BOOTS[$name]}" >&2 2>/dev/null
			# down, not half up: a job sent to it fails at once (125)
			# instead of waiting out its time on a guest that hangs
			host_cut "$name"
			return 1
		fi
		sleep 0.2
	done
	ms=$((($(date +%s%N) - HOST_BOOT_START[$name]) / 1000000))
	hosts_log "host $name (${HOST_RELEASE[$name]}, ${HOST_KVER[$name]}) up in $((ms / 1000)).$((ms % 1000 / 100)) s (boot ${HOST_BOOTS[$name]})"
}

# host_boot_ready NAME: boots NAME and waits until it serves jobs; a boot
# that does not come up (the test bed's, not the programs': seen once, b's
# third boot in a suite run under TCG, its cause not found) is tried once
# more, said in the log.
host_boot_ready() {
	host_boot "$1"
	host_ready "$1" && return 0
	hosts_log "host $1: booting it once more"
	host_boot "$1"
	host_ready "$1"
}

# host_up NAME: NAME's qemu runs and its guest serves jobs.
host_up() {
	[ -n "${HOST_PID[$1]:-}" ] && kill -0 "${HOST_PID[$1]}" 2>/dev/null &&
		[ -e "$HOSTS_RUN/$1/ctl/ready" ]
}

# host_cut NAME: the power goes: qemu killed at once, no shutdown; what the
# guest had in RAM (its page cache included) is gone, its NVDIMM's backing
# file and its disk image keep what reached them.
host_cut() {
	local name=$1 pid
	pid=$(cat "$HOSTS_RUN/$name/qemu.pid" 2>/dev/null)
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	wait "${HOST_PID[$name]}" 2>/dev/null
	HOST_PID[$name]=
	rm -f "$HOSTS_RUN/$name/ctl/ready"
}

# hosts_stop: every host's qemu gone (the driver's EXIT trap).
hosts_stop() {
	local name pid
	for name in "${HOSTS[@]}"; do
		pid=$(cat "$HOSTS_RUN/$name/qemu.pid" 2>/dev/null)
		[ -z "$pid" ] || kill -9 "$pid" 2>/dev/null
		[ -z "${HOST_PID[$name]:-}" ] || wait "${HOST_PID[$name]}" 2>/dev/null
	done
}

# HOST_PRELUDE[NAME]: bash text each job of NAME starts with (the driver's:
# say, which build that host runs).
declare -gA HOST_PRELUDE=()

# on_bg NAME SCRIPT: SCRIPT (bash text) as a job on NAME; sets JOB.
on_bg() {
	local name=$1 jobs=$HOSTS_RUN/$1/ctl/jobs
	# numbered in a file: a caller in $(...) counts too
	JOB=$(($(cat "$HOSTS_RUN/$name/jobs.count" 2>/dev/null || echo 0) + 1))
	echo "$JOB" >"$HOSTS_RUN/$name/jobs.count"
	printf '%s\n' "${HOST_PRELUDE[$name]:-}" "$2" >"$jobs/$JOB.sh"
	: >"$jobs/$JOB.go"
}

# job_wait NAME JOB [SECONDS]: waits for job JOB of NAME (default 600 s),
# prints its output, returns its exit status (124 when the time ran out,
# 125 when the host went down first).
job_wait() {
	local name=$1 job=$2 end=$((SECONDS + ${3:-600})) jobs=$HOSTS_RUN/$1/ctl/jobs rc
	until [ -e "$jobs/$job.rc" ]; do
		if [ "$SECONDS" -ge "$end" ]; then
			cat "$jobs/$job.out" 2>/dev/null
			host_stuck "$name" "job $job ran out of its ${3:-600} s"
			return 124
		fi
		if [ -z "${HOST_PID[$name]}" ] || ! kill -0 "${HOST_PID[$name]}" 2>/dev/null; then
			cat "$jobs/$job.out" 2>/dev/null
			return 125
		fi
		sleep 0.1
	done
	cat "$jobs/$job.out"
	rc=$(cat "$jobs/$job.rc")
	return "$rc"
}

# host_stuck NAME WHY: what NAME's guest shows when it stopped answering
# (seen once in CI: a Debian 13 host, booted again after a cut, took no job
# and answered no connect request for minutes, and nothing said why): its
# blocked tasks' stacks (SysRq w, pressed through QMP) and the console's
# last lines, on stderr.
host_stuck() {
	local console=$HOSTS_RUN/$1/console.${HOST_BOOTS[$1]}
	hosts_log "host $1: $2; its blocked tasks and console follow"
	qmp "$1" '{"execute":"send-key","arguments":{"keys":[{"type":"qcode","data":"alt"},{"type":"qcode","data":"sysrq"},{"type":"qcode","data":"w"}]}}' 2>/dev/null
	sleep 3
	tail -n 60 "$console" 2>/dev/null | sed "s/^/  $1 console: /" >&2
}

# job_done NAME JOB: job JOB of NAME has ended.
job_done() { [ -e "$HOSTS_RUN/$1/ctl/jobs/$2.rc" ]; }

# on NAME SCRIPT [SECONDS]: SCRIPT as a job on NAME, waited for.
on() {
	on_bg "$1" "$2"
	job_wait "$1" "$JOB" "${3:-600}"
}

# --- faults on the link, made on the taps (tc's clsact hooks with a small
# eBPF program: this machine's kernel has no netem and no gact) and in
# qemu (a delay: its filter-buffer holds a host's frames back).

# bpf_prog PCT: the path of an eBPF program that drops PCT% of the frames
# it sees (compiled once per PCT with clang).
bpf_prog() {
	local o=$HOSTS_RUN/bpf/drop-$1.o
	[ -f "$o" ] || printf '%s\n' \
		'#define SEC(n) __attribute__((section(n), used))' \
		'static unsigned int (*rnd)(void) = (void *)7; /* bpf_get_prandom_u32 */' \
		'SEC("classifier") int drop(void *skb) { return rnd() % 100 < PCT ? 2 /* SHOT */ : -1; }' \
		'char _license[] SEC("license") = "GPL";' |
		clang -O2 -target bpf -DPCT="$1" -x c -c - -o "$o" || return 1
	echo "$o"
}

# tap_drop NAME DIR PCT: frames through NAME's tap in DIR (ingress: from the
# guest; egress: to it) dropped at PCT%; 0 removes the filter.
tap_drop() {
	local dev=tap-$1 prog
	tc filter del dev "$dev" "$2" 2>/dev/null
	[ "$3" = 0 ] && return 0
	prog=$(bpf_prog "$3") || return 1
	tc filter add dev "$dev" "$2" bpf da obj "$prog" sec classifier
}

# link_loss PCT: every frame between the hosts is lost with PCT% (dropped
# as it leaves its sender's tap, so each crossing is judged once).
link_loss() {
	local name
	for name in "${HOSTS[@]}"; do tap_drop "$name" ingress "$1" || return 1; done
	hosts_log "link: ${1}% loss"
}

# link_silent: nothing crosses the link, both ways; no host is told.
link_silent() {
	link_loss 100 2>/dev/null || return 1
	hosts_log "link: silent"
}

# partition NAME: NAME is cut off from every other host, both ways.
partition() {
	tap_drop "$1" ingress 100 && tap_drop "$1" egress 100 || return 1
	hosts_log "link: $1 partitioned"
}

# qmp NAME COMMAND-JSON: one QMP command to NAME's qemu; fails on an error.
qmp() {
	local fd line
	exec {fd}<>"/dev/tcp/127.0.0.1/${HOST_QMP[$1]}" || return 1
	read -r -t 10 -u "$fd" line # the greeting
	printf '{"execute":"qmp_capabilities"}\n' >&"$fd"
	read -r -t 10 -u "$fd" line
	printf '%s\n' "$2" >&"$fd"
	while read -r -t 10 -u "$fd" line; do
		case "$line" in
		*'"return"'*) exec {fd}>&-; return 0 ;;
		*'"error"'*) hosts_log "qmp $1: $line"; exec {fd}>&-; return 1 ;;
		esac
	done
	exec {fd}>&-
	return 1
}

# link_delay MS: every host's frames are held back and let go every MS
# milliseconds (both ways: qemu's filter-buffer on each NIC), a delay of
# up to MS each way; 0 ends it.
link_delay() {
	local name
	for name in "${HOSTS[@]}"; do
		[ -z "${HOST_PID[$name]:-}" ] && continue
		qmp "$name" '{"execute":"object-del","arguments":{"id":"delay"}}' 2>/dev/null
		[ "$1" = 0 ] && continue
		qmp "$name" "{\"execute\":\"object-add\",\"arguments\":{\"qom-type\":\"filter-buffer\",\"id\":\"delay\",\"netdev\":\"n0\",\"queue\":\"all\",\"interval\":$(($1 * 1000))}}" ||
			return 1
	done
	hosts_log "link: delay up to $1 ms"
}

# link_heal: every fault on the link ended.
link_heal() {
	local name
	for name in "${HOSTS[@]}"; do
		tap_drop "$name" ingress 0
		tap_drop "$name" egress 0
	done
	link_delay 0 >/dev/null 2>&1
	hosts_log "link: healed"
}
