package main

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// indexPath is the shared index every writer of the index scenario edits.
const indexPath = "deploy/promotions.yaml"

// stagePath is writer i's own file (it exists on the branch before the run).
func stagePath(i int) string { return fmt.Sprintf("stages/stage-%02d/values.yaml", i) }

func stageContent(i int, version string) []byte {
	return []byte(fmt.Sprintf("stage: stage-%02d\nimage: registry.example.com/team/app:%s\n", i, version))
}

// indexLine is the line writer i appends to the shared index.
func indexLine(i int) string { return fmt.Sprintf("  stage-%02d: v2.0.0\n", i) }

// limitsFake is the fake GitHub with the limits on, seeded with the stage
// files of n writers, the shared index and 100 other files.
type limitsFake struct {
	srv *githubtest.Server
	ts  *httptest.Server
	URL string
}

func newLimitsFake(lc limitsConfig, latency time.Duration, n int) (*limitsFake, error) {
	srv := githubtest.New(githubtest.WithLatency(latency), githubtest.WithToken(fakeToken), githubtest.WithLimits(lc.fakeLimits()))
	var files []githubtest.File
	for _, f := range seedFiles(100) {
		files = append(files, githubtest.File{Path: f.Path, Content: f.Content})
	}
	files = append(files, githubtest.File{Path: indexPath, Content: []byte("promotions:\n")})
	for i := range n {
		files = append(files, githubtest.File{Path: stagePath(i), Content: stageContent(i, "v1.0.0")})
	}
	if _, err := srv.Seed(owner, repoName, branch, "Seed the repository", files...); err != nil {
		return nil, fmt.Errorf("seeding the fake: %w", err)
	}
	ts := httptest.NewServer(srv)
	return &limitsFake{srv: srv, ts: ts, URL: ts.URL + "/"}, nil
}

func (f *limitsFake) Close() { f.ts.Close() }

// stats returns the token's limit counters and the requests logged.
func (f *limitsFake) stats() (githubtest.LimitStats, int) {
	return f.srv.LimitStats(fakeToken), len(f.srv.Requests())
}

// verify checks on the fake what the writers reported: each landed
// writer's stage file holds its new content, and in the index scenario the
// shared index holds the line of every landed writer exactly once. A
// result is never taken on trust. It returns how many writers that did not
// report landing are on the branch all the same (an unknown outcome may
// have landed).
func (f *limitsFake) verify(sc string, landed []bool) (int, error) {
	for i, ok := range landed {
		if !ok {
			continue
		}
		got, _, err := f.srv.ReadFile(owner, repoName, branch, stagePath(i))
		if err != nil || !bytes.Equal(got, stageContent(i, "v2.0.0")) {
			return 0, fmt.Errorf("writer %d reported landed but %s does not hold its content (%w)", i, stagePath(i), err)
		}
	}
	unreported := 0
	for i, ok := range landed {
		got, _, _ := f.srv.ReadFile(owner, repoName, branch, stagePath(i))
		if !ok && bytes.Equal(got, stageContent(i, "v2.0.0")) {
			unreported++
		}
	}
	if sc != scenarioIndex && sc != scenarioSync {
		return unreported, nil
	}
	idx, _, err := f.srv.ReadFile(owner, repoName, branch, indexPath)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", indexPath, err)
	}
	for i, ok := range landed {
		c := strings.Count(string(idx), indexLine(i))
		if (ok && c != 1) || c > 1 {
			return 0, fmt.Errorf("writer %d (landed: %v): its line is in %s %d times", i, ok, indexPath, c)
		}
	}
	return unreported, nil
}
