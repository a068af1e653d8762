#!/usr/bin/env bash
# Tests the action's download path (scripts/action-install.sh) against a local
# release directory laid out as a GitHub release made by .goreleaser.yaml is
# (ghcommitter_<version>_<os>_<arch>.tar.gz / .zip and checksums.txt), read
# through file:// URLs: no network. Checks that a good archive installs, and
# that a tampered archive, a missing checksum line and a missing checksums.txt
# are refused with nothing installed. Run by TestActionDownload (internal/cli)
# and so by make test.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
install="$here/action-install.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi
}

# release TAG: a release directory for TAG holding one archive per platform,
# each with a stand-in binary that prints which release and platform it is.
release() {
	local tag=$1 ver=${1#v} dir="$work/releases/$1" os arch stage
	mkdir -p "$dir"
	for os in linux darwin windows; do
		for arch in amd64 arm64; do
			stage="$work/stage/${os}_${arch}"
			mkdir -p "$stage"
			if [[ $os == windows ]]; then
				printf '#!/bin/sh\necho "ghcommitter %s %s/%s"\n' "$tag" "$os" "$arch" >"$stage/ghcommitter.exe"
				chmod +x "$stage/ghcommitter.exe"
				if command -v zip >/dev/null 2>&1; then
					(cd "$stage" && zip -q "$dir/ghcommitter_${ver}_${os}_${arch}.zip" ghcommitter.exe LICENSE 2>/dev/null || zip -q "$dir/ghcommitter_${ver}_${os}_${arch}.zip" ghcommitter.exe)
				fi
			else
				printf '#!/bin/sh\necho "ghcommitter %s %s/%s"\n' "$tag" "$os" "$arch" >"$stage/ghcommitter"
				chmod +x "$stage/ghcommitter"
				echo "license" >"$stage/LICENSE"
				tar -czf "$dir/ghcommitter_${ver}_${os}_${arch}.tar.gz" -C "$stage" ghcommitter LICENSE
			fi
		done
	done
	(cd "$dir" && sha256 ghcommitter_* >checksums.txt)
}

# install TAG DEST [RUNNER_OS RUNNER_ARCH]: run the download path; its
# stdout (the binary's path) goes to $work/out, stderr to $work/err.
install() {
	GHCOMMITTER_RELEASES_URL="file://$work/releases" RUNNER_OS=${3:-Linux} RUNNER_ARCH=${4:-X64} \
		RUNNER_TEMP="$work" bash "$install" download "$1" "$2" >"$work/out" 2>"$work/err"
}

# 1. The mode: release tags download; branches and SHAs build; a major or
# minor tag downloads the release its tree names in .github/action-version
# (the release workflow moves v1 and v1.2 to a release's commit), else builds.
for ref in v1.2.3 v0.10.0 v2.0.0-rc.1; do
	[[ $(bash "$install" mode "$ref") == "download $ref" ]] || fail "mode $ref: want download $ref"
done
for ref in main v1 v1.2 0123456789abcdef0123456789abcdef01234567 'v1.2.3;rm' ''; do
	[[ $(bash "$install" mode "$ref") == source ]] || fail "mode '$ref': want source"
done
# action DIR VERSION: an action checkout whose tree names release VERSION.
action() {
	mkdir -p "$1/.github" && printf '%s\n' "$2" >"$1/.github/action-version"
}
action "$work/act-123" v1.2.3
action "$work/act-rc" v1.3.0-rc.1
action "$work/act-junk" 'v1.2.3;rm -rf /'
action "$work/act-unreleased" unreleased
for c in "v1 act-123 download v1.2.3" "v1.2 act-123 download v1.2.3" "v1.2.3 act-rc download v1.2.3"; do
	set -- $c
	[[ $(bash "$install" mode "$1" "$work/$2" 2>/dev/null) == "$3 $4" ]] || fail "mode $1 in $2: want $3 $4, got $(bash "$install" mode "$1" "$work/$2" 2>&1)"
done
for c in "v2 act-123" "v1.3 act-123" "v1 act-rc" "v1 act-junk" "v1 act-unreleased" "v1 act-none" "main act-123" "0123456789abcdef0123456789abcdef01234567 act-123"; do
	set -- $c
	[[ $(bash "$install" mode "$1" "$work/$2" 2>/dev/null) == source ]] || fail "mode $1 in $2: want source"
done
bash "$install" mode v2 "$work/act-123" 2>&1 >/dev/null | grep -q "building from source" || fail "mode v2 in act-123: no note on stderr"

# 1b. Which moving tags a release moves: the highest stable release of each
# line only, never a prerelease; and the release must name itself.
repo="$work/tags"
git init -q "$repo" && git -C "$repo" -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m x
for t in v1.2.3 v1.3.0 v1.10.1 v2.0.0-rc.1; do git -C "$repo" tag "$t"; done
aliases() { (cd "$repo" && bash "$here/release-aliases.sh" "$1" | tr '\n' ' '); }
for c in "v1.10.2:v1 v1.10 " "v1.2.4:v1.2 " "v1.9.0:v1.9 " "v2.0.0-rc.2:" "v2.0.0:v2 v2.0 "; do
	[[ "$(aliases "${c%%:*}")" == "${c#*:}" ]] || fail "release ${c%%:*} moves '$(aliases "${c%%:*}")', want '${c#*:}'"
done
mkdir -p "$repo/.github" && echo v1.10.2 >"$repo/.github/action-version"
(cd "$repo" && bash "$here/release-aliases.sh" check v1.10.2) || fail "check v1.10.2 refused a tree naming v1.10.2"
(cd "$repo" && bash "$here/release-aliases.sh" check v1.10.3 2>/dev/null) && fail "check v1.10.3 accepted a tree naming v1.10.2"

# 2. A good release installs, for each platform the action supports.
release v1.2.3
for p in "Linux X64 linux/amd64" "Linux ARM64 linux/arm64" "macOS ARM64 darwin/arm64" "macOS X64 darwin/amd64"; do
	set -- $p
	dest="$work/bin-$1-$2"
	if ! install v1.2.3 "$dest" "$1" "$2"; then
		fail "install v1.2.3 on $1/$2: $(cat "$work/err")"
		continue
	fi
	bin=$(cat "$work/out")
	[[ "$bin" == "$dest/ghcommitter" ]] || fail "$1/$2: printed path '$bin', want $dest/ghcommitter"
	[[ "$("$bin")" == "ghcommitter v1.2.3 $3" ]] || fail "$1/$2: installed the wrong binary: $("$bin")"
done
if command -v zip >/dev/null 2>&1; then
	if install v1.2.3 "$work/bin-win" Windows X64; then
		[[ -x "$work/bin-win/ghcommitter.exe" ]] || fail "Windows: no ghcommitter.exe installed"
	else
		fail "install v1.2.3 on Windows: $(cat "$work/err")"
	fi
fi

# 2b. A @v1 pin at that release's commit installs that release's binary,
# through the mode the action's first step computes.
read -r mode tag < <(bash "$install" mode v1 "$work/act-123")
if [[ $mode == download ]] && install "$tag" "$work/bin-major"; then
	[[ "$("$work/bin-major/ghcommitter")" == "ghcommitter v1.2.3 linux/amd64" ]] || fail "@v1 installed the wrong binary: $("$work/bin-major/ghcommitter")"
else
	fail "@v1 at v1.2.3's tree: mode '$mode $tag', $(cat "$work/err")"
fi

# 3. A tampered archive is refused, and nothing is installed.
release v1.2.4
archive="$work/releases/v1.2.4/ghcommitter_1.2.4_linux_amd64.tar.gz"
printf '#!/bin/sh\necho pwned\n' >"$work/stage/evil"
chmod +x "$work/stage/evil"
cp "$work/stage/evil" "$work/stage/ghcommitter"
tar -czf "$archive" -C "$work/stage" ghcommitter
if install v1.2.4 "$work/bin-tampered"; then
	fail "a tampered archive was installed: $(cat "$work/out")"
else
	grep -q "checksum mismatch" "$work/err" || fail "tampered archive: error does not say checksum mismatch: $(cat "$work/err")"
fi
[[ ! -e "$work/bin-tampered/ghcommitter" ]] || fail "tampered archive: a binary was left in DEST"

# 4. An archive checksums.txt does not list is refused.
release v1.2.5
grep -v linux_amd64 "$work/releases/v1.2.5/checksums.txt" >"$work/c" && mv "$work/c" "$work/releases/v1.2.5/checksums.txt"
if install v1.2.5 "$work/bin-unlisted"; then
	fail "an archive without a checksum line was installed"
else
	grep -q "no SHA-256" "$work/err" || fail "unlisted archive: unexpected error: $(cat "$work/err")"
fi
[[ ! -e "$work/bin-unlisted/ghcommitter" ]] || fail "unlisted archive: a binary was left in DEST"

# 5. A release without checksums.txt, and a release that does not exist.
release v1.2.6
rm "$work/releases/v1.2.6/checksums.txt"
install v1.2.6 "$work/bin-nosums" && fail "a release without checksums.txt was installed"
install v9.9.9 "$work/bin-missing" && fail "a missing release was installed"
[[ ! -e "$work/bin-nosums/ghcommitter" && ! -e "$work/bin-missing/ghcommitter" ]] || fail "a binary was left in DEST"

# 6. Not a release tag, and an unsupported runner.
install main "$work/bin-branch" && fail "download accepted the branch name main"
install v1.2.3 "$work/bin-riscv" Linux RISCV64 && fail "download accepted RUNNER_ARCH RISCV64"

if [[ $fails -gt 0 ]]; then
	echo "$fails check(s) failed" >&2
	exit 1
fi
echo "ok: action download path (install, tampered archive refused, missing checksum refused)"
