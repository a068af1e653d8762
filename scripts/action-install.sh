#!/usr/bin/env bash
# Installs the ghcommitter CLI for the composite action (action.yml).
#
#   action-install.sh mode REF [DIR]     print "download TAG" when REF is a
#                                        release tag (vX.Y.Z[-pre]: TAG is REF),
#                                        or a major or minor tag (v1, v1.2)
#                                        whose tree DIR (the action's checkout)
#                                        names its release in
#                                        .github/action-version (TAG is that
#                                        release, which must be vREF.*, not a
#                                        prerelease); else "source"
#   action-install.sh download TAG DEST  download the release archive for this
#                                        runner, verify it against the release's
#                                        checksums.txt, unpack the binary into
#                                        DEST and print its path
#   action-install.sh build SRC DEST     build SRC/cmd/ghcommitter into DEST in
#                                        a clean Go environment; print its path
#   action-install.sh source-info SRC    print build-dir=, cache-key= and
#                                        host-go= for the source path
#
# download reads GHCOMMITTER_RELEASES_URL (the releases/download URL of the
# action's repository; any URL curl reads, file:// in tests), RUNNER_OS and
# RUNNER_ARCH. Nothing is unpacked unless the archive's SHA-256 matches.
set -euo pipefail

die() {
	echo "ghcommitter action: $*" >&2
	exit 1
}

release_tag_re='^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$'

platform() {
	local os arch
	case "${RUNNER_OS:-}" in
	Linux) os=linux ;;
	macOS) os=darwin ;;
	Windows) os=windows ;;
	*) die "unsupported RUNNER_OS '${RUNNER_OS:-}' (want Linux, macOS or Windows)" ;;
	esac
	case "${RUNNER_ARCH:-}" in
	X64) arch=amd64 ;;
	ARM64) arch=arm64 ;;
	*) die "unsupported RUNNER_ARCH '${RUNNER_ARCH:-}' (want X64 or ARM64)" ;;
	esac
	echo "${os}_${arch}"
}

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	else
		shasum -a 256 "$1" | cut -d' ' -f1
	fi
}

alias_tag_re='^v[0-9]+(\.[0-9]+)?$'
stable_tag_re='^v[0-9]+\.[0-9]+\.[0-9]+$'

cmd_mode() {
	local ref=${1:-} dir=${2:-} file ver
	if [[ "$ref" =~ $release_tag_re ]]; then
		echo "download $ref"
		return
	fi
	if [[ "$ref" =~ $alias_tag_re && -n "$dir" ]]; then
		# The release workflow moves vX and vX.Y to a release's commit, whose
		# tree names that release: no API lookup at run time.
		file="$dir/.github/action-version"
		ver=$(tr -d ' \t\r\n' <"$file" 2>/dev/null || true)
		if [[ "$ver" =~ $stable_tag_re && "$ver" == "$ref".* ]]; then
			echo "download $ver"
			return
		fi
		echo "ghcommitter action: $ref is not a release's tree (.github/action-version says '${ver:-nothing}'): building from source" >&2
	fi
	echo source
}

cmd_download() {
	local tag=$1 dest=$2 base plat ext archive want got exe
	# tmp is global: the EXIT trap that removes it runs after this returns.
	[[ "$tag" =~ $release_tag_re ]] || die "'$tag' is not a release tag (vX.Y.Z)"
	base=${GHCOMMITTER_RELEASES_URL:?GHCOMMITTER_RELEASES_URL is not set}
	plat=$(platform)
	ext=tar.gz exe=ghcommitter
	if [[ "$plat" == windows_* ]]; then ext=zip exe=ghcommitter.exe; fi
	archive="ghcommitter_${tag#v}_${plat}.${ext}"
	tmp=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/ghcommitter-dl.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	curl -fsSL --retry 3 -o "$tmp/checksums.txt" "$base/$tag/checksums.txt" ||
		die "download $base/$tag/checksums.txt failed"
	curl -fsSL --retry 3 -o "$tmp/$archive" "$base/$tag/$archive" ||
		die "download $base/$tag/$archive failed"
	want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$tmp/checksums.txt")
	[[ "$want" =~ ^[0-9a-f]{64}$ ]] || die "checksums.txt of $tag has no SHA-256 for $archive: refusing to install it"
	got=$(sha256 "$tmp/$archive")
	[[ "$got" == "$want" ]] || die "checksum mismatch for $archive: got $got, checksums.txt says $want: refusing to install it"
	mkdir -p "$tmp/x" "$dest"
	if [[ "$ext" == zip ]]; then
		if command -v unzip >/dev/null 2>&1; then unzip -q "$tmp/$archive" -d "$tmp/x"; else tar -xf "$tmp/$archive" -C "$tmp/x"; fi
	else
		tar -xzf "$tmp/$archive" -C "$tmp/x"
	fi
	[[ -f "$tmp/x/$exe" ]] || die "$archive holds no $exe"
	mv "$tmp/x/$exe" "$dest/$exe"
	chmod 0755 "$dest/$exe"
	echo "$dest/$exe"
}

# source-info SRC: the outputs the source path needs, as KEY=VALUE lines:
# build-dir (where the binary is built and cached), cache-key (the runner's
# OS and architecture and a hash of every file the build reads: go.mod,
# go.sum, cmd/, committer/, internal/), host-go (true when the go on PATH is
# Go 1.26 or later: no Go is set up, so the job's later steps see no
# change).
cmd_source_info() {
	local src=$1 hash v
	# The files' names, then their contents, in one order everywhere.
	# (What is missing is left out: the build then fails, saying why.)
	hash=$(cd "$src" && {
		find go.mod go.sum cmd committer internal -type f 2>/dev/null | LC_ALL=C sort || true
		find go.mod go.sum cmd committer internal -type f -print0 2>/dev/null | LC_ALL=C sort -z | xargs -0 cat -- || true
	} | sha256 /dev/stdin | cut -c1-32)
	echo "build-dir=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/ghcommitter-build"
	echo "cache-key=ghcommitter-build-${RUNNER_OS:-unknown}-${RUNNER_ARCH:-unknown}-$hash"
	v=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null || true)
	if [[ "$v" =~ ^go1\.([0-9]+) ]] && ((BASH_REMATCH[1] >= 26)); then
		echo "host-go=true"
	else
		echo "host-go=false"
	fi
}

cmd_build() {
	local src=$1 dest=$2 goexe
	command -v go >/dev/null 2>&1 || die "no go to build with"
	mkdir -p "$dest"
	# A clean environment: nothing the job set for its own builds (GOOS,
	# GOARCH, GOFLAGS, CGO_ENABLED, a go.work, a toolchain switch) reaches
	# this build. GOPROXY, GOPRIVATE and the caches stay: they say where
	# modules come from, not what is built.
	goexe=$(env -u GOOS -u GOARCH go env GOEXE)
	(cd "$src" && env -u GOOS -u GOARCH -u GOARM -u GOAMD64 -u GOARM64 -u GO386 -u GOEXPERIMENT \
		-u GOFLAGS -u CGO_ENABLED -u CC -u CXX -u CGO_CFLAGS -u CGO_LDFLAGS \
		GOWORK=off GOTOOLCHAIN=local GO111MODULE=on CGO_ENABLED=0 GOFLAGS=-mod=readonly \
		go build -trimpath -o "$dest/ghcommitter$goexe" ./cmd/ghcommitter)
	echo "$dest/ghcommitter$goexe"
}

case "${1:-}" in
mode) cmd_mode "${2:-}" "${3:-}" ;;
download) [[ $# -eq 3 ]] || die "usage: $0 download TAG DEST"; cmd_download "$2" "$3" ;;
build) [[ $# -eq 3 ]] || die "usage: $0 build SRC DEST"; cmd_build "$2" "$3" ;;
source-info) [[ $# -eq 2 ]] || die "usage: $0 source-info SRC"; cmd_source_info "$2" ;;
*) die "usage: $0 mode REF [DIR] | download TAG DEST | build SRC DEST | source-info SRC" ;;
esac
