# shellcheck shell=bash
# Power cuts of the receiving host (sourced by tests/e2e/hosts.sh; the long
# campaign is scripts/powercut), both ways: first host a streams
# RPMA_POWERCUT_MIB MiB (default 40) with --retry into the log "main" of
# host b, then b into a's (RPMA_POWERCUT_WAYS: "ab ba", or one of them;
# tests/e2e/hosts/powercut_way.sh is one way, S sending, R receiving). R's
# log "main" has its pool on R's NVDIMM (device-DAX), rotating into an
# archive on R's disk; meanwhile a loop on S replaces R's log "repl" (a
# plain pool file on the disk) with --truncate, round after round. R's
# receiver runs under the persistence model (tests/shadow), its shadows
# written through to a mirror here, and R's power is cut
# RPMA_POWERCUT_CUTS times (default 1 each way; scripts/powercut runs 20) at seeded moments: when
# the stream has reached a position drawn from the seed, plus a drawn
# pause, so cuts fall mid-stream, mid-rotation, mid-archive and during a
# replacement; the first ones at the steps RPMA_POWERCUT_AIMS names, where
# R's receiver stops itself (powercut_way.sh). Each time R boots again on the same NVDIMM and disk,
# partitioned until it is checked: its pools go back as the mirror says
# (what the receiver never made persistent is lost), pmempool checks
# main's pool, its receiver starts from the configuration on its disk
# (finishing what a cut left half done), and then
#   - main (archive + pool, as rpma-recv --export reads it) is a prefix of
#     the input holding every byte the sender reported committed before
#     the cut;
#   - repl holds one replacement whole, none older than at the check
#     before: the last that ended 0 before the cut, one after it whose
#     sender lost the answer to its switch, or the one in flight.
# At the end the sender has exited 0 and main is the input exactly
# (--verify agrees). RPMA_POWERCUT_SEED (default: the run's seed) replays
# the schedule; what each cut hit is counted from the logs.

pc_seed=${RPMA_POWERCUT_SEED:-$seed}
pc_cuts=${RPMA_POWERCUT_CUTS:-1}
pc_mib=${RPMA_POWERCUT_MIB:-40}
RANDOM=$pc_seed
log "power cuts: seed $pc_seed, $pc_cuts cut(s) in $pc_mib MiB each way (${RPMA_POWERCUT_WAYS:-ab ba}) (replay: RPMA_POWERCUT_SEED=$pc_seed RPMA_POWERCUT_CUTS=$pc_cuts RPMA_POWERCUT_MIB=$pc_mib)"

# the input, from the seed (openssl's AES-CTR stream of a key drawn from
# it): a replay ships the same bytes
pc_key=$(printf '%08x%08x' "$pc_seed" $((RANDOM * 32768 + RANDOM)))
head -c "$((pc_mib << 20))" /dev/zero |
	openssl enc -aes-128-ctr -K "$pc_key$pc_key" -iv 0 -nosalt 2>/dev/null >"$D/power"
for r in 0 1 2 3; do
	head -c $(((1 + RANDOM % 3) << 20)) /dev/urandom >"$D/repl$r"
done
pc_total=$(stat -c %s "$D/power")
[ "$pc_total" = $((pc_mib << 20)) ] || fail "could not make the input (openssl)"

# the positions the cuts wait for: one drawn in each of PC_CUTS equal
# stretches of the input, none in its last 16 MiB (a cut overshoots its
# position by what streams during its pause and what the sender's ring
# held back, up to 10 MiB here: the stream still runs at the last cut)
pc_slot=$(((pc_total - (17 << 20)) / pc_cuts))
[ "$pc_slot" -ge $((1 << 20)) ] || {
	log "powercut: $pc_mib MiB has no room for $pc_cuts cuts (a MiB each past its first 17 MiB)"
	pc_slot=$((1 << 20))
}
pc_at=()
for ((i = 0; i < pc_cuts; i++)); do
	pc_at+=($(((1 << 20) + i * pc_slot + (RANDOM * 32768 + RANDOM) % pc_slot)))
done

# R's configuration, on its disk (written once each way)
pc_conf='listen = $RPMA_HOST_IP
peer-timeout = 3s
[main]
pool = $RPMA_DEVDAX
create = 2M
archive = $RPMA_DISK/archive
rotate-at = 25%
[repl]
pool = $RPMA_DISK/repl.pool
create = 16M'

# reported LOG: the input bytes the sender last said were committed, exact
# (--progress=commits: a line per commit)
reported() {
	local n
	n=$(sed -n 's/^rpma-send: committed \([0-9]*\) input bytes$/\1/p' "$1" 2>/dev/null | tail -n 1)
	echo "${n:-0}"
}

# Both ways: b's receiver cut under a's sender, then a's under b's (each
# release's receiver and each release's sender cut off).
read -r -a pc_ways <<<"${RPMA_POWERCUT_WAYS:-ab ba}"
for pc_way in "${pc_ways[@]}"; do
	S=${pc_way:0:1} R=${pc_way:1:1}
	if [ "$pc_way" != "${pc_ways[0]}" ]; then
		fresh a
		fresh b
	fi
	# shellcheck source=tests/e2e/hosts/powercut_way.sh
	. "$here/hosts/powercut_way.sh"
done

# Then the sending host's cut: a, following a growing file, cut mid-stream.
fresh a
fresh b
# shellcheck source=tests/e2e/hosts/powercut_sender.sh
. "$here/hosts/powercut_sender.sh"
