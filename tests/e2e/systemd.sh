#!/bin/bash
# End-to-end: the packaged rpma-recv.service under a real systemd (PID 1 of
# the guest), driven as an operator would after `apt install ./rpma-ship.deb`:
# the package creates the user rpma-ship; the pools are given to it as the
# unit's comments say (a directory on fsdax, a udev rule for the devdax
# device, a drop-in with ReadWritePaths=); `systemctl start` returns once the
# logs are served; a sender ships into each; `systemctl status` shows the
# service's own status line; `systemctl reload` adds a log while a stream
# runs, undisturbed; a refused sender is in `journalctl -p warning`; a broken
# file on reload keeps the old configuration and logs FILE:LINE at error
# priority; `systemctl stop` leaves the pools consistent; a configuration
# that cannot start gives exit 2 and no restart loop; the service runs as
# rpma-ship with no capabilities, and systemd rates its sandbox "OK". And
# the sender's template, rpma-send@.service, following a log through
# logrotate, a stop, a kill -9 and its restart: every line once.
#
# On the host: tests/e2e/systemd.sh BUILD packs BUILD into a .deb (cpack, a
# few seconds) and boots the VM test bed with systemd as PID 1 to run
# itself there as: systemd.sh BUILD DEB.
BUILD="$1"
if [ -z "${RPMA_VM:-}" ]; then
	top=$(cd "$(dirname "$0")/../.." && pwd)
	pack="$BUILD/e2e-package"
	rm -rf "$pack"
	(cd "$BUILD" && cpack -G DEB -B "$pack" >"$BUILD/e2e-package.log" 2>&1) || {
		cat "$BUILD/e2e-package.log" >&2
		exit 1
	}
	debs=("$pack"/*.deb)
	exec "$top/scripts/vm/run" --systemd --boots 2 --timeout 1500 -- "$0" "$BUILD" "${debs[0]}"
fi
DEB="$2"
# kept across the reboot (scripts/vm-run --boots 2: the root's writes are)
export RPMA_E2E_WORK=/var/lib/rpma-test
[ "${RPMA_VM_BOOT:-1}" -gt 1 ] || rm -rf "$RPMA_E2E_WORK"
. "$(dirname "$0")/lib.sh"

conf=/etc/rpma-ship/rpma-recv.conf
unit=rpma-recv
pool_dir="$RPMA_FSDAX_DIR/rpma"
devdax="$RPMA_DEVDAX"
key=/etc/rpma-ship/audit.key
logdir=/var/log/rpma-test
sender=rpma-send@app
follow_case="rpma-send@.service follows a log through logrotate, a stop, a kill -9, its restart and a reboot of the host: every line once"

# sd COMMAND...: systemctl, its output in $WORK/sd.out, exit code in RC.
sd() {
	RC=0
	timeout 120 systemctl "$@" >"$WORK/sd.out" 2>&1 || RC=$?
}
prop() { systemctl show -p "$1" --value "$unit"; }
prop_of() { systemctl show -p "$2" --value "$1"; }
# journal PRIORITY: the unit's journal at PRIORITY or more urgent.
journal() { journalctl -q -u "$unit" -p "$1" --no-pager -o cat 2>&1; }
# wait_for_journal PRIORITY TEXT: journald has the line (it reads the
# unit's standard error on its own time), within 20 s.
wait_for_journal() {
	local end=$((SECONDS + 20))
	until journal "$1" | grep -q "$2"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		nap 0.2
	done
}
# ship_to NAME INPUT [ARGS...]: rpma-send into HOST/NAME; exit code in RC.
ship_to() {
	local name="$1" input="$2"
	shift 2
	RC=0
	timeout 300 "$SEND" "$@" --truncate=in-place "$RECV_IP/$name" "$input" 2>"$WORK/send-$name.log" || RC=$?
}
# same_as NAME INPUT [ARGS...]: the log NAME holds exactly INPUT (verify).
same_as() {
	local name="$1" input="$2" rc=0
	shift 2
	timeout 120 "$SEND" "$@" --verify "$input" "$RECV_IP/$name" >"$WORK/verify.log" 2>&1 || rc=$?
	[ "$rc" = 0 ] || fail "log $name differs from $input (verify exit $rc): $(cat "$WORK/verify.log")"
}
# status_is PATTERN [SECONDS]: the unit's status line comes to match
# PATTERN (a glob: * for any text).
status_is() {
	local end=$((SECONDS + ${2:-10})) now
	# shellcheck disable=SC2053 # a pattern, on purpose
	while now=$(prop StatusText) && [[ $now != $1 ]]; do
		[ "$SECONDS" -lt "$end" ] || {
			fail "status line '$now', want '$1'"
			return 1
		}
		nap 0.2
	done
}

write_conf() { # the three logs, plus whatever the caller appends
	cat >"$conf" <<EOF
# written by tests/e2e/systemd.sh
listen = $RECV_IP
peer-timeout = 5s
metrics-file = /run/rpma-ship/rpma-recv.prom
metrics-interval = 1s
[app]
pool = $pool_dir/app.pool
create = 32M
allow = 192.0.2.0/24
[audit]
pool = $devdax
auth-key = $key
methods = gpspm staged
[locked]
pool = $pool_dir/locked.pool
create = 8M
allow = 192.0.2.99
EOF
}

# numbered FIRST LAST: the application's lines FIRST to LAST.
numbered() { seq "$1" "$2" | sed 's/^/line /'; }
# app_writes FIRST LAST: the application writes lines FIRST to LAST, 100
# every 0.1 s, to its log (whatever logrotate made of it meanwhile).
app_writes() {
	local k
	for ((k = $1; k <= $2; k += 100)); do
		numbered "$k" "$((k + 99 < $2 ? k + 99 : $2))" >>"$logdir/app.log"
		sleep 0.1
	done
}
# followed_holds N: the log [followed] comes to hold N lines (fetched
# again for up to a minute), exactly the application's lines 1 to N.
followed_holds() {
	numbered 1 "$1" >"$WORK/lines"
	for _ in $(seq 120); do
		timeout 60 "$SEND" --fetch "$RECV_IP/followed" "$WORK/fetched" 2>"$WORK/fetch.log" &&
			[ "$(wc -l <"$WORK/fetched")" -ge "$1" ] && break
		nap 0.5
	done
	cmp -s "$WORK/fetched" "$WORK/lines" ||
		fail "the log holds $(wc -l <"$WORK/fetched") lines, not lines 1 to $1 once each: $(diff "$WORK/lines" "$WORK/fetched" | head -n 4); journal: $(journalctl -q -u "$sender" --no-pager -o cat | tail -n 5)"
}
# kept_lines: what the log's files keep, oldest first (rotate 5: nothing
# was removed yet).
kept_lines() {
	local n
	for n in 5 4 3 2 1; do
		[ ! -e "$logdir/app.log.$n" ] || cat "$logdir/app.log.$n"
	done
	cat "$logdir/app.log"
}

# After the reboot (the last case's end, below): both units were started at
# boot; the application writes 1000 more lines, logrotate runs once more,
# and the remote log holds every line the files keep, once each.
after_reboot() {
	local kept
	read -r passed failed case_failed <"$WORK/counts"
	# shellcheck disable=SC2034 # end_case reads case_start
	case_name=$follow_case case_start=$SECONDS
	log "--- case: $case_name (after the reboot)"
	[ "$(systemctl is-enabled "$sender")" = enabled ] || fail "$sender is not enabled after the reboot"
	for _ in $(seq 120); do
		! systemctl -q is-active "$sender" || break
		nap 0.5
	done
	systemctl -q is-active "$sender" ||
		fail "$sender not started at boot: $(systemctl is-active "$sender"); $(journalctl -q -b -u "$sender" --no-pager -o cat | tail -n 5)"
	kept=$(kept_lines | wc -l)
	log "the files keep $kept lines after the reboot"
	app_writes "$((kept + 1))" "$((kept + 1000))" &
	sleep 0.5
	logrotate -f -s "$WORK/logrotate.state" "$WORK/logrotate.conf" || fail "logrotate"
	wait
	cmp -s <(kept_lines) <(numbered 1 "$((kept + 1000))") ||
		fail "the files do not keep lines 1 to $((kept + 1000)) (test bed)"
	followed_holds "$((kept + 1000))"
	sd stop "$sender"
	end_case
}
if [ "${RPMA_VM_BOOT:-1}" -gt 1 ]; then
	after_reboot
	summary
	exit
fi
for n in 1 2 3 4; do
	head -c $((2 << 20)) /dev/urandom >"$WORK/in$n"
done

start_case "PID 1 is systemd"
[ "$(cat /proc/1/comm)" = systemd ] || fail "PID 1 is $(cat /proc/1/comm)"
end_case

start_case "the package installs: the user rpma-ship, the unit known to systemd"
# (Test bed speed only: without this file man-db's trigger skips
# rebuilding its index, minutes under TCG.)
rm -f /var/lib/man-db/auto-update
RC=0
dpkg -i "$DEB" >"$WORK/dpkg.log" 2>&1 || RC=$?
[ "$RC" = 0 ] || fail "dpkg -i exit $RC: $(cat "$WORK/dpkg.log")"
id rpma-ship >/dev/null 2>&1 || fail "no user rpma-ship"
[ "$(prop User)" = rpma-ship ] || fail "unit's User= is '$(prop User)'"
# ahead of the host's other work (docs/operating.md, a host short of CPU)
[ "$(prop Nice)" = -10 ] || fail "unit's Nice= is '$(prop Nice)'"
[ "$(prop LoadState)" = loaded ] || fail "unit not loaded: $(prop LoadState)"
end_case

start_case "the operator's set-up, as the unit's comments say"
# a directory for the fsdax pools, the devdax device by a udev rule, the key
install -d -o rpma-ship -g rpma-ship -m 0750 "$pool_dir" || fail "install -d $pool_dir"
pmempool create log "$devdax" || fail "pmempool create log $devdax"
sed "s/KERNEL==\"dax0.0\"/KERNEL==\"${devdax#/dev/}\"/" \
	/usr/share/doc/rpma-ship/examples/60-rpma-ship-dax.rules >/etc/udev/rules.d/60-rpma-ship-dax.rules
udevadm control --reload && udevadm trigger --subsystem-match=dax --action=add && udevadm settle -t 30 ||
	fail "udevadm"
[ "$(stat -c %G:%a "$devdax")" = rpma-ship:660 ] || fail "$devdax is $(stat -c %U:%G:%a "$devdax")"
mkdir -p /etc/rpma-ship
head -c 32 /dev/urandom >"$key"
chown rpma-ship: "$key" && chmod 600 "$key" || fail "chown/chmod $key"
install -m 600 "$key" "$WORK/sender.key"
mkdir -p /etc/systemd/system/$unit.service.d
printf '[Unit]\nRequiresMountsFor=%s\n[Service]\nReadWritePaths=%s\n' "$RPMA_FSDAX_DIR" "$RPMA_FSDAX_DIR" \
	>/etc/systemd/system/$unit.service.d/pools.conf
write_conf
sd daemon-reload
[ "$RC" = 0 ] || fail "daemon-reload: $(cat "$WORK/sd.out")"
end_case

start_case "a devdax pool with PMDK's bad-block check: exit 2, the line says what to run"
# --check-config says it as the start does, before anything is opened
check_config() {
	RC=0
	runuser -u rpma-ship -- /usr/bin/rpma-recv --check-config >"$WORK/check.out" 2>&1 || RC=$?
}
check_config
[ "$RC" = 2 ] || fail "rpma-recv --check-config as rpma-ship: exit $RC, want 2: $(cat "$WORK/check.out")"
grep -q "log audit: $devdax: PMDK's bad-block check of this pool needs root" "$WORK/check.out" ||
	fail "--check-config says no bad-block line: $(cat "$WORK/check.out")"
sd start "$unit"
[ "$RC" != 0 ] || fail "systemctl start succeeded"
[ "$(prop ExecMainStatus)" = 2 ] || fail "exit status $(prop ExecMainStatus), want 2"
journal err | grep -q "$conf:[0-9]*: log audit: $devdax: PMDK's bad-block check of this pool needs root.*pmempool feature --disable CHECK_BAD_BLOCKS $devdax" ||
	fail "no bad-block line: $(journal err | tail -n 2)"
# what that line says to do, as root
pmempool feature --disable CHECK_BAD_BLOCKS "$devdax" || fail "pmempool feature --disable"
check_config
[ "$RC" = 0 ] || fail "rpma-recv --check-config as rpma-ship: exit $RC: $(cat "$WORK/check.out")"
end_case

start_case "systemctl start returns once READY=1 is sent and every log is served"
sd start "$unit"
[ "$RC" = 0 ] || fail "systemctl start exit $RC: $(cat "$WORK/sd.out"); $(journal debug | tail -n 5)"
# at once, no waiting: start returned only after READY=1
[ "$(prop ActiveState)" = active ] || fail "not active: $(prop ActiveState)/$(prop SubState)"
rdma res show cm_id | grep -q "LISTEN.*$RECV_IP:7204" || fail "no listener: $(rdma res show cm_id)"
for name in app audit locked; do
	journal info | grep -q "serving log $name:" || fail "log $name not served: $(journal info)"
done
status_is "serving 3 logs (app 0%, audit *%, locked *%), 0 senders connected, 0 B committed" 0
end_case

start_case "it runs as rpma-ship, with no capabilities"
pid=$(prop MainPID)
[ "$pid" -gt 0 ] || fail "no main process"
[ "$(ps -o user= -p "$pid")" = rpma-ship ] || fail "runs as $(ps -o user= -p "$pid")"
grep -q '^CapEff:[[:space:]]*0*$' "/proc/$pid/status" || fail "$(grep Cap "/proc/$pid/status")"
grep -q '^NoNewPrivs:[[:space:]]*1$' "/proc/$pid/status" || fail "NoNewPrivs not set"
end_case

start_case "a sender ships into each log"
ship_to app "$WORK/in1"
[ "$RC" = 0 ] || fail "ship to app exit $RC: $(cat "$WORK/send-app.log")"
ship_to audit "$WORK/in2" --auth-key "$WORK/sender.key"
[ "$RC" = 0 ] || fail "ship to audit exit $RC: $(cat "$WORK/send-audit.log")"
same_as app "$WORK/in1"
same_as audit "$WORK/in2" --auth-key "$WORK/sender.key"
end_case

start_case "what it committed: the status line, the metrics file, rpma-recv --info"
# 2 MiB of app's 32 MiB pool; audit's devdax is as large as the test bed's
status_is "serving 3 logs (app 6%, audit *%, locked *%), 0 senders connected, 4.0 MiB committed"
prom=/run/rpma-ship/rpma-recv.prom
wait_prom() { # the file's next writing has TEXT
	local end=$((SECONDS + 10))
	until grep -qF "$1" "$prom" 2>/dev/null; do
		[ "$SECONDS" -lt "$end" ] || return 1
		nap 0.2
	done
}
wait_prom "rpma_recv_committed_bytes_total{log=\"app\",pool=\"$pool_dir/app.pool\"} 2097152" ||
	fail "the metrics file lacks app's 2 MiB: $(grep committed_bytes "$prom" 2>&1)"
# (a writing between the two sends has app's 2 MiB and audit's 0)
wait_prom "rpma_recv_committed_bytes_total{log=\"audit\",pool=\"$devdax\"} 2097152" ||
	fail "the metrics file lacks audit's 2 MiB: $(grep committed_bytes "$prom" 2>&1)"
[ "$(stat -c %U "$prom")" = rpma-ship ] || fail "$prom is $(stat -c %U "$prom")'s"
RC=0
/usr/bin/rpma-recv --info "$pool_dir/app.pool" >"$WORK/info" 2>&1 || RC=$?
[ "$RC" = 0 ] || fail "rpma-recv --info of a served pool: exit $RC: $(cat "$WORK/info")"
grep -q "^served: as log app by rpma-recv (pid $(prop MainPID))" "$WORK/info" ||
	fail "--info does not say who serves it: $(cat "$WORK/info")"
grep -q "^committed since it started: 2097152 bytes" "$WORK/info" ||
	fail "--info lacks what was committed: $(cat "$WORK/info")"
end_case

start_case "systemctl reload adds a log while a stream runs; the stream is undisturbed; status follows"
FEED_PAUSE=0.1 start_fed_sender "$WORK/in3" --truncate=in-place "$RECV_IP/app"
status_is "serving 3 logs (app *%, audit *%, locked *%), 1 sender connected, *" 30
write_conf
printf '[extra]\npool = %s/extra.pool\ncreate = 8M\n' "$pool_dir" >>"$conf"
# The receiver slow to take the signal, as on a loaded host (stopped for a
# second): systemctl reload returns once the receiver said the reload was
# done (rpma-recv --reload), not when the signal was sent; the status line
# has the log added, open, the unit is no longer reloading (asked first
# thing: a reload that returned early would still be under way)
pid=$(prop MainPID)
kill -STOP "$pid"
(
	sd reload "$unit"
	echo "$RC" >"$WORK/reload.rc"
	prop StatusText >"$WORK/reload.status"
	prop ActiveState >"$WORK/reload.state"
) &
reloader=$!
nap 1
kill -CONT "$pid"
wait "$reloader"
RC=$(cat "$WORK/reload.rc")
status=$(cat "$WORK/reload.status")
state=$(cat "$WORK/reload.state")
[ "$RC" = 0 ] || fail "systemctl reload exit $RC: $(cat "$WORK/sd.out")"
[[ "$status" == "serving 4 logs ("*"and 1 more), 1 sender connected, "* ]] ||
	fail "the status line right after systemctl reload: $status"
[ "$state" = active ] || fail "systemctl reload returned while the unit is $state"
sd status "$unit" --no-pager
wait_for_journal info "log extra added" || fail "no 'log extra added': $(journal info | tail -n 5)"
grep -q 'Status: "serving 4 logs (app [0-9]*%, audit [0-9]*%, locked [0-9]*% and 1 more), 1 sender connected, .* committed"' "$WORK/sd.out" ||
	fail "systemctl status lacks the status line: $(cat "$WORK/sd.out")"
ship_to extra "$WORK/in4"
[ "$RC" = 0 ] || fail "ship to the added log exit $RC: $(cat "$WORK/send-extra.log")"
# its input ends once the added log has served a sender: it ends exact
kill -0 "$SEND_PID" 2>/dev/null || fail "the stream ended before the reload was done (make it slower)"
end_feed "$WORK/in3" "$WORK/in3.fed"
reap "$SEND_PID"
[ "$REAP_RC" = 0 ] || fail "the stream during the reload exit $REAP_RC: $(cat "$WORK/send.log")"
same_as app "$WORK/in3.fed"
same_as extra "$WORK/in4"
status_is "serving 4 logs (app *%, audit *%, locked *% and 1 more), 0 senders connected, *"
end_case

start_case "a refused sender is in journalctl -p warning, not -p err"
ship_to locked "$WORK/in1"
[ "$RC" = 5 ] || fail "refused sender exit $RC, want 5: $(cat "$WORK/send-locked.log")"
journal warning | grep -q "refusing sender $RPMA_SEND_IP: not in the allow list" ||
	fail "not at warning priority: $(journal warning | tail -n 3)"
! journal err | grep -q "refusing sender $RPMA_SEND_IP: not in the allow list" ||
	fail "the refusal is at error priority"
end_case

start_case "a broken file on reload: refused with FILE:LINE at error priority, the old one stays"
cp "$conf" "$WORK/good.conf"
printf 'credits = many\n' >>"$conf"
line=$(grep -c '' "$conf")
sd reload "$unit"
[ "$RC" != 0 ] || fail "systemctl reload of a broken file succeeded"
wait_for_journal err "$conf:$line: " || fail "no $conf:$line at error priority: $(journal err | tail -n 3)"
[ "$(prop ActiveState)" = active ] || fail "not active after the refused reload: $(prop ActiveState)"
# the same file by SIGHUP straight to the daemon, past the check
pid=$(prop MainPID)
[ "$pid" -gt 0 ] && kill -HUP "$pid" || fail "no main process to send SIGHUP (MainPID $pid)"
wait_for_journal err "keeping the configuration in force" ||
	fail "SIGHUP with a broken file: no error line: $(journal err | tail -n 3)"
journal err | grep "keeping the configuration in force" | grep -q "$conf:$line: " ||
	fail "the daemon's own error lacks $conf:$line"
# and by rpma-recv --reload, as root and as the service's user: each
# waits for the receiver's answer, exit 2 and why
for who in root rpma-ship; do
	RC=0
	runuser -u "$who" -- /usr/bin/rpma-recv --reload "$pid" >"$WORK/reload.out" 2>&1 || RC=$?
	[ "$RC" = 2 ] || fail "rpma-recv --reload by $who with a broken file: exit $RC, want 2: $(cat "$WORK/reload.out")"
	grep -q "rpma-recv $pid refused its configuration file and keeps the one in force" "$WORK/reload.out" ||
		fail "rpma-recv --reload by $who does not say the file was refused: $(cat "$WORK/reload.out")"
done
ship_to extra "$WORK/in2"
[ "$RC" = 0 ] || fail "the old configuration is gone: ship to extra exit $RC"
same_as extra "$WORK/in2"
cp "$WORK/good.conf" "$conf"
end_case

start_case "systemd rates the running unit's sandbox OK (below 4)"
RC=0
systemd-analyze security --threshold=39 "$unit.service" >"$WORK/security" 2>&1 || RC=$?
[ "$RC" = 0 ] || fail "$(tail -n 1 "$WORK/security")"
log "$(tail -n 1 "$WORK/security")"
end_case

start_case "systemctl stop: the pools are consistent and hold what was committed"
sd stop "$unit"
[ "$RC" = 0 ] || fail "systemctl stop exit $RC"
[ "$(prop ActiveState)" = inactive ] || fail "after stop: $(prop ActiveState)"
check_pool "$pool_dir/app.pool" "$WORK/in3.fed"
check_pool "$pool_dir/extra.pool" "$WORK/in2"
check_pool "$devdax" "$WORK/in2"
[ "$(stat -c %U:%a "$pool_dir/app.pool")" = rpma-ship:600 ] ||
	fail "a pool it created is $(stat -c %U:%a "$pool_dir/app.pool"), want rpma-ship:600"
end_case

start_case "a configuration that cannot start: exit 2, FILE:LINE, no restart loop"
write_conf
printf '[gone]\npool = %s/no-such.pool\n' "$pool_dir" >>"$conf"
line=$(grep -n 'no-such.pool' "$conf" | cut -d: -f1)
sd start "$unit"
[ "$RC" != 0 ] || fail "systemctl start succeeded"
[ "$(prop ExecMainStatus)" = 2 ] || fail "exit status $(prop ExecMainStatus), want 2"
wait_for_journal err "$conf:$line: " || fail "no $conf:$line at error priority: $(journal err | tail -n 3)"
nap 8 # past RestartSec=5s
[ "$(prop NRestarts)" = 0 ] || fail "restarted $(prop NRestarts) times"
[ "$(prop ActiveState)" = failed ] || fail "state $(prop ActiveState), want failed"
end_case

start_case "$follow_case"
# the receiver again, with a log of its own for the file followed
write_conf
printf '[followed]\npool = %s/followed.pool\ncreate = 16M\n' "$pool_dir" >>"$conf"
systemctl reset-failed "$unit"
sd start "$unit"
[ "$RC" = 0 ] || fail "start with [followed]: $(cat "$WORK/sd.out")"
install -d -m 0755 "$logdir" && install -m 0644 /dev/null "$logdir/app.log"
mkdir -p /etc/rpma-ship/rpma-send
printf 'FILE=%s\nTO=%s/followed\nOPTIONS=--retry 1000\n' "$logdir/app.log" "$RECV_IP" \
	>/etc/rpma-ship/rpma-send/app.conf
printf '%s {\n\tcreate 0644 root root\n\trotate 5\n}\n' "$logdir/app.log" >"$WORK/logrotate.conf"
sd start "$sender"
[ "$RC" = 0 ] || fail "systemctl start $sender: $(cat "$WORK/sd.out")"
app_writes 1 6000 &
writer=$!
sleep 1.5
logrotate -f -s "$WORK/logrotate.state" "$WORK/logrotate.conf" || fail "logrotate"
sleep 1
sd stop "$sender"
[ "$(prop_of "$sender" ExecMainStatus)" = 0 ] || [ "$(prop_of "$sender" ExecMainStatus)" = 9 ] ||
	fail "stopped with exit $(prop_of "$sender" ExecMainStatus), want 0 or 9"
[ "$(prop_of "$sender" ActiveState)" = inactive ] || fail "after stop: $(prop_of "$sender" ActiveState)"
sleep 1
sd start "$sender"
sleep 1.5
logrotate -f -s "$WORK/logrotate.state" "$WORK/logrotate.conf" || fail "logrotate"
sleep 0.5
systemctl kill -s KILL "$sender"
wait "$writer"
# restarted on its own (Restart=on-failure, 5 s), it ships the rest
followed_holds 6000
[ "$(prop_of "$sender" NRestarts)" -ge 1 ] || fail "not restarted after kill -9: $(prop_of "$sender" NRestarts)"
# The host reboots while the application writes. Both units enabled as
# docs/operating.md says; the test bed boots into a target of its own,
# which wants them as multi-user.target would (scripts/vm/systemd).
sd enable "$unit" "$sender"
[ "$RC" = 0 ] || fail "systemctl enable: $(cat "$WORK/sd.out")"
sd add-wants rpma-vm-ready.target "$unit.service" "$sender.service"
[ "$RC" = 0 ] || fail "systemctl add-wants: $(cat "$WORK/sd.out")"
app_writes 6001 9000 &
sleep 1
logrotate -f -s "$WORK/logrotate.state" "$WORK/logrotate.conf" || fail "logrotate"
sleep 0.5
# the case goes on after the reboot (at the top): its count so far kept
echo "$passed $failed $case_failed" >"$WORK/counts"
log "rebooting the host, the application writing"
touch /run/rpma-vm-reboot
exit 0
