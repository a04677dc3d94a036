#!/bin/bash
# The groups that need two hosts, in one boot of the pair (scripts/vm/hosts.sh):
# host a runs this machine's Debian release and BUILD, host b the other
# supported release (Debian 12 or 13, its root from scripts/vm/release-root)
# and BUILD_OTHER, built there; both receive (an NVDIMM as device-DAX and a
# disk each), both send. The groups (tests/e2e/hosts/GROUP.sh) run one
# after the other in that boot, each starting from fresh pools:
#   cross     a file and a pipe shipped both ways with no option set,
#             --verify; a receiver killed -9 mid-stream, both ways; a silent
#             link, and a lossy and slow one, under --retry
#   quorum    replicas on both hosts with --quorum 1: b power-cut mid-stream
#             and booted again; the stream never stops, b catches up exact
#             (and a --truncate whose receiver's host vanishes while it
#             waits for the switch ends within the peer timeout)
#   quickstart the README's quick start, its commands read from README.md,
#             run as written (b the PMem host on fsdax, a the application
#             host)
#   powercut  a stream with rotation into b's archive while b is power-cut
#             at seeded moments, then the same from b into a's while a
#             is cut, each receiver under the persistence model
#             (RPMA_POWERCUT_SEED, RPMA_POWERCUT_CUTS, RPMA_POWERCUT_MIB,
#             RPMA_POWERCUT_WAYS; scripts/powercut runs the long campaign)
#
#   tests/e2e/hosts.sh BUILD BUILD_OTHER GROUP...   (as root, on the machine)
# Prints a line per case, a line per group with its time, and ends with
# "N passed, M failed"; exit 0 only when none failed, 125 when the test
# bed itself failed (a host did not boot).
set -u
here=$(cd "$(dirname "$0")" && pwd -P)
top=$(cd "$here/../.." && pwd -P)
. "$top/scripts/vm/hosts.sh"
hosts_enter "$0" "$@"

[ $# -ge 3 ] || {
	echo "usage: tests/e2e/hosts.sh BUILD BUILD_OTHER GROUP..." >&2
	exit 2
}
BUILD_A=$(realpath -e "$1") && BUILD_B=$(realpath -e "$2") || exit 2
shift 2
case "$(this_release)" in
bookworm) other=trixie ;;
trixie) other=bookworm ;;
*)
	echo "tests/e2e/hosts.sh: this machine runs neither Debian 12 nor 13" >&2
	exit 2
	;;
esac

# NVDIMM backing files and disk images in RAM (as scripts/vm/run keeps its
# NVDIMMs: no host writeback competing with the guests for the CPUs)
RUN=$(mktemp -d /dev/shm/rpma-hosts.XXXXXX)
export RPMA_TMPDIR=$RUN/driver
mkdir -p "$RPMA_TMPDIR"
# the case harness (start_case, fail, end_case, summary) runs out here
# shellcheck disable=SC2034 # lib.sh's
BUILD=$BUILD_A
. "$here/lib.sh"
# reported_committed, as the fault campaign reads a sender's stderr
. "$top/scripts/campaign/checker.sh"

# the seeded moments of the groups (faults, cuts); RPMA_HOSTS_SEED repeats them
seed=${RPMA_HOSTS_SEED:-$(date +%s)}
RANDOM=$seed
log "two-host seed: $seed (set RPMA_HOSTS_SEED to repeat)"

hosts_init "$RUN" || exit 125
trap 'hosts_stop; [ -n "${RPMA_HOSTS_KEEP:-}" ] || rm -rf "$RUN"' EXIT
host_add a "$(this_release)" receiver || exit 125
host_add b "$other" receiver || exit 125
declare -A HOST_BUILD=([a]=$BUILD_A [b]=$BUILD_B)
# every job starts with the harness of scripts/lib.sh and its host's build
D=$RUN/data
for h in a b; do
	HOST_PRELUDE[$h]="set -u
. $top/scripts/lib.sh
BUILD=${HOST_BUILD[$h]}
SEND=\$BUILD/src/rpma-send/rpma-send RECV=\$BUILD/src/rpma-recv/rpma-recv
RECV_OPTS=(-v --listen \"\$RPMA_HOST_IP\")
W=$RUN/$h/ctl/work D=$D
mkdir -p \"\$W\"
. $here/hosts/jobs.sh"
done
# W[h]: host h's work folder as seen from here (its programs' logs)
# shellcheck disable=SC2034 # the groups'
declare -A W=([a]=$RUN/a/ctl/work [b]=$RUN/b/ctl/work)
declare -A REL=([a]="Debian 12" [b]="Debian 13")
[ "$other" = trixie ] || REL=([a]="Debian 13" [b]="Debian 12")

t0=$SECONDS
host_boot a
host_boot b
host_ready a && host_ready b || exit 125
log "=== the pair is up in $((SECONDS - t0)) s: a ${REL[a]} (${HOST_KVER[a]}), b ${REL[b]} (${HOST_KVER[b]})"

# fresh HOST: no program of ours running, the device-DAX pool header zeroed,
# nothing on the disk, the link healed.
fresh() {
	link_heal >/dev/null 2>&1
	on "$1" fresh_state 120 >/dev/null || log "fresh_state on $1 failed"
}

# both_up: a host a group left down (a boot that failed) is booted again
# once; when it still does not come up, the groups after it are failures,
# not runs that wait out every time bound against a host that is gone.
both_up() {
	local h
	for h in a b; do
		host_up "$h" && continue
		log "host $h is down before group $group: booting it again"
		host_boot_ready "$h" || return 1
	done
}

failed_groups=()
for group in "$@"; do
	t=$SECONDS
	log "=== group $group"
	if ! both_up; then
		start_case "group $group"
		fail "a host is down and did not boot again: group $group not run"
		end_case
		failed_groups+=("$group")
		continue
	fi
	failed_at_start=$failed
	fresh a
	fresh b
	# shellcheck source=/dev/null
	. "$here/hosts/$group.sh"
	if [ "$failed" = "$failed_at_start" ]; then
		log "=== group $group: passed in $((SECONDS - t)) s"
	else
		log "=== group $group: FAILED in $((SECONDS - t)) s"
		failed_groups+=("$group")
	fi
done
log "=== $(($# - ${#failed_groups[@]})) of $# two-host groups passed in $((SECONDS - t0)) s${failed_groups:+; failed: ${failed_groups[*]}}"
summary
