#!/bin/sh
# bench.sh - the bench scripts (bench/, python3) without measuring anything:
# the statistics they share (bench/benchstats.py) pass their self-test
# against a printed t table and hand-computed cases, no script keeps a copy
# of them, the C programs they build compile cleanly, every script answers
# --help with its usage on stdout and exit 0, and an option it does not know
# with its usage on stderr and exit 1 or 2, in both cases before it starts
# any process.
set -u
bench="$(dirname "$0")/../bench"
pass=0
fail=0
tmp=$(mktemp -d /tmp/displace-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# importing benchstats would leave bench/__pycache__ in the tree
export PYTHONDONTWRITEBYTECODE=1

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# .ci/deps installs python3: without it these fail, they are never skipped
command -v python3 >/dev/null 2>&1 || bad "python3 is not installed: run .ci/deps (as root) or apt-get install python3"
# the interpreter itself, found once: a python3 on PATH may be a wrapper
# (pyenv's shim takes 0.8 s a start, which the 45 runs below would pay)
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || py=python3
[ -n "$py" ] || py=python3

if "$py" "$bench/benchstats.py" --self-test >"$tmp/out" 2>&1; then ok; else
	bad "benchstats.py --self-test"
	sed 's/^/  | /' "$tmp/out" >&2
fi

# the scripts: every file of bench/ that python3 runs
scripts=$(for f in "$bench"/*; do
	[ -f "$f" ] && head -n 1 "$f" | grep -q '^#!.*python3' && basename "$f"
done)
if [ "$(echo "$scripts" | wc -w)" -ge 10 ]; then ok; else bad "bench/ has $(echo "$scripts" | wc -w) python3 scripts"; fi

# the shared helpers have one home: no script defines its own
for s in $scripts; do
	[ "$s" = benchstats.py ] && continue
	if grep -nE '^(def (t975|wilson|mean_ci|acf|corr)\(|T975 = )' "$bench/$s" >"$tmp/copy"; then
		bad "$s defines its own copy of a benchstats helper (import it): $(head -n 1 "$tmp/copy")"
	else ok; fi
done

# the C programs the benches build (cc, as they do) compile without a warning
for c in "$bench"/*.c; do
	if ${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -fsyntax-only -I "$bench/.." "$c" 2>"$tmp/err"; then ok; else
		bad "bench/$(basename "$c") does not compile cleanly"
		sed 's/^/  | /' "$tmp/err" | head -n 5 >&2
	fi
done

# The scripts below find displace, fluid and put through DISPLACE_BIN (or
# DISPLACE): point them at stand-ins that only leave a mark, so that a
# script that runs on starts no measurement and is caught.
mkdir "$tmp/bin"
for b in displace fluid put; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/ran"\nexit 1\n' "$b" "$tmp" >"$tmp/bin/$b"
	chmod +x "$tmp/bin/$b"
done
export DISPLACE_BIN="$tmp/bin" DISPLACE="$tmp/bin/displace"

# usage FILE: FILE holds the script's usage (its docstring, "NAME - ..."
# naming bench/NAME; argparse puts "usage: " before it)
usage() { grep -qE "^(usage: )?${s%.py} - " "$1" && grep -qF "bench/$s" "$1"; }
show() { sed 's/^/  | /' "$tmp/ran" "$tmp/out" "$tmp/err" 2>/dev/null | head -n 5 >&2; }

# --help (and an unknown option) are answered before anything starts; a
# script that runs on is stopped after 10 s
for s in $scripts; do
	rm -f "$tmp/ran"
	timeout 10 "$py" "$bench/$s" --help >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 0 ] && usage "$tmp/out" && [ ! -s "$tmp/err" ] && [ ! -e "$tmp/ran" ]; then ok; else
		bad "$s --help (exit $rc) does not print its usage alone on stdout with exit 0"
		show
	fi

	rm -f "$tmp/ran"
	timeout 10 "$py" "$bench/$s" --no-such-option >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if { [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ]; } && usage "$tmp/err" && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/ran" ]; then
		ok
	else
		bad "$s --no-such-option (exit $rc) does not stop at its usage on stderr with exit 1 or 2"
		show
	fi
done

echo "bench.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
