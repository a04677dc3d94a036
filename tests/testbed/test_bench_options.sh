#!/bin/bash
# scripts/bench's --rows, --methods and --softirq-nice (no VM, no RDMA): a
# list word it does not know, or a nice value out of range, is refused
# before anything runs, --help names them, and the
# report of a partial run (tests/testbed/fixtures/bench-partial.raw: a real
# `--rows stream --methods "flush gpspm" --size 16M --batches 64K` run in
# the Debian 13 guest) says so, leaves what was not asked for "not
# measured" and still sets flush against gpspm.
#   test_bench_options.sh SOURCE
set -u
SRC="$1"
. "$(dirname "$0")/../host_check.sh"

# refused KIND ARGS...: scripts/bench ARGS exits 2 naming --KIND
refused() {
	local kind=$1 rc=0
	shift
	"$SRC/scripts/bench" "$@" >"$tmp/out" 2>&1 || rc=$?
	check "bench $* is refused" "$([ "$rc" = 2 ] && echo 0 || echo 1)" "exit $rc"
	check "bench $* names --$kind" "$(ok grep -q "bad --$kind" "$tmp/out")" "$(cat "$tmp/out")"
}
refused rows --rows "stream latencies"
refused methods --methods "flush rdma"
refused softirq-nice --softirq-nice -30
refused softirq-nice --softirq-nice high
"$SRC/scripts/bench" --help >"$tmp/help"
for opt in "--rows LIST" "--methods LIST" "--softirq-nice N"; do
	check "--help names $opt" "$(ok grep -q -- "$opt" "$tmp/help")" "$(cat "$tmp/help")"
done

mkdir -p "$tmp/run"
cp "$(dirname "$0")/fixtures/bench-partial.raw" "$tmp/run/raw.txt"
python3 "$SRC/scripts/benchmark/report" "$tmp/run" >"$tmp/report.out" 2>&1
check "the report is written" "$(ok test -s "$tmp/run/report.md")" "$(cat "$tmp/report.out")"
md=$tmp/run/report.md
check "a partial run says so" \
	"$(ok grep -q "A partial run.*--rows 'stream' --methods 'flush gpspm'" "$md")" "$(grep -n partial "$md")"
check "rows not asked for are not measured" \
	"$(ok grep -q '^| gpspm, devdax | default | not measured' "$md")" "$(grep -n 'gpspm, devdax | default' "$md")"
check "methods not asked for are not measured" \
	"$(ok grep -q '^| apm, devdax | 64K | not measured' "$md")" "$(grep -n 'apm, devdax | 64K' "$md")"
# the fixture's veth streams: flush 27.02 MB/s, gpspm 32.69 -> 0.83;
# receiver 0.02 s against 0.08 s for 16 MiB -> 0.25
check "flush against gpspm: stream" \
	"$(ok grep -q '^| stream, 64K batches (MB/s) | 27.0 | 32.7 | 0.83 | >= 0.95 | \*\*not met\*\* |' "$md")" \
	"$(grep -n 'stream, 64K' "$md")"
check "flush against gpspm: receiver CPU" \
	"$(ok grep -q '^| receiver CPU per GiB shipped, 64K batches (s) | 1.280 | 5.120 | 0.25 |' "$md")" \
	"$(grep -n 'receiver CPU per GiB' "$md")"
summary
