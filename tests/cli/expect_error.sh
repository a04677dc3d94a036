# shellcheck shell=bash
# The CLI tests' check of an error: source after tests/host_check.sh.

# expect_error NAME EXPECTED-RC PATTERN COMMAND...: exits with the code,
# and the first line on stderr names the program and matches PATTERN (its
# stdout and stderr stay in $tmp/out and $tmp/err).
expect_error() {
	local name="$1" want="$2" pattern="$3"
	shift 3
	local rc=0
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
	check "$name: exit code" "$([ "$rc" = "$want" ] && echo 0 || echo 1)" "got $rc, want $want"
	local first
	first=$(head -n 1 "$tmp/err")
	check "$name: message" "$(echo "$first" | grep -q -- "$pattern" && echo 0 || echo 1)" "'$first' lacks '$pattern'"
	check "$name: names the program" "$(echo "$first" | grep -q '^rpma-\(send\|recv\): ' && echo 0 || echo 1)" "'$first'"
}
