#!/bin/bash
# scripts/vm/accel, the VM test bed's choice of accelerator, against fake
# qemu-system-x86_64 programs on PATH (runs anywhere, no KVM or guest
# needed): one that aborts as qemu does on a paravirtual nested KVM, one
# that hangs with no kernel output, one that boots; the verdict each gets,
# that a verdict is cached per machine and proved again when qemu changes,
# and what RPMA_VM_ACCEL forces.
#   test_accel.sh SOURCE
set -u
SRC="$1"
ACCEL_SCRIPT="$SRC/scripts/vm/accel"
. "$(dirname "$0")/../host_check.sh"
: >"$tmp/kernel"
: >"$tmp/initrd"

# fake_qemu KIND [VERSION]: a qemu-system-x86_64 in $tmp/bin that answers
# --version and, asked to boot, behaves as KIND; each boot appends its
# arguments to $tmp/boots.
fake_qemu() {
	mkdir -p "$tmp/bin"
	cat >"$tmp/bin/qemu-system-x86_64" <<EOF
#!/bin/bash
if [ "\$1" = --version ]; then echo "QEMU emulator version ${2:-7.2.0}"; exit 0; fi
echo "\$*" >>"$tmp/boots"
console=
for a in "\$@"; do case "\$a" in file:*) console=\${a#file:} ;; esac; done
case $1 in
aborts)
	echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69" >&2
	echo "qemu-system-x86_64: ../../target/i386/kvm/kvm.c:3183: kvm_buf_set_msrs: Assertion failed." >&2
	kill -ABRT \$\$ ;;
hangs)
	echo \$\$ >"$tmp/hung.pid"
	exec sleep 600 ;;
boots)
	printf 'RPMA_VM_BOOTED\r\n' >"\$console"
	exit 0 ;;
esac
EOF
	chmod +x "$tmp/bin/qemu-system-x86_64"
}

# accel: runs scripts/vm/accel with the fake qemu, a fresh cache unless
# KEEP_CACHE=1, and /dev/null as the KVM device (a character device anyone
# may read and write); sets OUT, ERR and RC, and evals OUT.
accel() {
	[ "${KEEP_CACHE:-0}" = 1 ] || rm -rf "$tmp/cache"
	: >"$tmp/boots"
	RC=0
	PATH="$tmp/bin:$PATH" RPMA_VM_CACHE="$tmp/cache" RPMA_VM_KVM_DEV="${KVM_DEV:-/dev/null}" \
		RPMA_VM_KVM_PROOF_TIMEOUT=3 "$ACCEL_SCRIPT" "$tmp/kernel" "$tmp/initrd" \
		>"$tmp/out" 2>"$tmp/err" || RC=$?
	OUT=$(<"$tmp/out") ERR=$(<"$tmp/err")
	ACCEL=
	ACCEL_WHY=
	ACCEL_ARGS=()
	eval "$OUT"
}

# expect NAME ACCEL WHY-PATTERN: the last verdict.
expect() {
	check "$1: exit 0" "$(ok [ "$RC" = 0 ])" "exit $RC: $ERR"
	check "$1: $2" "$(ok [ "$ACCEL" = "$2" ])" "got '$ACCEL'"
	check "$1: why" "$([[ $ACCEL_WHY == *$3* ]] && echo 0 || echo 1)" "'$ACCEL_WHY' lacks '$3'"
}

boots() { grep -c . "$tmp/boots"; }

fake_qemu aborts
accel
expect "aborting qemu" tcg "KVM present but cannot boot a guest (qemu aborted: failed to set MSR 0x10a"
check "aborting qemu: TCG options" "$(ok [ "${ACCEL_ARGS[*]}" = "-accel tcg,thread=multi -cpu qemu64 -smp 2" ])" "${ACCEL_ARGS[*]}"
check "the proof boots the given kernel under KVM with the marker asked for" \
	"$(grep -q -- "-accel kvm .*-kernel $tmp/kernel -initrd $tmp/initrd .*rpma.probe=1" "$tmp/boots" && echo 0 || echo 1)" "$(cat "$tmp/boots")"
KEEP_CACHE=1 accel
expect "aborting qemu, again" tcg "qemu aborted"
check "a cached verdict boots nothing" "$(ok [ "$(boots)" = 0 ])" "$(boots) boots"
check "a cached verdict says so" "$([[ $ACCEL_WHY == *"cached verdict: $tmp/cache/accel-"* ]] && echo 0 || echo 1)" "$ACCEL_WHY"

fake_qemu boots 7.2.0
KEEP_CACHE=1 accel
expect "the same machine, another qemu behaving the same" tcg "cached"
fake_qemu boots 8.0.0
KEEP_CACHE=1 accel
expect "another qemu version is proved again" kvm "KVM booted the guest kernel in"
check "another qemu version: one boot" "$(ok [ "$(boots)" = 1 ])" "$(boots) boots"
check "KVM options" "$([[ "${ACCEL_ARGS[*]}" == "-accel kvm -cpu host -smp "[2-8] ]] && echo 0 || echo 1)" "${ACCEL_ARGS[*]}"

fake_qemu hangs
start=$SECONDS
accel
expect "hanging qemu" tcg "KVM present but cannot boot a guest (no output from the guest kernel within 3s)"
check "hanging qemu: within the bound" "$(ok [ $((SECONDS - start)) -le 6 ])" "took $((SECONDS - start)) s"
# running: PID is a process that has not ended (a zombie has).
running() { [[ $(ps -o stat= -p "$1" 2>/dev/null) == [^Z]* ]]; }
pid=$(cat "$tmp/hung.pid" 2>/dev/null)
for _ in 1 2 3 4 5 6 7 8 9 10; do running "$pid" || break; sleep 0.1; done
check "hanging qemu: killed after the proof" "$(running "$pid" && echo 1 || echo 0)" "pid $pid still runs"

fake_qemu boots
accel
expect "booting qemu" kvm "KVM booted the guest kernel in"

# What RPMA_VM_ACCEL forces.
RPMA_VM_ACCEL=tcg accel
expect "RPMA_VM_ACCEL=tcg" tcg "forced by RPMA_VM_ACCEL=tcg"
check "RPMA_VM_ACCEL=tcg boots nothing" "$(ok [ "$(boots)" = 0 ])" "$(boots) boots"
RPMA_VM_ACCEL=kvm accel
expect "RPMA_VM_ACCEL=kvm where KVM boots" kvm "KVM booted"
fake_qemu aborts
RPMA_VM_ACCEL=kvm accel
check "RPMA_VM_ACCEL=kvm where KVM cannot boot: exit 125" "$(ok [ "$RC" = 125 ])" "exit $RC"
check "RPMA_VM_ACCEL=kvm where KVM cannot boot: says why" \
	"$([[ $ERR == *"RPMA_VM_ACCEL=kvm, but KVM present but cannot boot a guest (qemu aborted"* ]] && echo 0 || echo 1)" "$ERR"
RPMA_VM_ACCEL=fast accel
check "RPMA_VM_ACCEL=fast: exit 2" "$(ok [ "$RC" = 2 ])" "exit $RC"
check "RPMA_VM_ACCEL=fast: says what to give" "$([[ $ERR == *"give kvm or tcg"* ]] && echo 0 || echo 1)" "$ERR"

# No KVM device: TCG at once, nothing booted; forced KVM fails.
fake_qemu boots
KVM_DEV=$tmp/no-kvm accel
expect "no /dev/kvm" tcg "there is no $tmp/no-kvm"
check "no /dev/kvm boots nothing" "$(ok [ "$(boots)" = 0 ])" "$(boots) boots"
KVM_DEV=$tmp/no-kvm RPMA_VM_ACCEL=kvm accel
check "no /dev/kvm, RPMA_VM_ACCEL=kvm: exit 125" "$(ok [ "$RC" = 125 ])" "exit $RC"
KVM_DEV=$tmp/kernel accel
expect "a KVM device that is no device" tcg "is not a device this user may read and write"

summary
