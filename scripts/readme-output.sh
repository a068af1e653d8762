#!/usr/bin/env bash
# The README's "Real output": a session against `ghcommitter fake-github`,
# from the lines that set it up, run for real.
#
#   scripts/readme-output.sh [BIN]            print the session
#   scripts/readme-output.sh --check [BIN]    fail when README.md's block differs
#   scripts/readme-output.sh --update [BIN]   rewrite README.md's block
#
# BIN is the ghcommitter binary (default bin/ghcommitter). The block sits
# between <!-- real-output:begin --> and <!-- real-output:end --> in
# README.md. --check compares both sides with ports and SHAs normalised
# (commit SHAs hold the time they were made), so the README can show a real
# run and still never drift from what the commands print.
#
# With README_BLOCK=demo-output, the block is the demo's sample
# (<!-- demo-output:begin -->): what `ghcommitter demo` prints, compared
# with numbers normalised too (attempts, times and costs vary by run).
set -euo pipefail
mode=print
case "${1:-}" in
--check | --update) mode=${1#--}; shift ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/bin/ghcommitter}
[[ $bin == /* ]] || bin=$PWD/$bin
[[ -x $bin ]] || { echo "readme-output: no binary at $bin (make build)" >&2; exit 2; }

session() {
	local work pid
	work=$(mktemp -d)
	# The session's commands say ghcommitter: put it on PATH.
	mkdir "$work/bin" && ln -s "$bin" "$work/bin/ghcommitter"
	(
		cd "$work"
		export PATH="$work/bin:$PATH"
		unset GH_TOKEN GITHUB_TOKEN GH_ENTERPRISE_TOKEN GITHUB_ENTERPRISE_TOKEN GH_REPO GH_HOST GITHUB_API_URL GITHUB_REPOSITORY GITHUB_OUTPUT GITHUB_STEP_SUMMARY
		# show CMD: print it as typed, then run it, stdout and stderr as a
		# terminal would interleave them.
		set +e # a command may fail: its exit is part of the session
		show() {
			printf '$ %s\n' "$1"
			eval "$1" >"$work/out" 2>&1 # in this shell: an export holds
			[[ -s "$work/out" ]] && cat "$work/out" && echo
		}
		printf '$ %s\n' 'ghcommitter fake-github --listen 127.0.0.1:0 --repo acme/mono > fake-url &'
		ghcommitter fake-github --listen 127.0.0.1:0 --repo acme/mono >fake-url 2>/dev/null &
		pid=$!
		trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true' EXIT
		for _ in $(seq 100); do [[ -s fake-url ]] && break; sleep 0.05; done
		show 'export GH_TOKEN=test GITHUB_API_URL=$(cat fake-url)  # any token; the API the runner would name'
		show 'mkdir -p config && echo "replicas: 2" > config/app.yaml && echo "pool: 5" > config/db.yaml'
		show 'ghcommitter commit -R acme/mono -m "Update config" config/app.yaml config/db.yaml'
		show 'ghcommitter commit -R acme/mono -m "Update config" config/app.yaml config/db.yaml'
		show 'ghcommitter commit -R acme/mono -m "Count" --edit '"'"'counter.txt=read n; echo $((${n:-0}+1))'"'"' --json'
		show 'ghcommitter commit -R acme/mono -m x --dry-run --delete config/db.yaml --add config/app.yaml=config/db.yaml --add new.txt=config/app.yaml'
		show 'ghcommitter commit -R acme/mono -m x --expect-absent config/app.yaml --add y=config/app.yaml; echo "exit $?"'
	) | sed -e '$d'
	rm -rf "$work"
}

normalise() {
	sed -E -e 's/127\.0\.0\.1:[0-9]+/127.0.0.1:PORT/g' -e 's/\b[0-9a-f]{40}\b/SHA/g' -e 's/\b[0-9a-f]{12}\b/SHORT/g'
}

name=${README_BLOCK:-real-output}
if [[ $name == demo-output ]]; then
	# The demo's own output; its numbers vary by run, and the columns'
	# widths with them.
	session() { "$bin" demo; }
	normalise() {
		sed -E -e 's/127\.0\.0\.1:[0-9]+/127.0.0.1:PORT/g' -e 's/\b[0-9a-f]{12}\b/SHORT/g' \
			-e 's/[0-9]+(\.[0-9]+)?/N/g' -e 's/\b(attempt|race)s\b/\1/g' -e 's/ +/ /g'
	}
fi

# block prints README.md's block, without its fences.
block() {
	awk -v n="$name" '$0 == "<!-- " n ":end -->"{p=0} p{print} $0 == "<!-- " n ":begin -->"{p=1}' "$root/README.md" | sed -e '1{/^```/d}' -e '${/^```$/d}'
}

case $mode in
print) session ;;
check)
	got=$(session | normalise)
	want=$(block | normalise)
	if [[ -z $want ]]; then
		echo "readme-output: README.md has no <!-- $name:begin --> block" >&2
		exit 1
	fi
	if [[ $got != "$want" ]]; then
		echo "readme-output: README.md's $name block differs from what the commands print (normalised):" >&2
		diff <(echo "$want") <(echo "$got") >&2 || true
		echo "run: make build && README_BLOCK=$name scripts/readme-output.sh --update" >&2
		exit 1
	fi
	echo "readme-output: README.md's $name block matches a fresh run"
	;;
update)
	out=$(session)
	tmp=$(mktemp)
	OUT=$out awk -v n="$name" '
		$0 == "<!-- " n ":begin -->" {print; print "```console"; print ENVIRON["OUT"]; print "```"; skip=1; next}
		$0 == "<!-- " n ":end -->" {skip=0}
		!skip {print}' "$root/README.md" >"$tmp"
	mv "$tmp" "$root/README.md"
	;;
esac
