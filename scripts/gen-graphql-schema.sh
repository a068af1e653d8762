#!/bin/sh
# Regenerates GitHub's published GraphQL schema from the npm package
# @octokit/graphql-schema (schema.graphql, as GitHub publishes it):
#   testdata/graphql/github-schema.graphql.gz      the vendored copy
#   committer/githubtest/internal/graphql/graphql_schema.graphql.gz the copy the fake embeds
#   testdata/graphql/LICENSE-octokit-graphql-schema.md
# Both .gz files are byte-identical (gzip -n: no name, no time stamp);
# TestGraphQLSchemaVendored checks it. Needs npm and the npm registry;
# `make test` does not: the generated files are committed.
#   GRAPHQL_SCHEMA_VERSION=15.26.1 scripts/gen-graphql-schema.sh
set -eu
version="${GRAPHQL_SCHEMA_VERSION:-15.26.1}"
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "@octokit/graphql-schema@$version" >/dev/null)
tarball="$(ls "$tmp"/octokit-graphql-schema-*.tgz)"
tar -xzf "$tarball" -C "$tmp" package/schema.graphql package/LICENSE.md
gzip -n -9 -c "$tmp/package/schema.graphql" >"$root/testdata/graphql/github-schema.graphql.gz"
cp "$root/testdata/graphql/github-schema.graphql.gz" "$root/committer/githubtest/internal/graphql/graphql_schema.graphql.gz"
cp "$tmp/package/LICENSE.md" "$root/testdata/graphql/LICENSE-octokit-graphql-schema.md"
printf '@octokit/graphql-schema@%s sha1 %s\n' "$version" "$(sha1sum "$tarball" | cut -d' ' -f1)" >"$root/testdata/graphql/VERSION"
