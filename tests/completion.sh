#!/bin/bash
# completion.sh - the bash completion (completion/displace.bash) against the
# binary it completes: sourced as bash-completion would, _displace is called
# with COMP_WORDS and COMP_CWORD, and COMPREPLY is checked.
set -u
BIN=${DISPLACE_BIN:-bin}
src=$(cd "$(dirname "$0")/.." && pwd)
pass=0
fail=0
tmp=$(mktemp -d /tmp/displace-completion-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
PATH="$(cd "$BIN" && pwd):$PATH"

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# shellcheck source=completion/displace.bash
. "$src/completion/displace.bash"

# run_case WHAT WORD... :: EXPECTED...: completes the last WORD after the others;
# sets what, words, expected, and reply (the completions, one per line, sorted)
run_case() {
	what=$1
	shift
	words=()
	while [ "$1" != :: ]; do
		words+=("$1")
		shift
	done
	shift
	expected=("$@")
	COMP_WORDS=("${words[@]}")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_displace
	reply=$(printf '%s\n' "${COMPREPLY[@]}" | sort)
}
# offers WHAT WORD... :: EXPECTED...: every EXPECTED is among the completions
offers() {
	run_case "$@"
	for e in "${expected[@]}"; do
		if grep -qxF -- "$e" <<<"$reply"; then ok; else bad "$what: '${words[*]}' does not offer '$e' (got: ${reply//$'\n'/ })"; fi
	done
}
# offers_exactly WHAT WORD... :: EXPECTED...: the completions are EXPECTED and nothing else
offers_exactly() {
	run_case "$@"
	want=$(printf '%s\n' "${expected[@]}" | sed '/^$/d' | sort)
	if [ "$reply" = "$want" ]; then ok; else bad "$what: '${words[*]}' offers '${reply//$'\n'/ }', wanted '${want//$'\n'/ }'"; fi
}

if complete -p displace 2>/dev/null | grep -q -- '-F _displace'; then ok; else bad "'complete -F _displace displace' is not registered"; fi

# the commands, as 'displace --help' lists them
mapfile -t commands < <(displace --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p')
if [ "${#commands[@]}" -ge 9 ]; then ok; else bad "displace --help lists ${#commands[@]} commands"; fi
offers_exactly "commands" displace "" :: "${commands[@]}"
offers_exactly "a command's prefix" displace me :: measure
offers_exactly "global options" displace -- :: --help --version

# every option each command's --help defines is offered, and nothing it does not define
for c in "${commands[@]}"; do
	mapfile -t want < <(displace "$c" --help | grep -E '^  (-h, )?--[a-z]' | sed 's/   .*//' |
		grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
	[ "$c" = workloads ] && continue
	if [ "${#want[@]}" -ge 2 ]; then ok; else bad "$c --help defines ${#want[@]} options"; fi
	offers_exactly "$c options" displace "$c" -- :: "${want[@]}"
done

# the workloads, as put's own table has them, and their options after the name
mapfile -t workloads < <("$BIN/put" --list)
if [ "${#workloads[@]}" -ge 7 ]; then ok; else bad "put --list lists ${#workloads[@]} workloads"; fi
for c in measure sweep predict; do
	offers_exactly "$c workloads" displace "$c" "" :: "${workloads[@]}"
done
offers "tcp options" displace measure tcp --r :: --reply --reps --run-time
offers "tcp pipelined options" displace sweep tcp --sizes 1k --w :: --window
offers_exactly "spin options" displace measure spin --u :: --us
offers_exactly "no workload options before the workload" displace measure --u ::
# the workload follows options and their values, in both spellings
offers "after --run-time 1s" displace measure --run-time 1s "" :: spin udp
offers "after --run-time=1s" displace measure --run-time = 1s "" :: spin udp
offers "after --json" displace measure --json "" :: spin udp
offers_exactly "no workload twice" displace measure spin "" ::

# values: CPUs from the host, the closed sets, nothing for a duration
mapfile -t cpus < <(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); for (c = r[1]; c <= r[n]; c++) print c } }' /sys/devices/system/cpu/online)
offers_exactly "--cpu" displace measure tcp --cpu "" :: "${cpus[@]}"
offers_exactly "--peer-cpu" displace measure tcp --peer-cpu "" :: "${cpus[@]}" same
offers_exactly "--cpus" displace calibrate --cpus "" :: "${cpus[@]}" all
if [ "${#cpus[@]}" -ge 2 ]; then
	mapfile -t more < <(printf "${cpus[0]},%s\n" "${cpus[@]:1}")
	offers_exactly "--cpus after a comma" displace measure spin --cpus "${cpus[0]}," :: "${more[@]}"
fi
# the closed sets are the values the binary's usage error lists for a bad one: "(a, b or c)"
listed() {
	displace "$@" x 2>&1 | sed -n '1s/.*(\(.*\))$/\1/p' | sed 's/, / /g; s/ or / /' | tr ' ' '\n'
}
mapfile -t values < <(listed measure --fluid-sched)
offers_exactly "--fluid-sched" displace measure --fluid-sched "" :: "${values[@]}"
offers_exactly "--fluid-sched=" displace calibrate --fluid-sched = "" :: "${values[@]}"
mapfile -t values < <(listed plan --method)
offers_exactly "plan --method" displace plan --method "" :: "${values[@]}"
mapfile -t values < <(listed measure --estimator)
offers_exactly "--estimator" displace sweep tcp --estimator "" :: "${values[@]}"
mapfile -t values < <(listed measure --stopping)
offers_exactly "--stopping" displace measure spin --stopping "" :: "${values[@]}"
mapfile -t values < <(listed sweep --precision-of)
offers_exactly "--precision-of" displace sweep tcp --precision-of "" :: "${values[@]}"
mapfile -t values < <(listed measure --short-run)
offers_exactly "--short-run" displace measure spin --short-run "" :: "${values[@]}"
offers_exactly "a duration" displace measure spin --run-time "" ::
# files: --csv, and ticks's CSV file
touch "$tmp/ticks.csv" "$tmp/other.txt"
offers_exactly "--csv" displace sweep tcp --csv "$tmp/o" :: "$tmp/other.txt"
offers_exactly "ticks FILE.csv" displace ticks "$tmp/" :: "$tmp/ticks.csv"
# exec's command after --, looked up in PATH
offers "exec's command" displace measure exec -- tru :: true

echo "completion.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
