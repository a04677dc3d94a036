#!/bin/bash
# Both programs' --help and --usage, and 105 bad command lines (55, 50),
# byte for byte as tests/cli/cli_lines.golden holds them: what each
# prints (stdout and stderr) and its exit status. Their options come from
# tables of rows (src/lib/cli/option.h); a change to a row, an engine or a
# message shows here line by line. After a deliberate change:
#   tests/cli/test_cli_lines.sh BUILD --update
# and read the diff before committing it.
set -u
BUILD=$(cd "$1" && pwd)
GOLDEN="$(cd "$(dirname "$0")" && pwd)/cli_lines.golden"
R="$BUILD/src/rpma-recv/rpma-recv"
S="$BUILD/src/rpma-send/rpma-send"
unset ARGP_HELP_FMT
out=$(mktemp)
work=$(mktemp -d) # no file a case names exists here
trap 'rm -rf "$out" "$work"' EXIT
cd "$work" || exit 1

run() { # PROG ARGS...
	local p=$1
	shift
	{
		printf '=== %s' "$(basename "$p")"
		printf ' [%s]' "$@"
		echo
		"$p" "$@" </dev/null 2>&1
		echo "rc $?"
	} >>"$out"
}
r() { run "$R" "$@"; }
s() { run "$S" "$@"; }

for p in "$R" "$S"; do
	run "$p" --help
	run "$p" --usage
	run "$p" '-?'
	run "$p" --bogus
	run "$p" -Z
	run "$p" --help=x
done
# rpma-recv: 55 bad command lines
r --credits 0 p; r --credits x p; r --credits 65 p; r --credits '' p
r --log foo; r --log =x; r --log ''; r --config ''; r --check-config=
r --export '' p; r --info; r --info --export x p; r --export x
r --export x p --log a=b; r p q; r --check-config a b
r --check-config=a --config b; r --check-config --info p
r --staging-slot 1 p; r --staging-slot 2G p; r --staging-slot lots p
r --peer-timeout 0 p; r --peer-timeout 5h p; r --peer-timeout x p
r --max-senders 0 p; r --max-senders 999999 p; r --listen '' p
r --listen 'a:b:c:99999' p; r --auth-key '' p; r --allow 300.1.1.1 p
r --allow x/99 p; r --create x p; r --rotate-at 0 p
r --rotate-at 101 p; r --rotate-at x p; r --archive '' p
r --archive-keep x p; r --archive-max x p; r --metrics-interval 0 p
r --workers x p; r --workers 100000 p; r --once --once --bogus; r -c
r -l; r --log a=b,create=x; r --log a=b,bogus=1; r --log 'a b=p'
r -q -v --credits=-1 p; r --busy-poll=yes p; r --metrics-file '' p
r --reload 0; r --reload x; r --reload 1 --config c; r --reload 1 p
r --reload 2147483647
# rpma-send: 50 bad command lines
s; s --batch 0 h; s --batch x h; s --batch 9G h; s --depth 0 h
s --depth x h; s --flush-interval x h; s --flush-interval -1 h
s --method x h; s --method '' h; s --progress=x h; s --quorum 0 h
s --quorum x h,i; s --retry x h; s --retry -1 h; s --rotate-wait x h
s --stop-wait x h; s --from x --fetch h; s --from 5 h; s --truncate=x h
s --verify=x f h; s --verify f; s --verify; s --fetch; s --fetch h a b
s h a b; s --resume h; s --resume --fetch h; s --send h; s -f h
s --fetch --truncate h; s --quorum 2 h; s --quorum 3 h,i
s --truncate --resume h f; s --auth-key '' h; s --busy-poll=x h; s ''
s 'h:99999'; s 'h/.bad'; s 'h/' f; s 'h,,i'; s '[::1' f
s --depth 999999 h; s --batch 1G1 h; s --rotate-wait 1 h f
s --stop-wait 1 h f; s --fetch --from end --resume h f
s --verify=read --send f h; s --timeout 0 h; s --timeout 11m h

if [ "${2:-}" = --update ]; then
	cp "$out" "$GOLDEN"
	echo "test_cli_lines: $GOLDEN written ($(grep -c '^===' "$GOLDEN") cases)"
	exit 0
fi
if ! diff -u "$GOLDEN" "$out"; then
	echo "FAIL: the command lines above print otherwise than $GOLDEN"
	exit 1
fi
echo "PASS: $(grep -c '^===' "$out") command lines as $GOLDEN holds them"
