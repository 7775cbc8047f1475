#!/bin/sh
# bench.sh - the bench scripts (bench/, python3) without measuring anything:
# the statistics they share (bench/benchstats.py) pass their self-test
# against a printed t table and hand-computed cases, no script keeps a copy
# of them, and every script answers --help with its usage before it starts
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

if python3 "$bench/benchstats.py" --self-test >"$tmp/out" 2>&1; then ok; else
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

# --help: the usage (the script's docstring, "NAME - ..." naming bench/NAME)
# on stdout with exit 0, or, for the scripts with no --help, on stderr with
# exit 1: sys.exit(__doc__), how they all answer an option they do not know,
# before they start anything. A script that runs on is stopped after 10 s.
for s in $scripts; do
	timeout 10 python3 "$bench/$s" --help >"$tmp/out" 2>"$tmp/err"
	rc=$?
	case $rc in
	0) usage="$tmp/out" other="$tmp/err" ;;
	1) usage="$tmp/err" other="$tmp/out" ;;
	*)
		bad "$s --help exits $rc"
		sed 's/^/  | /' "$tmp/err" >&2
		continue
		;;
	esac
	if grep -qE "^(usage: )?${s%.py} - " "$usage" && grep -qF "bench/$s" "$usage" && [ ! -s "$other" ]; then ok; else
		bad "$s --help (exit $rc) does not print its usage alone"
		sed 's/^/  | /' "$tmp/out" "$tmp/err" | head -n 5 >&2
	fi
done

echo "bench.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
