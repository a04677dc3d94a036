#!/bin/bash
# The docs say what the programs do: every option a man page documents is
# in the program's --help (test_cli.sh checks the other way round), every
# example command line of the man pages and the README parses, every exit
# status of a man page is in --help and the README, and the
# example configurations pass --check-config.
#   test_docs.sh BUILD SOURCE
set -u
BUILD=$(cd "$1" && pwd)
SRC="$2"
. "$(dirname "$0")/../host_check.sh"
RECV="$BUILD/src/rpma-recv/rpma-recv"

# --- the options each man page documents (its .TP headings) are in --help
for prog in rpma-send rpma-recv; do
	"$BUILD/src/$prog/$prog" --help >"$tmp/help" 2>&1
	documented=$(awk '/^\.TP/ { getline; print }' "$SRC/man/$prog.1" |
		sed 's/\\f[BIRP]//g; s/\\-/-/g' | grep -o -- '--[a-z][a-z-]*' | sort -u)
	check "$prog: the man page documents options" "$(ok [ "$(wc -w <<<"$documented")" -gt 10 ])" "only: $documented"
	for opt in $documented; do
		check "$prog $opt of the man page in --help" "$(ok grep -q -- "$opt\b" "$tmp/help")" "missing from $prog --help"
	done
done

# --- every exit status of a man page's EXIT STATUS (its .B N items) is in
# the Exit status paragraph of --help and in the README's exit codes
for prog in rpma-send rpma-recv; do
	"$BUILD/src/$prog/$prog" --help 2>&1 | sed -n '/^Exit status:/,$p' | tr '\n' ' ' >"$tmp/exits"
	case $prog in
	rpma-send) readme_exits=$(sed -n '/^Exit codes/,/^$/p' "$SRC/README.md") ;;
	rpma-recv) readme_exits=$(sed -n '/^rpma-recv exits/,/^$/p' "$SRC/README.md") ;;
	esac
	for code in $(sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$SRC/man/$prog.1" | awk '/^\.B [0-9]+$/ { print $2 }'); do
		check "$prog: exit $code of the man page in --help" "$(ok grep -qw -- "$code" "$tmp/exits")" "$(cat "$tmp/exits")"
		check "$prog: exit $code of the man page in the README" "$(ok grep -qw -- "$code" <<<"$readme_exits")" "$readme_exits"
	done
done

# --- examples: a command line parses when argp does not refuse it (argp's
# refusals, and only they, end with its "Try ... --help" line). The paths
# they name are moved into the scratch folder (and a pool they create is
# made 8M, not 1G: PMDK allocates it whole); a program that starts to
# wait or serve is stopped after 5 s (it got past parsing).
runs_parsed() { # WHERE COMMAND-LINE
	local where=$1 line=$2 prog
	line=${line##*|}
	line=$(sed 's/^ *//; s/ *$//' <<<"$line")
	line=$(sed "s#/mnt/pmem/#$tmp/#g; s#/dev/dax0.0#$tmp/dax0.0#g; s#/etc/rpma-ship/#$tmp/#g; s#/var/lib/rpma-ship/#$tmp/#g; s#--create 1G#--create 8M#" <<<"$line")
	read -r prog _ <<<"$line"
	case "$prog" in rpma-send | rpma-recv) ;; *) return ;; esac
	(cd "$tmp/cwd" && eval "timeout -k 2 5 $BUILD/src/$prog/$line" </dev/null >/dev/null 2>"$tmp/err")
	check "$where: '$line' parses" "$(grep -q "^Try \`$prog --help'" "$tmp/err" && echo 1 || echo 0)" "$(head -n 1 "$tmp/err")"
	examples=$((examples + 1))
}
mkdir -p "$tmp/cwd"
head -c 4096 /dev/urandom >"$tmp/cwd/backup.tar"
cp "$tmp/cwd/backup.tar" "$tmp/cwd/audit.log"
examples=0
while IFS= read -r line; do
	runs_parsed "rpma-send(1) EXAMPLES" "$line"
done < <(sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$SRC/man/rpma-send.1" | awk '/^\.nf/ { on = 1; next } /^\.fi/ { on = 0 } on' | sed 's/\\-/-/g; s/\\e/\\/g')
check "rpma-send(1) has examples" "$(ok [ "$examples" -ge 5 ])" "found $examples"
examples=0
while IFS= read -r line; do
	runs_parsed "README" "${line%%  #*}"
done < <(grep -E '^    (.*\| *)?rpma-(send|recv) ' "$SRC/README.md")
check "the README has examples" "$(ok [ "$examples" -ge 8 ])" "found $examples"

# --- example configurations, their paths moved here as above
pmempool create log --size=8M "$tmp/app.pool"
mkdir -p "$tmp/app" # the examples' archive
pmempool create log --size=8M "$tmp/dax0.0"
head -c 32 /dev/urandom >"$tmp/audit.key"
chmod 600 "$tmp/audit.key"
check_example_config() { # NAME TEXT
	sed "s#/mnt/pmem/#$tmp/#g; s#/dev/dax0.0#$tmp/dax0.0#g; s#/etc/rpma-ship/#$tmp/#g; s#/var/lib/rpma-ship/#$tmp/#g" <<<"$2" >"$tmp/example.conf"
	"$RECV" --check-config "$tmp/example.conf" >"$tmp/out" 2>&1
	check "$1 passes --check-config" $? "$(cat "$tmp/out")"
}
check_example_config "dist/rpma-recv.conf" "$(cat "$SRC/dist/rpma-recv.conf")"
check_example_config "rpma-recv.conf(5) EXAMPLE" \
	"$(sed -n '/^\.SH EXAMPLE$/,/^\.EE/p' "$SRC/man/rpma-recv.conf.5" | sed '1,2d; $d; s/\\-/-/g')"

summary
