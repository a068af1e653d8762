package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// gitBackend finds git and its git-http-backend; an error says why the
// baseline cannot run.
func gitBackend(ctx context.Context) (string, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", fmt.Errorf("git is not installed (%w): the clone + rebase + push baseline is skipped", err)
	}
	out, err := exec.CommandContext(ctx, "git", "--exec-path").Output()
	if err != nil {
		return "", fmt.Errorf("git --exec-path: %w: the baseline is skipped", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		return "", fmt.Errorf("git-http-backend not found (%w): the baseline is skipped", err)
	}
	return backend, nil
}

// makeGitSeed commits files in a new repository under dir and returns the
// path of a bare clone of it, the template every git run copies.
func makeGitSeed(ctx context.Context, dir string, files []seedFile) (string, error) {
	work := filepath.Join(dir, "seed-work")
	if err := writeSeed(work, files); err != nil {
		return "", err
	}
	bare := filepath.Join(dir, "seed.git")
	steps := [][]string{
		{"init", "-q", "-b", branch, work},
		{"-C", work, "add", "-A"},
		{"-C", work, "commit", "-q", "-m", "Seed the repository"},
		{"clone", "-q", "--bare", work, bare},
	}
	for _, args := range steps {
		if _, err := runGit(ctx, dir, gitEnv(dir, "seed"), args...); err != nil {
			return "", err
		}
	}
	return bare, os.RemoveAll(work)
}

// gitHTTP serves one bare repository over git smart HTTP (git
// http-backend through net/http/cgi), adding latency to every request and
// counting requests and body bytes in both directions.
type gitHTTP struct {
	ts       *httptest.Server
	bare     string // the served repository
	URL      string // its clone URL
	latency  time.Duration
	backend  http.Handler
	requests atomic.Int64
	bytes    atomic.Int64
}

// newGitHTTP copies the seed repository into dir and serves the copy.
func newGitHTTP(ctx context.Context, backend, seed, dir string, latency time.Duration) (*gitHTTP, error) {
	bare := filepath.Join(dir, repoName+".git")
	if _, err := runGit(ctx, dir, gitEnv(dir, "seed"), "clone", "-q", "--bare", seed, bare); err != nil {
		return nil, err
	}
	if _, err := runGit(ctx, dir, gitEnv(dir, "seed"), "-C", bare, "config", "http.receivepack", "true"); err != nil {
		return nil, err
	}
	g := &gitHTTP{bare: bare, latency: latency}
	g.backend = &cgi.Handler{
		Path: backend,
		Env:  []string{"GIT_PROJECT_ROOT=" + dir, "GIT_HTTP_EXPORT_ALL=1"},
	}
	g.ts = httptest.NewServer(g)
	g.URL = g.ts.URL + "/" + repoName + ".git"
	return g, nil
}

func (g *gitHTTP) Close() { g.ts.Close() }

func (g *gitHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.requests.Add(1)
	if g.latency > 0 {
		t := time.NewTimer(g.latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	r.Body = &countingReader{r: r.Body, n: &g.bytes}
	g.backend.ServeHTTP(&countingWriter{ResponseWriter: w, n: &g.bytes}, r)
}

type countingReader struct {
	r io.ReadCloser
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingReader) Close() error { return c.r.Close() }

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// runGit runs git in dir and returns its combined output; the error holds
// the output's first line.
func runGit(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("git %s: %w: %s", args[0], err, firstLine(lastLines(string(out))))
	}
	return string(out), nil
}

// lastLines drops the progress lines git prints before its error.
func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		if strings.Contains(l, "rejected") || strings.HasPrefix(l, "error:") || strings.HasPrefix(l, "fatal:") {
			return l
		}
	}
	return s
}

// gitEnv isolates git from the user's configuration: HOME is home, the
// system config is ignored, and author and committer are fixed.
func gitEnv(home, who string) []string {
	return append(cleanEnv(),
		"HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=bench "+who, "GIT_AUTHOR_EMAIL="+who+"@bench.invalid",
		"GIT_COMMITTER_NAME=bench "+who, "GIT_COMMITTER_EMAIL="+who+"@bench.invalid")
}
