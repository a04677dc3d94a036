#!/bin/bash
# What an operator meets on a machine without an RDMA device (issue 29):
# one duration syntax, argp's errors named like ours, sizes in the units
# people type, a missing device that no --retry waits for, a name that
# does not resolve named as such, --stats of a run that never streamed,
# signals while opening the input, --follow of a file not there yet,
# operands given source first; and what the issue's audit found: every
# kind of path given as an auth key, a metrics file, a configuration
# file, a pool or rpma-send's FILE named as what it is with the fix (a
# FIFO refused rather than waited on), a failed start that leaves its
# pools as they were, counts that are digits only.
#   test_operator.sh BUILD
set -u
BUILD="$1"
SEND="$BUILD/src/rpma-send/rpma-send"
RECV="$BUILD/src/rpma-recv/rpma-recv"
. "$(dirname "$0")/../host_check.sh"
. "$(dirname "$0")/expect_error.sh"
no_device=$([ -z "$(ls /sys/class/infiniband 2>/dev/null)" ] && echo 1 || echo 0)

# --- every duration takes the same syntax (bare numbers keep their unit)
expect_error "send: --timeout with a bad unit" 2 \
	"--timeout: '5x' must be a duration from 1 ms to 10 min (such as 500ms, 5s or 2m" "$SEND" --timeout=5x host
expect_error "send: --flush-interval above its range" 2 \
	"--flush-interval: '2m' must be a duration from 0 ms to 1 min" "$SEND" --flush-interval 2m host
expect_error "send: --timeout empty" 2 "must be a duration" "$SEND" --timeout= host
expect_error "send: --timeout negative" 2 "must be a duration" "$SEND" --timeout=-5 host
expect_error "send: --timeout huge" 2 "must be a duration" "$SEND" --timeout=99999999999999999999999 host
if [ "$no_device" = 1 ]; then
	for t in 5s 500ms 1m 5000; do
		expect_error "send: --timeout=$t is taken" 3 "no RDMA device" "$SEND" --timeout="$t" 192.0.2.1
	done
	expect_error "send: --flush-interval 10ms is taken" 3 "no RDMA device" "$SEND" --flush-interval 10ms 192.0.2.1
fi

# --- --truncate replaces; =in-place is the only argument it takes
expect_error "send: --truncate with an unknown argument" 2 \
	"--truncate='now': give --truncate, or --truncate=in-place to rewind the log first" "$SEND" --truncate=now host
if [ "$no_device" = 1 ]; then
	expect_error "send: --truncate=in-place is taken" 3 "no RDMA device" "$SEND" --truncate=in-place 192.0.2.1
	expect_error "send: --truncate is taken" 3 "no RDMA device" "$SEND" --truncate 192.0.2.1
fi

# --- --fetch reads a log: what goes with it and what does not
expect_error "send: --from without --fetch" 2 "--from goes with --fetch" "$SEND" --from 5 host
expect_error "send: --fetch with --verify" 2 "--fetch reads a log: it goes without --verify" "$SEND" --fetch --verify host x
expect_error "send: --fetch with --truncate" 2 "--fetch reads a log: it goes without" "$SEND" --fetch --truncate host
expect_error "send: --fetch of replicas" 2 "--fetch reads one log: give one HOST" "$SEND" --fetch h1,h2
expect_error "send: --fetch --resume to stdout" 2 "--fetch --resume appends to a FILE: name it" "$SEND" --fetch --resume host
expect_error "send: --fetch --resume and --from" 2 "give --from or --resume, not both" "$SEND" --fetch --resume --from 5 host "$tmp/copy"
expect_error "send: --from not a number" 2 "--from: '5x' must be a number" "$SEND" --fetch --from 5x host
if [ "$no_device" = 1 ]; then
	expect_error "send: --fetch --from end is taken" 3 "no RDMA device" "$SEND" --fetch --from end 192.0.2.1
	expect_error "send: --fetch -f FILE is taken" 3 "no RDMA device" "$SEND" --fetch -f 192.0.2.1 "$tmp/copy"
	check "send: a --follow fetch that failed created no FILE" "$(ok [ ! -e "$tmp/copy" ])" "$(ls -l "$tmp/copy" 2>&1)"
	echo "an older copy" >"$tmp/keep"
	expect_error "send: --fetch into a FILE that is there" 3 "no RDMA device" "$SEND" --fetch 192.0.2.1 "$tmp/keep"
	check "send: a fetch that failed left FILE as it was" "$(ok [ "$(cat "$tmp/keep")" = "an older copy" ])" "$(cat "$tmp/keep")"
	check "send: and no temporary file beside it" "$(ok [ -z "$(ls "$tmp" | grep 'keep.fetch-')" ])" "$(ls "$tmp")"
fi

# --- rpma-recv --export reads one log
expect_error "recv: --export of two logs" 2 "--export reads one log" "$RECV" --export - --log a=/x.pool --log b=/y.pool
expect_error "recv: --export with --info" 2 "--export goes without --info" "$RECV" --export - --info /x.pool
expect_error "recv: --export ''" 2 "--export: an empty FILE name" "$RECV" --export= /x.pool
expect_error "recv: --export of a pool that is not there" 2 "pool $tmp/none.pool does not exist" "$RECV" --export - "$tmp/none.pool"
pmempool create log "$tmp/export.pool"
"$RECV" --export "$tmp/export.out" "$tmp/export.pool" >"$tmp/out" 2>&1
check "recv: --export of an empty pool writes an empty FILE" "$(ok [ -f "$tmp/export.out" ] && [ ! -s "$tmp/export.out" ])" "$(cat "$tmp/out")"

# --- empty values: never "no key" or a path named ''; sizes in their units
for opt in allow metrics-file auth-key; do
	expect_error "recv: --$opt ''" 2 "--$opt: an empty value; give" "$RECV" --$opt= "$tmp/x.pool"
done
expect_error "recv: --config ''" 2 "--config: an empty FILE name; give the configuration file" "$RECV" --config= "$tmp/x.pool"
expect_error "send: --auth-key ''" 2 "auth key: an empty file name; give the key FILE" "$SEND" --auth-key= 192.0.2.1
expect_error "send: --batch in its units" 2 "--batch: '5x' must be a size from 1 to 1G (such as 64K or 1M)" "$SEND" --batch 5x 192.0.2.1

# --- a count is digits only, as rpma-recv takes one
for v in " 5" "+5" "-0"; do
	for opt in depth retry quorum; do
		expect_error "send: --$opt '$v'" 2 "--$opt: '$v' must be a number from" "$SEND" --$opt="$v" 192.0.2.1
	done
done

# --- rpma-send's FILE: a directory named before connecting, also for
# --verify; what to do about a missing or unreadable one; --resume of a
# FIFO refused without waiting for a writer
mkdir -p "$tmp/dir"
expect_error "verify: a directory" 2 "input $tmp/dir is a directory; give a file" "$SEND" --verify "$tmp/dir" 192.0.2.1
expect_error "send: FILE missing" 2 "cannot open input $tmp/none.txt: No such file or directory: check the path, or give - for standard input" \
	"$SEND" 192.0.2.1 "$tmp/none.txt"
expect_error "verify: FILE missing" 2 "cannot open input $tmp/none.txt: No such file or directory: check the path" \
	"$SEND" --verify "$tmp/none.txt" 192.0.2.1
mkfifo "$tmp/resume-fifo"
expect_error "send --resume: a FIFO" 2 "--resume needs a regular FILE to check and seek in" timeout 5 "$SEND" --resume 192.0.2.1 "$tmp/resume-fifo"
if [ "$(id -u)" = 0 ]; then
	echo data >"$tmp/root-only.txt"
	chmod 600 "$tmp/root-only.txt"
	expect_error "send: FILE unreadable" 2 "cannot open input $tmp/root-only.txt: permission denied: it must be readable by this user (nobody)" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$SEND" 192.0.2.1 "$tmp/root-only.txt"
fi

# --- a pool path that is not a pool file: named as what it is, with the fix
mkdir -p "$tmp/dir"
mkfifo "$tmp/pool-fifo"
head -c 1000 /dev/zero >"$tmp/small"
for look in "" --info; do
	expect_error "recv $look: a directory" 2 "$tmp/dir is a directory: give a pool file or a device-DAX" "$RECV" $look "$tmp/dir"
	expect_error "recv $look: /dev/null" 2 "/dev/null is a character device that is not a device-DAX: give a pool file" "$RECV" $look /dev/null
	expect_error "recv $look: a FIFO" 2 "$tmp/pool-fifo is a FIFO: give a pool file" "$RECV" $look "$tmp/pool-fifo"
	expect_error "recv $look: a small file" 2 "$tmp/small holds only 1000 B, too little for a log pool (at least 2 MiB)" "$RECV" $look "$tmp/small"
done
check "recv: the small file is untouched" "$(ok cmp -s "$tmp/small" <(head -c 1000 /dev/zero))" "it changed"

# --- an auth key that is not a key file: what it is, and the fix; a FIFO
# is refused, not waited for (both programs)
mkfifo "$tmp/key-fifo"
head -c 32 /dev/urandom >"$tmp/root.key"
chmod 600 "$tmp/root.key"
pmempool create log "$tmp/pool-for-key"
for key in "$tmp/dir:a directory" "/dev/null:a character device" "$tmp/key-fifo:a FIFO"; do
	path=${key%%:*}
	expect_error "send: --auth-key ${key#*:}" 2 "auth key $path is ${key#*:}: give the regular file that holds the key" \
		timeout 5 "$SEND" --auth-key "$path" 192.0.2.1
	expect_error "recv: --auth-key ${key#*:}" 2 "auth key $path is ${key#*:}: give the regular file that holds the key" \
		timeout 5 "$RECV" --auth-key "$path" --check-config --log a="$tmp/pool-for-key"
done
expect_error "send: --auth-key missing" 2 "cannot open auth key $tmp/none.key: No such file or directory: give the file that holds the shared key" \
	"$SEND" --auth-key "$tmp/none.key" 192.0.2.1
if [ "$(id -u)" = 0 ]; then
	expect_error "recv: --auth-key unreadable" 2 "cannot open auth key $tmp/root.key: permission denied: it must be readable by this user (nobody)" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$RECV" --auth-key "$tmp/root.key" --check-config --log a="$tmp/pool-for-key"
fi

# --- a metrics file that would be replaced (a directory, /dev/null, a
# FIFO) or cannot be written is refused by --check-config; --info does
# not wait on a FIFO given as one
for m in "$tmp/dir:a directory" "/dev/null:a device" "$tmp/key-fifo:a FIFO"; do
	expect_error "recv --check-config: --metrics-file ${m#*:}" 2 "metrics file ${m%%:*} is ${m#*:}: give the path of a regular file" \
		"$RECV" --check-config --metrics-file "${m%%:*}" --log a="$tmp/pool-for-key"
done
# A directory not there yet passes: the unit's RuntimeDirectory comes with
# its first start (the receiver warns and tries again every interval).
"$RECV" --check-config --metrics-file "$tmp/nodir/m.prom" --log a="$tmp/pool-for-key" >"$tmp/out" 2>&1
check "recv --check-config: --metrics-file in a directory not there yet passes" $? "$(cat "$tmp/out")"
pmempool create log "$tmp/info.pool"
timeout 5 "$RECV" --info --metrics-file "$tmp/key-fifo" "$tmp/info.pool" >"$tmp/out" 2>&1
check "recv --info: a FIFO as the metrics file is not waited on" "$(ok grep -q "^served: not listed in $tmp/key-fifo" "$tmp/out")" "$(cat "$tmp/out")"

# --- a configuration file that is not one: named, not waited on (a FIFO),
# and what to give; --check-config= and --log =POOL are refused
for c in "$tmp/dir:a directory" "/dev/null:a character device" "$tmp/key-fifo:a FIFO"; do
	for how in --check-config --config; do
		expect_error "recv $how: ${c#*:}" 2 "${c%%:*}: it is ${c#*:}, not a configuration file: give the file itself" timeout 5 "$RECV" $how "${c%%:*}"
	done
done
expect_error "recv --config: missing" 2 "$tmp/none.conf: cannot read it: No such file or directory: give the path of the configuration file" \
	"$RECV" --config "$tmp/none.conf"
expect_error "recv --check-config=''" 2 "--check-config: an empty FILE name; give the configuration file, or no '='" "$RECV" --check-config=
expect_error "recv --log with no NAME" 2 "--log '=$tmp/pool-for-key': give NAME=POOL" "$RECV" --log="=$tmp/pool-for-key"

# --- argp's own errors say rpma-send:, not the path the program was run by
for prog in rpma-send rpma-recv; do
	first=$(cd "$BUILD/src/$prog" && "./$prog" --no-such-option 2>&1 </dev/null | head -n 1)
	check "$prog: argp's error names the program" "$(ok [ "$first" = "$prog: unrecognized option '--no-such-option'" ])" "'$first'"
done

# --- --create below the minimum: the minimum in MiB, and no file left
expect_error "recv: --create 1M" 2 "cannot create pool $tmp/small.pool of 1.0 MiB: a log pool needs at least 2 MiB; give --create 2M or more" \
	"$RECV" --create 1M "$tmp/small.pool"
check "recv: --create 1M leaves no file" "$(ok [ ! -e "$tmp/small.pool" ])" "$(ls -l "$tmp/small.pool" 2>&1)"

# --- pools a start cannot use, named before it listens: a read-only
# mount, a directory that is not there, a symbolic link to nothing, a file
# that is not a pool (the same with --check-config)
pmempool create log "$tmp/serve.pool"
ln -s "$tmp/nothing.pool" "$tmp/dangling.pool"
head -c 3000000 /dev/zero >"$tmp/zeros"
expect_error "recv: --create with no directory" 2 "cannot create pool $tmp/nodir/new.pool: its directory $tmp/nodir does not exist: create it, or fix the path" \
	"$RECV" --create 8M "$tmp/nodir/new.pool"
for look in "" --info "--create 8M"; do
	expect_error "recv $look: a dangling symlink" 2 "$tmp/dangling.pool is a symbolic link to $tmp/nothing.pool, which does not exist: give the pool's own path" \
		"$RECV" $look "$tmp/dangling.pool"
done
expect_error "recv: not a pool" 2 "$tmp/zeros is not a usable pmemlog pool (no PMEMLOG signature): give a pool" "$RECV" "$tmp/zeros"
expect_error "recv --create: not a pool" 2 "$tmp/zeros exists and is not a usable pmemlog pool; refusing to overwrite it" "$RECV" --create 8M "$tmp/zeros"
for p in "/dev/null:a character device" "$tmp/pool-fifo:a FIFO" "$tmp/zeros:not a usable pmemlog pool"; do
	expect_error "recv --check-config: ${p#*:}" 2 "--log a=${p%%:*}: ${p%%:*} is ${p#*:}" "$RECV" --check-config --log a="${p%%:*}"
done
expect_error "recv --info: missing" 2 "pool $tmp/missing.pool does not exist: give the path of a pool file or a device-DAX" "$RECV" --info "$tmp/missing.pool"
if [ "$(id -u)" = 0 ] && mkdir "$tmp/ro" && mount -t tmpfs -o size=8m tmpfs "$tmp/ro" 2>/dev/null; then
	pmempool create log "$tmp/ro/p.pool" && mount -o remount,ro "$tmp/ro"
	expect_error "recv: a pool on a read-only mount" 2 "$tmp/ro/p.pool is on a read-only file system: rpma-recv writes to its pools; remount it read-write" \
		"$RECV" "$tmp/ro/p.pool"
	expect_error "recv --check-config: a pool on a read-only mount" 2 "pool $tmp/ro/p.pool: read-only file system" \
		"$RECV" --check-config --log a="$tmp/ro/p.pool"
	umount "$tmp/ro"
fi
if [ "$(id -u)" = 0 ]; then
	mkdir -m 700 "$tmp/locked"
	expect_error "recv --check-config: a pool beyond a directory it cannot search" 2 "cannot reach pool $tmp/locked/new.pool: permission denied: rpma-recv needs search access to each directory above it (user nobody)" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$RECV" --check-config --create 8M --log a="$tmp/locked/new.pool"
fi

if [ "$no_device" = 1 ]; then
	# --- a start that fails for want of a device leaves the pools as they
	# were and creates none
	before=$(sha256sum <"$tmp/serve.pool")
	expect_error "recv: no device" 3 "no RDMA device" "$RECV" "$tmp/serve.pool"
	check "recv: a failed start leaves the pool as it was" "$(ok [ "$(sha256sum <"$tmp/serve.pool")" = "$before" ])" "changed"
	expect_error "recv --create: no device" 3 "no RDMA device" "$RECV" --create 8M "$tmp/new.pool"
	check "recv --create: a failed start creates no pool" "$(ok [ ! -e "$tmp/new.pool" ])" "$(ls -l "$tmp/new.pool" 2>&1)"

	# --- a missing device is not waited for, whatever --retry says
	start=$SECONDS
	expect_error "send: no device with --retry 50" 3 "no RDMA device on this machine" "$SEND" --retry 50 192.0.2.1
	check "send: no device, no retry" "$(ok [ "$(grep -c retrying "$tmp/err")" = 0 ])" "$(cat "$tmp/err")"
	check "send: no device fails at once" "$(ok [ $((SECONDS - start)) -le 3 ])" "took $((SECONDS - start)) s"

	# --- a name that does not resolve is the trouble, not the device
	expect_error "send: unknown host without a device" 3 "cannot resolve no.such.host.invalid: .*; check the name" \
		"$SEND" no.such.host.invalid
	check "send: unknown host does not blame the device" "$(ok [ "$(grep -c 'RDMA device' "$tmp/err")" = 0 ])" "$(cat "$tmp/err")"

	# --- --stats of a run that failed before streaming counts its own time
	"$SEND" --stats 192.0.2.1 >/dev/null 2>"$tmp/err" </dev/null
	total=$(grep -o 'total_seconds=[0-9.]*' "$tmp/err" | cut -d= -f2)
	check "send: --stats total_seconds of a failed run" "$(ok awk -v t="${total:-x}" 'BEGIN { exit !(t ~ /^[0-9.]+$/ && t < 5) }')" \
		"'$total' in $(cat "$tmp/err")"
fi

# --- operands the other way round (source first, as scp and rsync take them)
head -c 10 /dev/zero >"$tmp/backup.tar"
expect_error "send: FILE HOST" 2 "'$tmp/backup.tar' is a file and 'pmemhost' is not: rpma-send takes HOST first, then FILE (rpma-send pmemhost $tmp/backup.tar)" \
	"$SEND" "$tmp/backup.tar" pmemhost
expect_error "verify: HOST FILE" 2 "'$tmp/backup.tar' is a file and 'pmemhost' is not: --verify takes FILE first, as cmp does (rpma-send --verify $tmp/backup.tar pmemhost)" \
	"$SEND" --verify pmemhost "$tmp/backup.tar"
if [ "$no_device" = 1 ]; then
	expect_error "send: HOST FILE is not taken for a swap" 3 "cannot resolve pmemhost" "$SEND" pmemhost "$tmp/backup.tar"
fi

# --- SIGINT or SIGTERM while opening a FIFO that has no writer yet: it says
# it was interrupted and exits 20 (rsync's code), sending and verifying
mkfifo "$tmp/fifo"
interrupt() { # NAME SIGNAL PATTERN COMMAND...
	local name=$1 sig=$2 pattern=$3 pid rc
	shift 3
	"$@" 2>"$tmp/err" </dev/null &
	pid=$!
	sleep 0.3
	kill "-$sig" "$pid"
	wait "$pid"
	rc=$?
	check "$name: exit 20" "$(ok [ "$rc" = 20 ])" "got $rc: $(cat "$tmp/err")"
	check "$name: one line" "$(ok [ "$(wc -l <"$tmp/err")" = 1 ])" "$(cat "$tmp/err")"
	check "$name: says so" "$(ok grep -q "^rpma-send: $pattern\$" "$tmp/err")" "$(cat "$tmp/err")"
}
interrupt "send: SIGINT opening a FIFO" INT "interrupted by SIGINT before sending anything" "$SEND" 192.0.2.1 "$tmp/fifo"
interrupt "send: SIGTERM opening a FIFO" TERM "interrupted by SIGTERM before sending anything" "$SEND" 192.0.2.1 "$tmp/fifo"
interrupt "verify: SIGTERM opening a FIFO" TERM "interrupted by SIGTERM" "$SEND" --verify "$tmp/fifo" 192.0.2.1
interrupt "verify --send: SIGINT opening a FIFO" INT "interrupted by SIGINT" "$SEND" --verify --send "$tmp/fifo" 192.0.2.1

# --- --follow of a file that is not there yet waits for it, as tail -F
if [ "$no_device" = 1 ]; then
	expect_error "send: -f of a missing file" 3 "$tmp/not-yet.log does not exist yet; waiting for it to appear" \
		"$SEND" -f 192.0.2.1 "$tmp/not-yet.log"
fi

summary
