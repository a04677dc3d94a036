#!/bin/bash
# Command lines on the host (no RDMA needed): every option in --help is in
# the man page and the README, usage errors give one clear line and exit 2,
# and a missing RDMA device is named as such (exit 3); the bash completion
# offers --check-config and completes its FILE.
#   test_cli.sh BUILD SOURCE
set -u
BUILD="$1"
SRC="$2"
SEND="$BUILD/src/rpma-send/rpma-send"
RECV="$BUILD/src/rpma-recv/rpma-recv"
. "$(dirname "$0")/../host_check.sh"
. "$(dirname "$0")/expect_error.sh"

for prog in rpma-send rpma-recv; do
	bin="$BUILD/src/$prog/$prog"
	"$bin" --help >"$tmp/help" 2>&1
	check "$prog --help" $? "exit non-zero"
	"$bin" --version | grep -q "^$prog [0-9]*\.[0-9]*\.[0-9]* (protocol versions [0-9]* to [0-9]*)$"
	check "$prog --version: its release and the protocol versions it speaks" $? "$("$bin" --version)"
	"$bin" --usage | grep -q "Usage: $prog"
	check "$prog --usage" $? "no usage line"
	for opt in $(grep -o -- '--[a-z][a-z-]*' "$tmp/help" | sort -u); do
		case "$opt" in --help | --usage | --version) continue ;; esac
		man_opt=$(echo "$opt" | sed 's/-/\\\\-/g')
		grep -q -- "$man_opt" "$SRC/man/$prog.1"
		check "$prog $opt in man page" $? "missing from man/$prog.1"
		grep -q -- "\`$opt\|, $opt" "$SRC/README.md"
		check "$prog $opt in README" $? "missing from README.md"
	done
done

# The bash completion, which reads the options from --help: rpma-recv
# --check-config is offered and completes a file, after a space (the
# operand argp takes as its FILE) or after '='; one file only.
bash_completion=/usr/share/bash-completion/bash_completion
completions() { # PROGRAM LINE: what bash offers for the end of LINE
	bash -c '
		source "$1" && source "$2" || exit 1
		COMP_LINE=$4
		COMP_POINT=${#COMP_LINE}
		read -ra COMP_WORDS <<<"${COMP_LINE//=/ = }"
		[[ $COMP_LINE == *[\ =] ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_rpma_ship "$3" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$bash_completion" "$SRC/dist/bash-completion/rpma-ship" "$@"
}
if [ -r "$bash_completion" ]; then
	touch "$tmp/check-me.conf"
	for line in "rpma-recv --che:--check-config" \
		"rpma-recv --check-config $tmp/check-m:$tmp/check-me.conf" \
		"rpma-recv --check-config=$tmp/check-m:$tmp/check-me.conf" \
		"rpma-recv --check-config $tmp/check-me.conf $tmp/check-m:"; do
		got=$(completions "$RECV" "${line%:*}")
		check "completion of '${line%:*}'" "$([ "$got" = "${line##*:}" ] && echo 0 || echo 1)" "got '$got', want '${line##*:}'"
	done
else
	echo "note: no $bash_completion: the completion is not checked"
fi

expect_error "send: unknown method" 2 "is not apm, gpspm, staged or flush" "$SEND" --method fast host
expect_error "send: bad batch" 2 "must be a size" "$SEND" --batch 12X host
expect_error "send: depth zero" 2 "must be a number from 1" "$SEND" --depth 0 host
expect_error "send: missing host" 2 "missing HOST" "$SEND"
expect_error "send: quorum zero" 2 "must be a number from 1" "$SEND" --quorum 0 a,b
expect_error "send: quorum above the list" 2 "quorum 3: only 2 replicas are listed" "$SEND" --quorum 3 a,b
expect_error "send: quorum of one host" 2 "quorum 2: only 1 replica is listed" "$SEND" --quorum 2 a
expect_error "send: resume with replicas" 2 "resume checks one receiver" "$SEND" --resume a,b f
expect_error "recv: credits with a sign" 2 "--credits: '+5' must be 1 to 64" "$RECV" --credits +5 pool
expect_error "recv: credits with a blank" 2 "must be 1 to 64" "$RECV" --credits " 5" pool
expect_error "recv: max-senders with text after" 2 "--max-senders: '5x' must be 1 to" "$RECV" --max-senders 5x pool
expect_error "send: bad port" 2 "port must be a number" "$SEND" host:99999
expect_error "send: missing input" 2 "cannot open input" "$SEND" host /nonexistent/file

# HOST[:PORT][/NAME]: the synopsis is the same in --help, the man page and
# the README, and a bad name is refused on one line that says what a name
# may contain (argp's "Try --help" hint aside).
"$SEND" --help >"$tmp/help" 2>&1
check "send --help shows /NAME and replicas" "$(grep -q 'HOST\[:PORT\]\[/NAME\]\[,HOST2...\] \[FILE|-\]' "$tmp/help" && echo 0 || echo 1)" "$(head -n 2 "$tmp/help")"
check "send man page shows /NAME" "$(grep -c 'fIHOST\\fR\[:\\fIPORT\\fR\]\[/\\fINAME\\fR\]' "$SRC/man/rpma-send.1" | grep -q '^3$' && echo 0 || echo 1)" "synopsis lines lack [/NAME]"
check "send README shows /NAME and replicas" "$(grep -q 'rpma-send \[OPTION...\] HOST\[:PORT\]\[/NAME\]\[,HOST2...\] \[FILE|-\]' "$SRC/README.md" && echo 0 || echo 1)" "usage line lacks [/NAME][,HOST2...]"
rule="a log name is 1 to 31 letters, digits, '.', '_' or '-', not starting with '.' or '-'"
expect_name_error() { # NAME PATTERN ARGS...: exit 2, the rule, one line
	local name="$1" pattern="$2"
	shift 2
	expect_error "$name" 2 "$pattern" "$SEND" "$@"
	check "$name: says what a name may contain" "$(head -n 1 "$tmp/err" | grep -qF -- "$rule" && echo 0 || echo 1)" "$(head -n 1 "$tmp/err")"
	local lines
	lines=$(grep -vc "^Try \`rpma-send --help' or \`rpma-send --usage' for more information.\$" "$tmp/err")
	check "$name: one line" "$([ "$lines" = 1 ] && echo 0 || echo 1)" "$lines lines: $(cat "$tmp/err")"
}
expect_name_error "send: name with a space" "'host/bad name': log name contains ' '" "host/bad name"
expect_name_error "send: empty name" "missing log name after '/'" host/
expect_name_error "send: 32-character name" "log name of 32 characters" host:7300/abcdefghijklmnopqrstuvwxyz012345
expect_name_error "send: name starting with a dot" "log name starts with '.'" host/.x
expect_name_error "send: IPv6 with a bad name" "log name contains '@'" "[fe80::1]:7300/b@d"
expect_name_error "send: name with a newline" "log name contains byte 0x0a" "host/a
b"
expect_name_error "send --verify: bad name" "log name contains '/'" --verify /dev/null host/a/b
expect_error "send: name without a host" 2 "missing host" "$SEND" /app
expect_error "send: port before a name" 2 "port must be a number" "$SEND" host:x/app
expect_error "recv: --listen takes no name" 2 "without a log name" "$RECV" --listen 192.0.2.1:7300/app pool
expect_error "send: directory input" 2 "is a directory" "$SEND" host /
expect_error "recv: missing pool" 2 "missing POOL" "$RECV"
expect_error "recv: bad create size" 2 "is not a size" "$RECV" --create lots pool
expect_error "recv: bad --allow" 2 "prefix length out of range" "$RECV" --allow 192.0.2.0/40 pool
expect_error "recv: --allow hostname" 2 "not an IPv4 or IPv6 address" "$RECV" --allow example.org pool
head -c 4M /dev/zero >"$tmp/zeros"
expect_error "recv: not a pool" 2 "not a usable pmemlog pool" "$RECV" "$tmp/zeros"
expect_error "recv: pool absent" 2 "does not exist" "$RECV" "$tmp/none.pool"

pmempool create log --size=8M "$tmp/info.pool"
"$RECV" --info "$tmp/info.pool" >"$tmp/info" 2>&1
check "recv --info exit" $? "$(cat "$tmp/info")"
check "recv --info usage" "$(grep -q '^used: 0 bytes' "$tmp/info" && grep -q '^log size: 8380416 bytes' "$tmp/info" && echo 0 || echo 1)" "$(cat "$tmp/info")"
expect_error "recv --info not a pool" 2 "not a usable pmemlog pool" "$RECV" --info "$tmp/zeros"
expect_error "send: --follow stdin" 2 "needs a file path" "$SEND" --follow host -

if [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	head -c 100 /dev/urandom >"$tmp/in"
	expect_error "send: no RDMA device" 3 "no RDMA device" "$SEND" 192.0.2.1 "$tmp/in"
	"$RECV" --create 8M "$tmp/p.pool" 2>"$tmp/err"
	rc=$?
	check "recv: no RDMA device exit" "$([ "$rc" = 3 ] && echo 0 || echo 1)" "got $rc"
	check "recv: no RDMA device message" "$(grep -q 'no RDMA device' "$tmp/err" && echo 0 || echo 1)" "$(cat "$tmp/err")"
fi

# The README is complete in a clone: nothing it points to lies outside the
# repository, and every project file it names exists (paths under the
# top-level folders, and bare file names like window.c or rpma-recv.service
# anywhere in the tree).
outside=$(grep -n '\.\./' "$SRC/README.md")
check "README: no link leaves the repository" "$([ -z "$outside" ] && echo 0 || echo 1)" "$outside"
readme_paths() {
	grep -o -P '(?<![/\w.-])((\.ci|scripts|src|man|tests|docs|cmake|debian|dist)/[\w./-]*|[a-z_][a-z_-]*\.(c|h|sh|conf|service)\b)' "$SRC/README.md" |
		sed 's/[.]$//' | sort -u
}
named=0
for path in $(readme_paths); do
	named=$((named + 1))
	case "$path" in
	*/*) [ -e "$SRC/$path" ] ;;
	*) [ -n "$(find "$SRC/src" "$SRC/scripts" "$SRC/tests" "$SRC/dist" -name "$path" -print -quit)" ] ;;
	esac
	check "README names $path" $? "no such file in the repository"
done
check "README names project files" "$([ "$named" -gt 20 ] && echo 0 || echo 1)" "only $named found: is the pattern stale?"

summary
