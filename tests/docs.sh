#!/bin/sh
# docs.sh - the manual page docs/displace.1: it lints clean with mandoc and
# groff (as man -l renders it), it has a section for every command, and it
# documents every option each command's --help defines; it and the Debian
# package carry the binary's version.
set -u
BIN=${DISPLACE_BIN:-bin}
D="$BIN/displace"
page="$(dirname "$0")/../docs/displace.1"
pass=0
fail=0
tmp=$(mktemp -d /tmp/displace-docs-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
# quiet WHAT CMD...: CMD exits 0 and prints nothing
quiet() {
	what=$1
	shift
	if "$@" >"$tmp/lint" 2>&1 && [ ! -s "$tmp/lint" ]; then ok; else
		bad "$what"
		sed 's/^/  | /' "$tmp/lint" >&2
	fi
}

# .ci/deps installs mandoc and groff-base: without them the lint fails, it is never skipped
for t in mandoc groff man; do
	command -v $t >/dev/null 2>&1 || bad "$t is not installed: run .ci/deps (as root) or apt-get install mandoc groff-base man-db"
done
# mandoc's warnings and errors (its style notes name pages this host may lack, such as netperf(1))
quiet "mandoc -Tlint -Wwarning $page" mandoc -Tlint -Wwarning "$page"
quiet "groff -ww -z $page" env LC_ALL=C.UTF-8 groff -ww -z -mandoc -Tutf8 "$page"
# as lintian checks a page, and as man -l shows it
man_warnings() {
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" >/dev/null
}
quiet "man --warnings -l $page" man_warnings

# the page as text: a heading starts in column 0
mandoc -Tascii "$page" | sed "s/.$(printf '\b')//g" >"$tmp/page"
# section NAME[|NAME...]: the text of those sections
section() {
	awk -v names="|$1|" '/^[A-Z]/ { keep = index(names, "|" $0 "|") > 0; next } keep' "$tmp/page"
}
for s in NAME SYNOPSIS DESCRIPTION FILES "EXIT STATUS" EXAMPLES "SEE ALSO"; do
	if grep -qx "$s" "$tmp/page"; then ok; else bad "the page has no $s section"; fi
done
for x in "perf-stat(1)" "netperf(1)" "rtla-osnoise(1)"; do
	if section "SEE ALSO" | grep -qF "$x"; then ok; else bad "SEE ALSO does not name $x"; fi
done

# a section per command, with every option its --help defines
commands=$("$D" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p')
if [ -n "$commands" ]; then ok; else bad "displace --help lists no commands"; fi
for c in $commands; do
	upper=$(echo "$c" | tr "[:lower:]" "[:upper:]")
	if grep -qx "$upper" "$tmp/page"; then ok; else bad "the page has no section $upper for '$c'"; continue; fi
	where=$upper
	case $c in measure | sweep | predict) where="$upper|MEASURING OPTIONS" ;; esac
	for o in $("$D" "$c" --help | grep -E '^  (-h, )?--[a-z]' | sed 's/   .*//' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		[ "$o" = --help ] && continue
		if section "$where" | grep -qE -- "$o([^a-z-]|\$)"; then ok; else bad "section $upper does not document $c $o"; fi
	done
done
# the workloads' options under WORKLOADS
for o in $("$D" workloads | grep -E '^  --[a-z]' | grep -oE -- '^  --[a-z][a-z0-9-]*' | sort -u); do
	if section WORKLOADS | grep -qE -- "$o([^a-z-]|\$)"; then ok; else bad "WORKLOADS does not document $o"; fi
done
for w in $("$BIN/put" --list); do
	if section WORKLOADS | grep -qE "^     $w( |\$)"; then ok; else bad "WORKLOADS does not list $w"; fi
done

# FILES shows the CSV headers README.md shows: the store's, measure's and predict's
# shellcheck source=tests/readme.sh
. "$(dirname "$0")/readme.sh"
# page_header N: the Nth literal block of the page's FILES section, joined
page_header() {
	awk -v n="$1" '/^\.Sh FILES/ { f = 1 } /^\.Sh EXIT/ { f = 0 }
		f && /^\.Bd -literal/ { k++; inb = (k == n); next }
		inb && /^\.Ed/ { exit } inb { printf "%s", $0 } END { print "" }' "$page"
}
k=0
for h in "### The calibration store" "### Results of measure and sweep" "### Results of predict"; do
	k=$((k + 1))
	if [ "$(page_header $k)" = "$(readme_header "$h" | tr -d ' ')" ] && [ -n "$(page_header $k)" ]; then ok; else
		bad "FILES: the header after README's '$h' differs: $(page_header $k) vs $(readme_header "$h")"
	fi
done

# the version in the page's footer, and the package's, is the binary's
v=$("$D" --version | sed 's/^displace //')
if grep -qx ".Os displace $v" "$page"; then ok; else bad "the page's .Os is not 'displace $v'"; fi
changelog="$(dirname "$0")/../debian/changelog"
if head -n 1 "$changelog" | grep -q "^displace ($v) "; then ok; else bad "debian/changelog's first entry is not version $v"; fi

echo "docs.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
