# shellcheck shell=bash
# What a power cut keeps (sourced by tests/e2e/hosts.sh): the test bed's
# own promise, which the power-cut groups rest on. On b: a file written and
# fsync'd, a file written and not synced, and 4 KiB stored into the
# device-DAX with no flush at all; then the cut, at once. After b boots
# again: the synced file is whole, the unsynced one lost its data (it was
# only in the guest's page cache, gone with the guest's RAM: so a cut finds
# a missing fsync), and the NVDIMM holds the stores (qemu models no CPU
# cache: a missing cache flush cannot be found this way). Whatever the
# disk's cache mode on the host (HOSTS_DISK_CACHE), what qemu was handed
# before it died is in the image: the host itself does not lose power.

head -c 1M /dev/urandom >"$D/keep"
start_case "a power cut keeps what was synced and the NVDIMM's stores, and loses the guest's page cache"
out=$(on b '
	dd if=$D/keep of=$RPMA_DISK/synced bs=1M conv=fsync status=none || exit 1
	sync -f $RPMA_DISK # its directory entry too
	dd if=$D/keep of=$RPMA_DISK/unsynced bs=1M status=none || exit 1
	python3 -c "import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 2 << 20)
m[(1 << 20):(1 << 20) + 4096] = open(sys.argv[2], \"rb\").read(4096)" $RPMA_DEVDAX $D/keep || exit 1
	echo written' 120) || fail "writing on b: $out"
host_cut b
host_boot_ready b || fail "b did not boot again"
out=$(on b '
	cmp -s $RPMA_DISK/synced $D/keep || echo "the synced file is not whole"
	if [ -e $RPMA_DISK/unsynced ] && cmp -s $RPMA_DISK/unsynced $D/keep; then
		echo "the unsynced file survived the cut whole: the cut kept the page cache"
	fi
	python3 -c "import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 2 << 20, prot=mmap.PROT_READ)
sys.exit(m[(1 << 20):(1 << 20) + 4096] != open(sys.argv[2], \"rb\").read(4096))" $RPMA_DEVDAX $D/keep ||
		echo "the NVDIMM lost unflushed stores"
	echo "unsynced after the cut: $(stat -c %s $RPMA_DISK/unsynced 2>/dev/null || echo absent)"' 120) ||
	fail "reading on b: $out"
log "$out"
grep -v '^unsynced after the cut' <<<"$out" | grep -q . && fail "$out"
end_case
