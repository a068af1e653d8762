#!/bin/sh
# Regenerates testdata/github-api/{operations,schemas,index.json} from
# GitHub's official OpenAPI description, npm package @octokit/openapi.
# Needs node and npm (and the npm registry); `make test` does not: the
# generated files are committed.
#   OPENAPI_VERSION=23.0.2 scripts/gen-github-api.sh
set -eu
version="${OPENAPI_VERSION:-23.0.2}"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/testdata/github-api"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "@octokit/openapi@$version" >/dev/null)
tarball="$(ls "$tmp"/octokit-openapi-*.tgz)"
sha1="$(sha1sum "$tarball" | cut -d' ' -f1)"
tar -xzf "$tarball" -C "$tmp" package/generated/api.github.com.json
node "$root/scripts/gen-github-api.mjs" "$tmp/package/generated/api.github.com.json" "$out" "$version" "$sha1"
