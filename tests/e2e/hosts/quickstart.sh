# shellcheck shell=bash
# The README's quick start, run as written on the two hosts (sourced by
# tests/e2e/hosts.sh): its commands are read from README.md's section
# "Quick start on two hosts", so a change there is tried here. b is the
# PMem host, a the application host; the first block runs on both.
#
# What a real host has and the test bed's hosts lack is made first, and
# is not the README's business: a writable /mnt (their roots are
# read-only), the name pmemhost (/etc/hosts on a), the programs on PATH
# (the build, not the .deb), and no Soft-RoCE device or namespace yet
# (the test bed made both when it booted: they are taken away). After it,
# b's NVDIMM is made device-DAX again for the groups that follow.

# quickstart_blocks: the section's command blocks (indented four spaces),
# one file each, $D/quickstart-N.sh, comments after a command dropped;
# prints how many.
quickstart_blocks() {
	awk -v out="$D/quickstart-" '
		/^## / { inside = ($0 == "## Quick start on two hosts") }
		!inside { next }
		/^    / { if (!in_block) { n++; in_block = 1 }
			line = substr($0, 5); sub(/[ \t]+#.*$/, "", line)
			print line > (out n ".sh"); next }
		/^$/ && in_block { next }
		{ in_block = 0 }
		END { print n + 0 }' "$top/README.md"
}

start_case "the README's quick start, as written: ${REL[b]} the PMem host (fsdax), ${REL[a]} the application host"
blocks=$(quickstart_blocks)
# soft-RoCE on each host / the namespace and its file system / the
# receiver / the sender
[ "$blocks" = 4 ] &&
	grep -q '^rdma link add' "$D/quickstart-1.sh" &&
	grep -q '^ndctl create-namespace' "$D/quickstart-2.sh" &&
	grep -q '^rpma-recv ' "$D/quickstart-3.sh" &&
	grep -q '^echo hello | rpma-send' "$D/quickstart-4.sh" ||
	fail "README.md's quick start is not the four blocks this case runs (soft-RoCE, namespace, rpma-recv, rpma-send): $blocks blocks: $(cat "$D"/quickstart-*.sh)"
# the test bed's part: programs on PATH, a writable /mnt, no rxe0 yet
qs_path='export PATH=$BUILD/src/rpma-send:$BUILD/src/rpma-recv:$PATH'
qs_prelude="$qs_path
mountpoint -q /mnt || mount -t tmpfs tmpfs /mnt
rdma link delete rxe0"
out=$(on a "$qs_prelude
	printf '127.0.0.1 localhost\n%s pmemhost\n' \"\$RPMA_IP_B\" >\$RPMA_TMPDIR/hosts
	mount --bind \$RPMA_TMPDIR/hosts /etc/hosts
	set -e; . \$D/quickstart-1.sh" 120) || fail "a: the Soft-RoCE block: $out"
out=$(on b "$qs_prelude
	ndctl destroy-namespace -f all >/dev/null 2>&1
	set -e; . \$D/quickstart-1.sh; . \$D/quickstart-2.sh >\$W/ndctl.out" 300) ||
	fail "b: the Soft-RoCE and namespace blocks: $out"
out=$(on b "$qs_path
	setsid bash \$D/quickstart-3.sh </dev/null >\$W/qs-recv.log 2>&1 &
	for i in \$(seq 300); do
		rdma res show cm_id 2>/dev/null | grep -q 'LISTEN.*:7204' && exit 0
		kill -0 \$! 2>/dev/null || break
		sleep 0.1
	done
	echo \"rpma-recv does not listen on 7204: \$(cat \$W/qs-recv.log)\"; exit 1" 120) ||
	fail "b: rpma-recv: $out"
out=$(on a "$qs_path
	timeout 120 bash \$D/quickstart-4.sh >\$W/qs-out 2>\$W/qs-err || { echo \"exit \$?: \$(cat \$W/qs-err)\"; exit 1; }
	[ \"\$(cat \$W/qs-out)\" = hello ] || { echo \"--fetch printed '\$(cat \$W/qs-out)', want hello; \$(cat \$W/qs-err)\"; exit 1; }
	grep -q 'method' \$W/qs-err || { echo \"-v did not name the method: \$(cat \$W/qs-err)\"; exit 1; }" 180) ||
	fail "a: the sender's block: $out"
log "quick start: $(grep -m1 method "${W[a]}/qs-err" 2>/dev/null)"
# b back as the test bed made it: its NVDIMM device-DAX, its rxe0
out=$(on b 'pkill -x rpma-recv; sleep 1
	umount /mnt/pmem && umount /mnt || exit 1
	ndctl destroy-namespace -f all >/dev/null 2>&1
	made=$(ndctl create-namespace -f -e namespace0.0 --mode=devdax) || exit 1
	echo "$made" | grep -q "\"chardev\":\"${RPMA_DEVDAX#/dev/}\"" || echo "device-DAX back as something else than $RPMA_DEVDAX: $made"' 180)
[ -z "$out" ] || fail "b's NVDIMM not made device-DAX again: $out"
on a 'umount /etc/hosts; umount /mnt' 60 >/dev/null
end_case
