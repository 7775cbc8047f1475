#!/bin/sh
# cli.sh - end-to-end tests of the real binaries: help, bad input, short runs.
set -u
BIN=${DISPLACE_BIN:-bin}
D="$BIN/displace"
pass=0
fail=0
tmp=$(mktemp -d /tmp/displace-cli-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# expect STATUS DESCRIPTION -- CMD...: runs CMD, checks its exit status
expect() {
	want=$1; what=$2; shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok; else bad "$what: exit $got, wanted $want"; sed 's/^/  | /' "$tmp/err" >&2; fi
}
# grep_out FILE PATTERN DESCRIPTION
has() {
	if grep -q -- "$2" "$tmp/$1"; then ok; else bad "$3: no '$2' in $1"; sed 's/^/  | /' "$tmp/$1" >&2; fi
}
one_line() {
	if [ "$(grep -vc '^try ' "$tmp/err")" -eq 1 ]; then ok; else bad "$1: error is not one line"; cat "$tmp/err" >&2; fi
}

expect 0 "top-level help" -- "$D" --help
has out "Commands:" "top-level help"
expect 2 "no command" -- "$D"
expect 2 "unknown command" -- "$D" frobnicate
has err "unknown command 'frobnicate'" "unknown command"

expect 0 "clock help" -- "$D" clock --help
has out "min step" "clock help"
expect 0 "clock runs" -- "$D" clock --reads 1000
has out "CLOCK_MONOTONIC_RAW" "clock table"
expect 0 "clock json" -- "$D" clock --reads 1000 --json
has out '"min_step_ns"' "clock json"
expect 2 "clock bad option" -- "$D" clock --bogus
one_line "clock bad option"
expect 2 "clock bad reads" -- "$D" clock --reads 1x
one_line "clock bad reads"

echo "cli.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
