#!/bin/bash
# rpma-recv --check-config on the host (no RDMA needed): a good
# configuration gives exit 0 and one line on standard output; each kind of
# problem exit 2 and one line FILE:LINE on standard error; command-line logs
# and options combine with the file as in the service; the pools are never
# opened, created nor changed; a pool the user may not use is named (as
# nobody, when run as root).
#   test_check_config.sh BUILD
set -u
BUILD="$1"
RECV="$BUILD/src/rpma-recv/rpma-recv"
DEFAULT_CONF=/etc/rpma-ship/rpma-recv.conf
. "$(dirname "$0")/../host_check.sh"
. "$(dirname "$0")/expect_error.sh"
chmod 755 "$tmp" # the cases run as nobody reach their files through it


# run ARGS...: rpma-recv, its exit code in $rc, its output in $tmp/out and
# $tmp/err. RUN_AS (a command prefix) runs it as another user.
RUN_AS=()
run() {
	rc=0
	"${RUN_AS[@]}" "$RECV" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
}

# expect_ok NAME LINE ARGS...: exit 0, LINE alone on stdout, nothing on
# stderr.
expect_ok() {
	local name="$1" want="$2"
	shift 2
	run "$@"
	check "$name: exit 0" "$(ok [ "$rc" = 0 ])" "got $rc: $(cat "$tmp/err")"
	check "$name: the OK line" "$(ok [ "$(cat "$tmp/out")" = "$want" ])" "got '$(cat "$tmp/out")', want '$want'"
	check "$name: quiet stderr" "$(ok [ ! -s "$tmp/err" ])" "$(cat "$tmp/err")"
}

# expect_bad NAME PLACE FRAGMENT ARGS...: exit 2, one line on stderr that
# starts "rpma-recv: PLACE: " and holds FRAGMENT, nothing on stdout.
expect_bad() {
	local name="$1" place="$2" fragment="$3"
	shift 3
	run "$@"
	check "$name: exit 2" "$(ok [ "$rc" = 2 ])" "got $rc: $(cat "$tmp/err")"
	local line
	line=$(cat "$tmp/err")
	case "$line" in
	"rpma-recv: $place: "*"$fragment"*) check "$name: message" 0 "" ;;
	*) check "$name: message" 1 "'$line' is not 'rpma-recv: $place: ...$fragment...'" ;;
	esac
	check "$name: one line" "$(ok [ "$(wc -l <"$tmp/err")" = 1 ])" "$line"
	check "$name: nothing on stdout" "$(ok [ ! -s "$tmp/out" ])" "$(cat "$tmp/out")"
}

# The same for a usage error, which argp follows with a "Try" line.
expect_usage() {
	local name="$1" fragment="$2"
	shift 2
	run "$@"
	check "$name: exit 2" "$(ok [ "$rc" = 2 ])" "got $rc"
	check "$name: message" "$(ok grep -qF -- "rpma-recv: $fragment" "$tmp/err")" "$(cat "$tmp/err")"
}

pool="$tmp/app.pool"
pmempool create log --size=8M "$pool"
head -c 32 /dev/urandom >"$tmp/audit.key"
chmod 600 "$tmp/audit.key"
good="$tmp/good.conf"
cat >"$good" <<EOF
port = 7300
credits = 16

[app]
pool = $pool

[audit]
pool = $tmp/audit.pool
create = 8M
auth-key = $tmp/audit.key
EOF
before_sum=$(sha256sum "$pool")
before_time=$(stat -c %y "$pool")

# ---- good: every way to name the file ----
want="rpma-recv: $good: configuration OK, 2 logs: app, audit"
expect_ok "FILE after the option" "$want" --check-config "$good"
expect_ok "--check-config=FILE" "$want" --check-config="$good"
expect_ok "--check-config --config FILE" "$want" --check-config --config "$good"
expect_ok "FILE before the option" "$want" "$good" --check-config
expect_ok "same FILE twice" "$want" --check-config "$good" --config "$good"
run -q --check-config "$good"
check "-q: exit 0" "$(ok [ "$rc" = 0 ])" "got $rc"
check "-q: silent" "$(ok [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ])" "$(cat "$tmp/out" "$tmp/err")"
printf '[app]\npool = %s\n' "$pool" >"$tmp/one.conf"
expect_ok "one log" "rpma-recv: $tmp/one.conf: configuration OK, 1 log: app" --check-config "$tmp/one.conf"

# ---- the command line, combined as the service combines it ----
expect_ok "--log alone" "rpma-recv: the command line: configuration OK, 1 log: x" --check-config --log x="$pool"

# ---- the listen address: one of this host's, or none ----
expect_ok "--listen on loopback" "rpma-recv: the command line: configuration OK, 1 log: x" --check-config --listen 127.0.0.1 --log x="$pool"
expect_bad "--listen not this host's" "--listen" "listen address '192.0.2.77' is not an address of this host: give the address of its RDMA device's network interface" --check-config --listen 192.0.2.77 --log x="$pool"
printf 'listen = 192.0.2.9\n[app]\npool = %s\n' "$pool" >"$tmp/listen.conf"
expect_bad "listen = not this host's" "$tmp/listen.conf" "listen address '192.0.2.9' is not an address of this host" --check-config "$tmp/listen.conf"
pmempool create log --size=8M "$tmp/x.pool"
expect_ok "--log with the file" "rpma-recv: $good: configuration OK, 3 logs: x, app, audit" --check-config "$good" --log x="$tmp/x.pool"
expect_bad "--log named as a log of the file" "$good:4" "log 'app' is already defined (--log app=$tmp/x.pool)" --check-config "$good" --log app="$tmp/x.pool"
expect_bad "--log on a pool of the file" "$good:5" "log 'app' uses the pool of log 'x'" --check-config "$good" --log x="$pool"
expect_bad "--log pool missing" "--log y=$tmp/none.pool" "pool $tmp/none.pool does not exist: create it with \`pmempool create log $tmp/none.pool\` or give --create SIZE" --check-config --log y="$tmp/none.pool"
expect_ok "--log pool missing, --create" "rpma-recv: the command line: configuration OK, 1 log: y" --check-config --create 8M --log y="$tmp/none.pool"
expect_bad "--log pool, no directory" "--log y=$tmp/nodir/y.pool" "pool $tmp/nodir/y.pool does not exist, nor does its directory $tmp/nodir" --check-config --create 8M --log y="$tmp/nodir/y.pool"
expect_bad "--log pool is a directory" "--log y=$tmp" "pool $tmp is a directory" --check-config --log y="$tmp"
expect_bad "--auth-key missing" "cannot open auth key $tmp/none.key" "No such file or directory" --check-config --auth-key "$tmp/none.key" --log x="$pool"
expect_usage "--credits out of range" "--credits: '0' must be 1 to 64" --check-config "$good" --credits 0
expect_usage "two files" "--check-config: one FILE to check, not $good and $tmp/one.conf" --check-config "$good" --config "$tmp/one.conf"
expect_usage "two operands" "--check-config: one FILE to check, not $good and $tmp/one.conf" --check-config "$good" "$tmp/one.conf"
expect_usage "with --info" "--check-config and --info: give one of them" --check-config --info "$good"

# ---- what the loader refuses, FILE:LINE ----
bad() { # bad NAME LINE FRAGMENT TEXT: TEXT as a file is refused at LINE
	printf '%s\n' "$4" >"$tmp/bad.conf"
	expect_bad "$1" "$tmp/bad.conf:$2" "$3" --check-config "$tmp/bad.conf"
}
# ---- what rsyncd.conf users write: [global], any case, '\' continues ----
printf '%s\n' "[global]" "Peer Timeout = 5s" "MAX_SENDERS = \\" "  4" "[app]" "Pool = $pool" >"$tmp/rsyncd-like.conf"
expect_ok "rsyncd.conf's forms" "rpma-recv: $tmp/rsyncd-like.conf: configuration OK, 1 log: app" --check-config "$tmp/rsyncd-like.conf"
bad "[global] after a log" 3 "[global] comes before the first log's section (line 1): move it up" "[app]
pool = $pool
[global]"
bad "&include" 1 "'&include' is not taken here: write the logs in this file" "&include /etc/rpma-ship/rpma-recv.conf.d
[app]
pool = $pool"
bad "a continued line's error names its first line" 2 "credits '99' must be a number from 1 to 64" "# credits
credits = \\
  99
[app]
pool = $pool"

bad "bad key" 3 "unknown key 'pol' (keys of a log: pool," "[app]
pool = $pool
pol = $pool"
bad "bad value" 1 "credits '0' must be a number from 1 to 64" "credits = 0
[app]
pool = $pool"
bad "duplicate log" 3 "log 'app' is already defined (line 1): rename one of them" "[app]
pool = $pool
[app]
pool = $tmp/x.pool"
bad "two logs on one pool" 4 "log 'b' uses the pool of log 'a' (line 1)" "[a]
pool = $pool
[b]
pool = $pool"
bad "missing pool without create" 2 "pool $tmp/none.pool does not exist: create it with \`pmempool create log $tmp/none.pool\` or add \`create = SIZE\`" "[app]
pool = $tmp/none.pool"
bad "missing pool, no directory" 2 "log app: pool $tmp/nodir/app.pool does not exist, nor does its directory $tmp/nodir" "[app]
pool = $tmp/nodir/app.pool
create = 8M"
bad "auth key missing" 3 "cannot open auth key $tmp/none.key: No such file or directory" "[app]
pool = $pool
auth-key = $tmp/none.key"
head -c 32 /dev/urandom >"$tmp/open.key"
chmod 644 "$tmp/open.key"
bad "auth key readable by others" 3 "auth key $tmp/open.key is open to its group or others; restrict it with chmod 600" "[app]
pool = $pool
auth-key = $tmp/open.key"
head -c 8 /dev/urandom >"$tmp/short.key"
chmod 600 "$tmp/short.key"
bad "auth key too short" 3 "auth key $tmp/short.key must hold 16 to 4096 bytes" "[app]
pool = $pool
auth-key = $tmp/short.key"
expect_bad "file missing" "$tmp/none.conf" "cannot read it: No such file or directory" --check-config "$tmp/none.conf"

# ---- the default file ----
if [ -e "$DEFAULT_CONF" ]; then
	echo "note: $DEFAULT_CONF exists on this machine: the default file case is not run"
else
	expect_bad "no FILE: the default" "$DEFAULT_CONF" "cannot read it: No such file or directory" --check-config
fi

# ---- under systemd: the error carries the journal's err priority ----
: >"$tmp/err"
rc=0
JOURNAL_STREAM=$(stat -c '%d:%i' "$tmp/err") "$RECV" --check-config "$tmp/bad.conf" >"$tmp/out" 2>>"$tmp/err" || rc=$?
check "journal: exit 2" "$(ok [ "$rc" = 2 ])" "got $rc"
check "journal: err priority" "$(ok grep -q "^<3>rpma-recv: $tmp/bad.conf:3: " "$tmp/err")" "$(cat "$tmp/err")"

# ---- as nobody: a pool, a directory, a key the user may not use ----
if [ "$(id -u)" != 0 ]; then
	echo "note: not root: the cases run as nobody (access denied) are not run"
else
	nb="$tmp/nobody"
	mkdir "$nb"
	chmod 755 "$nb"
	pmempool create log --size=8M "$nb/root.pool"
	chmod 644 "$nb/root.pool"
	cp "$tmp/audit.key" "$nb/root.key"
	conf_nb() { # conf_nb TEXT: $nb/nb.conf, readable by nobody
		printf '%s\n' "$1" >"$nb/nb.conf"
		chmod 644 "$nb/nb.conf"
	}
	RUN_AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	conf_nb "[app]
pool = $nb/root.pool"
	expect_bad "nobody: pool not writable" "$nb/nb.conf:2" "log app: pool $nb/root.pool: permission denied: rpma-recv needs read and write access to it (user nobody)" --check-config "$nb/nb.conf"
	conf_nb "[app]
pool = $nb/new.pool
create = 8M"
	expect_bad "nobody: directory not writable" "$nb/nb.conf:2" "log app: pool $nb/new.pool does not exist and cannot be created in $nb: permission denied: rpma-recv needs write access to that directory (user nobody)" --check-config "$nb/nb.conf"
	expect_bad "nobody: --log pool not writable" "--log x=$nb/root.pool" "pool $nb/root.pool: permission denied: rpma-recv needs read and write access to it (user nobody)" --check-config --log x="$nb/root.pool"
	conf_nb "[app]
pool = $nb/root.pool
auth-key = $nb/root.key"
	expect_bad "nobody: key not readable" "$nb/nb.conf:3" "cannot open auth key $nb/root.key: permission denied: it must be readable by this user (nobody)" --check-config "$nb/nb.conf"
	chmod 600 "$nb/nb.conf"
	expect_bad "nobody: file not readable" "$nb/nb.conf" "cannot read it: permission denied: rpma-recv needs read access to it (user nobody)" --check-config "$nb/nb.conf"
	pmempool create log --size=8M "$nb/own.pool"
	chown 65534:65534 "$nb/own.pool"
	conf_nb "[app]
pool = $nb/own.pool"
	expect_ok "nobody: own pool" "rpma-recv: $nb/nb.conf: configuration OK, 1 log: app" --check-config "$nb/nb.conf"
	RUN_AS=()
	rm -rf "$nb"
fi

# ---- nothing opened, created or changed ----
check "pool bytes unchanged" "$(ok [ "$(sha256sum "$pool")" = "$before_sum" ])" "sha256 differs"
check "pool mtime unchanged" "$(ok [ "$(stat -c %y "$pool")" = "$before_time" ])" "$before_time -> $(stat -c %y "$pool")"
rm -f "$tmp"/*.conf "$tmp"/*.key "$tmp/x.pool" "$tmp/out" "$tmp/err"
check "nothing created" "$(ok [ "$(ls -A "$tmp")" = app.pool ])" "$(ls -A "$tmp")"
# With strace, where tracing is allowed: no file is opened for writing or
# created, a pool is opened read-only only (its header is read) and no
# lock is taken. (LeakSanitizer cannot run
# under ptrace: off for this run of a sanitizer build.)
cat >"$tmp/good.conf" <<EOF
[app]
pool = $pool
[audit]
pool = $tmp/audit.pool
create = 8M
EOF
if command -v strace >/dev/null && strace -o /dev/null true 2>/dev/null; then
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o "$tmp/trace" -e trace=%file,%desc \
		"$RECV" --check-config "$tmp/good.conf" >/dev/null 2>&1
	check "strace: exit 0" $? "$(tail -n 3 "$tmp/trace")"
	calls='creat|mkdir(at)?|mknod(at)?|unlink(at)?|rename(at2?)?|f?truncate|(sym)?link(at)?|f?chmod(at)?|[fl]?chown(at)?|utime(s|nsat)?'
	writes=$(grep -E "O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|^[0-9]+ +($calls)\(" "$tmp/trace" | grep -v ' = -1 ')
	check "strace: nothing opened for writing" "$(ok [ -z "$writes" ])" "$writes"
	opens=$(grep -E 'open.*(app|audit)\.pool' "$tmp/trace" | grep -v O_RDONLY)
	check "strace: a pool is only read (its header, as --info)" "$(ok [ -z "$opens" ])" "$opens"
	locks=$(grep -E 'flock\(|F_SETLK|F_OFD_SETLK' "$tmp/trace")
	check "strace: no lock taken" "$(ok [ -z "$locks" ])" "$locks"
	rm -f "$tmp/trace"
else
	echo "note: no strace, or tracing not allowed: the system call check is not run"
fi
check "pool unchanged after strace run" "$(ok [ "$(sha256sum "$pool")" = "$before_sum" ] && [ "$(stat -c %y "$pool")" = "$before_time" ])" "changed"
check "created nothing" "$(ok [ ! -e "$tmp/audit.pool" ])" "$tmp/audit.pool exists"

# --- an archive (rotation): a directory rpma-recv may write; --log takes a
# log's own keys after its pool
mkdir -p "$tmp/arch"
expect_error "--log with an archive that is not there" 2 \
	"archive $tmp/nope does not exist: create the directory" \
	"$RECV" --check-config --log "a=$tmp/a.pool,archive=$tmp/nope,create=8M"
expect_error "--archive that is a file" 2 "archive /etc/passwd is not a directory" \
	"$RECV" --check-config --archive /etc/passwd --log "a=$tmp/a.pool,create=8M"
expect_error "--log with rotate-at out of range" 2 \
	"rotate-at '200' must be a percentage from 10% to 95%" \
	"$RECV" --check-config --log "a=$tmp/a.pool,rotate-at=200,create=8M"
expect_error "--log with a key that is not a log's" 2 \
	"'port' is not a key of a log; give NAME=POOL\[,KEY=VALUE...\]" \
	"$RECV" --check-config --log "a=$tmp/a.pool,port=7204"
expect_error "--log with a key without value" 2 "archive has no value" \
	"$RECV" --check-config --log "a=$tmp/a.pool,archive"
"$RECV" --check-config --log "a=$tmp/a.pool,archive=$tmp/arch,create=8M,rotate-at=80%,archive-keep=10,archive-max=1G" >"$tmp/out" 2>"$tmp/err"
check "--log NAME=POOL,KEY=VALUE... checks out" $? "$(cat "$tmp/err")"
printf '[a]\npool = %s\ncreate = 8M\narchive = arch\n' "$tmp/a.pool" >"$tmp/rel.conf"
expect_error "a relative archive in the file" 2 "rel.conf:4: archive 'arch' must be an absolute path" \
	"$RECV" --check-config "$tmp/rel.conf"
chmod 500 "$tmp/arch"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$tmp"
	expect_error "an archive the user may not write" 2 \
		"archive $tmp/arch: permission denied: rpma-recv needs to read and write that directory (user nobody)" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$RECV" --check-config \
		--log "a=$tmp/a.pool,archive=$tmp/arch,create=8M"
fi
rm -rf "$tmp/arch" "$tmp/rel.conf"

summary
