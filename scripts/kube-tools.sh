#!/usr/bin/env bash
# Builds the two programs that the Lease module's tests start — kube-apiserver
# (k8s.io/kubernetes, internal/kubetools/apiserver) and etcd
# (go.etcd.io/etcd/server/v3, internal/kubetools/etcd) — once, into a cache
# directory outside the repository, and prints the environment that
# committer/turns/kubelease/kubetest reads:
#
#   KUBETEST_APISERVER=/…/kube-apiserver
#   KUBETEST_ETCD=/…/etcd
#
# The directory is ${GHCOMMITTER_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ghcommitter-kube}/<key>,
# where <key> is the tool module's name, its pinned version, and a hash of
# its go.mod, go.sum and main.go and of `go version`: a change to any of
# them builds anew, and nothing else does. A build writes a temporary file
# and renames it, so two runs at once never see half a binary.
#
# Usage: scripts/kube-tools.sh [--cached]
#   --cached: build nothing; exit 1 when a binary is not in the cache yet.
set -euo pipefail
cached_only=
[ "${1:-}" = --cached ] && cached_only=1
root="$(cd "$(dirname "$0")/.." && pwd)"
GO="${GO:-go}"
cache="${GHCOMMITTER_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ghcommitter-kube}"

# build NAME MODULE-DIR VERSION LDFLAGS: prints the binary's path.
build() {
	local name="$1" dir="$root/$2" version="$3" ldflags="$4"
	local sum
	sum="$( (cat "$dir/go.mod" "$dir/go.sum" "$dir/main.go"; "$GO" version; echo "$ldflags") | sha256sum | cut -c1-12)"
	local out="$cache/$name-$version-$sum"
	if [ -x "$out/$name" ]; then
		echo "$out/$name"
		return
	fi
	[ -z "$cached_only" ] || return 1
	mkdir -p "$out"
	local start=$SECONDS
	echo "kube-tools: building $name $version into $out (once; minutes cold)" >&2
	local tmp
	tmp="$(mktemp "$out/.$name.XXXXXX")"
	(cd "$dir" && CGO_ENABLED=0 "$GO" build -trimpath -ldflags "$ldflags" -o "$tmp" .)
	mv -f "$tmp" "$out/$name"
	echo "kube-tools: built $name in $((SECONDS - start))s" >&2
	echo "$out/$name"
}

kubever=v1.37.2
etcdver=v3.7.3
apiserver="$(build kube-apiserver internal/kubetools/apiserver "$kubever" \
	"-s -w -X k8s.io/component-base/version.gitVersion=$kubever -X k8s.io/component-base/version.gitTreeState=clean")"
etcd="$(build etcd internal/kubetools/etcd "$etcdver" "-s -w")"
echo "KUBETEST_APISERVER=$apiserver"
echo "KUBETEST_ETCD=$etcd"
