# readme.sh - sourced by the shell tests: what README.md shows, to hold the
# outputs and docs/displace.1 to it.
readme="$(dirname "$0")/../README.md"
# readme_header HEADING: the CSV header README.md shows in the block after HEADING, joined
readme_header() {
	awk -v h="$1" 'index($0, h) == 1 { f = 1; next }
		f && /^```/ { if (inb) exit; inb = 1; next }
		inb { printf "%s", $0 } END { print "" }' "$readme"
}
