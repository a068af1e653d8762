package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

const (
	owner     = "acme"
	repoName  = "mono"
	branch    = "main"
	fakeToken = "bench-token"
)

// fakeGitHub is the fake GitHub on a local httptest server, seeded with one
// repository acme/mono whose main branch holds the seed files.
type fakeGitHub struct {
	srv *githubtest.Server
	ts  *httptest.Server
	URL string
}

func newFakeGitHub(files []seedFile, latency time.Duration) (*fakeGitHub, error) {
	srv := githubtest.New(githubtest.WithLatency(latency), githubtest.WithToken(fakeToken))
	gf := make([]githubtest.File, len(files))
	for i, f := range files {
		gf[i] = githubtest.File{Path: f.Path, Content: f.Content}
	}
	if _, err := srv.Seed(owner, repoName, branch, "Seed the repository", gf...); err != nil {
		return nil, fmt.Errorf("seeding the fake: %w", err)
	}
	// Seeded before the run: its head is not a commit another writer just
	// made (a busy branch, which a commit's first attempt treats with care).
	srv.Pass(time.Hour)
	ts := httptest.NewServer(srv)
	return &fakeGitHub{srv: srv, ts: ts, URL: ts.URL + "/"}, nil
}

func (f *fakeGitHub) Close() { f.ts.Close() }

// traffic returns the requests logged since the last reset and their bytes
// (request and response bodies).
func (f *fakeGitHub) traffic() (requests, bytes int64) {
	for _, r := range f.srv.Requests() {
		requests++
		bytes += r.RequestBytes + r.ResponseBytes
	}
	return requests, bytes
}

// notModified counts the logged requests answered 304 Not Modified (the
// conditional reads, which count among the requests).
func (f *fakeGitHub) notModified() int64 {
	var n int64
	for _, r := range f.srv.Requests() {
		if r.Status == http.StatusNotModified {
			n++
		}
	}
	return n
}

// committer returns a Committer with the library's defaults (its own
// ghclient client, as a process would have).
func (f *fakeGitHub) committer(ctx context.Context, opts ...committer.Option) (*committer.Committer, error) {
	hc, err := ghclient.NewHTTPClient(ctx, ghclient.WithBaseURL(f.URL), ghclient.WithToken(fakeToken),
		ghclient.WithRateLimits(ghclient.RateLimits{Pacing: &ghclient.Pacing{}}))
	if err != nil {
		return nil, err
	}
	return committer.New(owner, repoName, append([]committer.Option{committer.WithHTTPClient(hc)}, opts...)...)
}

// landed checks on the fake that every writer's file is on main, so a
// result that says "landed" is never taken on trust.
func (f *fakeGitHub) landed(run string, ws []writerResult) error {
	for i, w := range ws {
		if !w.Landed {
			continue
		}
		got, _, err := f.srv.ReadFile(owner, repoName, branch, writerPath(run, i))
		if err != nil || string(got) != string(writerContent(run, i)) {
			return fmt.Errorf("writer %d reported landed but %s is not on %s: %w", i, writerPath(run, i), branch, err)
		}
	}
	return nil
}
