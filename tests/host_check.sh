# shellcheck shell=bash
# The harness of the host tests written in bash (tests/cli, tests/testbed):
# a scratch folder removed on exit, counted checks, the closing line.
# Source it; it sets passed, failed and tmp.
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check NAME RESULT DETAIL: RESULT 0 passes; else prints NAME and DETAIL.
check() {
	if [ "$2" = 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $1: $3"
	fi
}

# ok COMMAND...: prints 0 when COMMAND succeeds, else 1 (for check).
ok() { "$@" && echo 0 || echo 1; }

# summary: the closing line, and the exit status.
summary() {
	printf '%s passed, %s failed\n' "$passed" "$failed"
	[ "$failed" = 0 ]
}
