#!/usr/bin/env bash
# Which moving tags a release moves: release-aliases.sh TAG prints vX and
# vX.Y (one a line) for a stable release tag vX.Y.Z that is the highest
# stable release of its major line (vX) and of its minor line (vX.Y), among
# the tags of the repository in the current directory; nothing for a
# prerelease (vX.Y.Z-rc.1) or for a patch to an older line. It also checks
# that .github/action-version holds TAG, so that a @vX pin, which reads that
# file to find its binary, downloads this release.
#
#   release-aliases.sh check TAG   exit 1 unless .github/action-version is TAG
#   release-aliases.sh TAG         print the aliases to move to TAG's commit
set -euo pipefail

stable='^v([0-9]+)\.([0-9]+)\.([0-9]+)$'

if [[ "${1:-}" == check ]]; then
	tag=${2:?usage: $0 check TAG}
	have=$(tr -d ' \t\r\n' <.github/action-version 2>/dev/null || true)
	if [[ "$have" != "$tag" ]]; then
		echo "release: .github/action-version says '${have:-nothing}', not $tag: commit it holding $tag, then tag that commit" >&2
		exit 1
	fi
	exit 0
fi

tag=${1:?usage: $0 TAG | check TAG}
[[ "$tag" =~ $stable ]] || exit 0 # a prerelease moves no alias
major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}

# highest PREFIX: the highest stable tag vPREFIX.* (with TAG counted).
highest() {
	{ git tag -l "v$1.*"; echo "$tag"; } | grep -E "$stable" | grep -F "v$1." | sed 's/^v//' |
		sort -t. -k1,1n -k2,2n -k3,3n | tail -1 | sed 's/^/v/'
}
[[ "$(highest "$major")" == "$tag" ]] && echo "v$major"
[[ "$(highest "$major.$minor")" == "$tag" ]] && echo "v$major.$minor"
exit 0
