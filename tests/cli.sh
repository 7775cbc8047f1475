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

# --- serve: the peer of the socket and RPC workloads ---
expect 0 "serve help" -- "$D" serve --help
has out "serve ready tcp=" "serve help"
has out "--listen ADDR" "serve help"
expect 2 "serve bad listen" -- "$D" serve --listen nowhere:80
one_line "serve bad listen"
has err "invalid value 'nowhere:80' for --listen" "serve bad listen"
expect 2 "serve listen port leaves no room for rpc" -- "$D" serve --listen 127.0.0.1:65535
expect 2 "serve bad option" -- "$D" serve --bogus
one_line "serve bad option"
expect 0 "put serve help" -- "$BIN/put" serve --help
has out "serve ready tcp=" "put serve help"
expect 2 "put serve bad listen" -- "$BIN/put" serve --listen '[::1'

# a short run: displace serve on free ports, a tcp client, then SIGTERM
"$D" serve --listen 127.0.0.1:0 --unix none </dev/null >"$tmp/serve.out" 2>"$tmp/serve.err" &
spid=$!
i=0
while [ $i -lt 50 ] && ! grep -qs '^serve ready' "$tmp/serve.out"; do sleep 0.1; i=$((i + 1)); done
peer=$(sed -n 's/^serve ready tcp=\([^ ]*\) .*/\1/p' "$tmp/serve.out")
if [ -n "$peer" ]; then ok; else bad "displace serve: no ready line"; fi
expect 0 "put tcp against displace serve" -- "$BIN/put" --ops 10 tcp --size 1k --peer "$peer"
has out "sent_bytes=10000" "put tcp against displace serve"
kill -TERM "$spid"
wait "$spid"
st=$?
if [ "$st" -eq 0 ]; then ok; else bad "displace serve after SIGTERM: exit $st"; fi
has serve.out "serve stop reason=signal .*messages=10 " "displace serve stop line"
expect 3 "put tcp with the peer gone" -- "$BIN/put" --ops 1 tcp --peer "$peer"
has err "cannot connect to $peer: Connection refused" "put tcp with the peer gone"

echo "cli.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
