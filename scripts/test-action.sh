#!/usr/bin/env bash
# make test-action: runs action.yml inside nektos/act (a workflow runner no
# one here wrote), jobs on the host (-P ubuntu-latest=-self-hosted), against
# the fake GitHub, with the release served by a local server and the remote
# actions the source build nests mapped to the stand-ins in testdata/act:
# TestActionUnderAct (internal/cli). No step reaches the internet; act itself
# comes through the Go module proxy once, into a cache directory beside Go's
# build cache (GHCOMMITTER_TOOLS to put it elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
ACT_VERSION=v0.2.89
tools=${GHCOMMITTER_TOOLS:-$("$GO" env GOCACHE)/../ghcommitter-tools}
act="$tools/act-$ACT_VERSION/act"
if [[ ! -x "$act" ]]; then
	echo "installing nektos/act $ACT_VERSION into $tools/act-$ACT_VERSION (once)"
	GOBIN="$(mkdir -p "$tools/act-$ACT_VERSION" && cd "$tools/act-$ACT_VERSION" && pwd)" \
		"$GO" install "github.com/nektos/act@$ACT_VERSION"
fi
GHCOMMITTER_ACT="$act" exec "$GO" test -count=1 -timeout 10m -run '^TestActionUnderAct$' ./internal/cli/
