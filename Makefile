# ghcommitter — developer tasks. `make test` is what CI runs (.ci/run).
GO        ?= go
PKGS      ?= ./...
BIN       ?= bin/ghcommitter
TESTFLAGS ?= -race -count=1 -timeout 15m
# Modules of their own: an example (a user's program on its own go-github),
# the kustomize oracle, and the contention benchmark (its tests build and run
# the CLI; out of the main module's go test ./...). test, vet, golangci-lint
# and mod-download (.ci/run) loop over this one list.
MODULES   ?= examples/gogithub-latest committer/edits/kustomizeoracle cmd/ghcommitter-bench
# The modules whose tests need a real Kubernetes API server: the Lease
# turns, and examples/shards (shard processes taking turns through them).
# They are out of MODULES so that make test and make lint build no
# Kubernetes; make test-kube and make lint-kube (.ci/run) take them.
KUBE_MODULES ?= committer/turns/kubelease examples/shards
# The tool modules that build kube-apiserver (k8s.io/kubernetes, with its
# staging replaces) and etcd: scripts/kube-tools.sh builds them once into
# $${XDG_CACHE_HOME:-$$HOME/.cache}/ghcommitter-kube and reuses the binaries.
KUBE_TOOLS ?= internal/kubetools/apiserver internal/kubetools/etcd

.PHONY: all build test test-action test-kube lint-kube kube-tools mod-download-kube test-github fmt-check vet lint golangci-lint release-snapshot bench chaos demo fuzz clean mod-download

all: build test

build:
	$(GO) build -o $(BIN) ./cmd/ghcommitter

# What a clean clone needs from the module proxy, for every module.
mod-download:
	$(GO) mod download
	@for m in $(MODULES); do (cd $$m && $(GO) mod download) || exit 1; done

# What make test-kube needs: the Lease module's modules, and the tools'
# (only fetched when their binaries are not in the cache yet).
mod-download-kube:
	@for m in $(KUBE_MODULES); do (cd $$m && $(GO) mod download) || exit 1; done
	@if ! bash scripts/kube-tools.sh --cached >/dev/null; then \
		for m in $(KUBE_TOOLS); do (cd $$m && $(GO) mod download) || exit 1; done; fi

# kube-apiserver and etcd, built once into the cache (minutes cold, nothing
# warm); prints where they are.
kube-tools:
	bash scripts/kube-tools.sh

# The Lease module's tests against a real API server: etcd and
# kube-apiserver started on loopback by its kubetest package (a missing
# binary fails them here: KUBETEST_REQUIRE=1).
test-kube:
	@env="$$(bash scripts/kube-tools.sh)" && export $$env KUBETEST_REQUIRE=1 && \
	for m in $(KUBE_MODULES); do echo "cd $$m && $(GO) test ./..."; (cd $$m && $(GO) test $(TESTFLAGS) ./...) || exit 1; done

# go vet and golangci-lint on the Kubernetes modules (the tools' mains are
# 15 lines each: gofmt, through fmt-check, is all they get; vetting them
# would compile Kubernetes a second time).
lint-kube:
	@for m in $(KUBE_MODULES); do (cd $$m && $(GO) vet ./... && $(GOLANGCI_LINT) run --config $(CURDIR)/.golangci.yml ./...) || exit 1; done

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)
	@for m in $(MODULES); do (cd $$m && $(GO) vet ./...) || exit 1; done

# Tools run through the module proxy at pinned versions (no global installs).
GORELEASER    ?= $(GO) run github.com/goreleaser/goreleaser/v2@v2.15.1
GOLANGCI_LINT ?= $(GO) run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0

# golangci-lint v2 with .golangci.yml, on the module and the example modules.
lint: fmt-check vet golangci-lint

golangci-lint:
	$(GOLANGCI_LINT) run ./...
	@for m in $(MODULES); do (cd $$m && $(GOLANGCI_LINT) run --config $(CURDIR)/.golangci.yml ./...) || exit 1; done

# The release archives and checksums.txt in dist/, built as a tag would be,
# published nowhere.
release-snapshot:
	$(GORELEASER) release --snapshot --clean

# -short keeps the chaos run small; `make chaos` runs the full set.
test: fmt-check vet readme-check
	$(GO) test $(TESTFLAGS) -short $(PKGS)
	@for m in $(MODULES); do echo "cd $$m && $(GO) test ./..."; (cd $$m && $(GO) test $(TESTFLAGS) -short ./...) || exit 1; done

# action.yml inside nektos/act (installed once through the module proxy),
# jobs on the host, against the fake GitHub; no step reaches the internet
# (scripts/test-action.sh, testdata/act). .ci/run runs it after test.
test-action:
	GO=$(GO) bash scripts/test-action.sh

# The README's "Real output" block is what scripts/readme-output.sh prints
# against fake-github (ports and SHAs aside), and its demo sample what
# `ghcommitter demo` prints (numbers aside); readme-update rewrites both.
.PHONY: readme-check readme-update
readme-check: build
	bash scripts/readme-output.sh --check $(BIN)
	README_BLOCK=demo-output bash scripts/readme-output.sh --check $(BIN)

readme-update: build
	bash scripts/readme-output.sh --update $(BIN)
	README_BLOCK=demo-output bash scripts/readme-output.sh --update $(BIN)

# Against real GitHub: needs GITHUB_TOKEN and GHCOMMITTER_TEST_REPO=owner/repo
# (a scratch repository); skipped without them, never part of `make test`.
test-github:
	$(GO) test -tags github -count=1 -run 'GitHub' -v ./committer/ ./committer/githubtest/

chaos:
	$(GO) test -race -count=1 -timeout 60m -run 'Chaos' -v ./...

# The contention benchmark (ghcommitter vs clone + rebase + push); writes
# BENCHMARKS.md. The full matrix takes many minutes. BENCHFLAGS adds flags:
# -only limits (GitHub's limits), -only process (the one-process rows alone).
# The bench is a module of its own; it runs in cmd/ghcommitter-bench.
bench:
	$(GO) run -C cmd/ghcommitter-bench . -out ../../BENCHMARKS.md $(BENCHFLAGS)

# The Go micro-benchmarks.
.PHONY: bench-go
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 1x $(PKGS)

FUZZTIME ?= 30s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzValidatePath$$' -fuzztime $(FUZZTIME) ./committer/
	$(GO) test -run '^$$' -fuzz '^FuzzTreeBuild$$' -fuzztime $(FUZZTIME) ./committer/
	$(GO) test -run '^$$' -fuzz '^FuzzCreateTree$$' -fuzztime $(FUZZTIME) ./committer/githubtest/
	$(GO) test -run '^$$' -fuzz '^FuzzSetYAML$$' -fuzztime $(FUZZTIME) ./committer/edits/
	$(GO) test -run '^$$' -fuzz '^FuzzEditYAMLDocument$$' -fuzztime $(FUZZTIME) ./committer/edits/
	$(GO) test -run '^$$' -fuzz '^FuzzEditJSONDocument$$' -fuzztime $(FUZZTIME) ./committer/edits/

# Regenerate testdata/github-api/ (schemas, operations) from GitHub's
# official OpenAPI description (npm @octokit/openapi); needs node and npm.
.PHONY: api-schemas
api-schemas:
	scripts/gen-github-api.sh

# Regenerate GitHub's published GraphQL schema (npm @octokit/graphql-schema)
# into testdata/graphql/ and the copy the fake embeds; needs node and npm.
.PHONY: graphql-schema
graphql-schema:
	scripts/gen-graphql-schema.sh

demo:
	$(GO) run ./cmd/ghcommitter demo

clean:
	rm -rf bin dist
