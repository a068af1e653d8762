package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// gitBackoff is the wait after the attempt-th rejected push: 1s × 1.5^(attempt-1),
// jittered uniformly to between half and one and a half times that.
func gitBackoff(attempt int) time.Duration {
	d := float64(time.Second) * math.Pow(1.5, float64(attempt-1))
	return time.Duration(d * (0.5 + rand.Float64()))
}

// gitWriter is one clone-based writer, as GitOps tools do it: shallow clone,
// add a file, commit, push; on rejection back off, pull --rebase and push
// again, up to attempts pushes.
func gitWriter(ctx context.Context, url, dir, run string, i, attempts int) writerResult {
	var w writerResult
	env := gitEnv(dir, fmt.Sprintf("writer%d", i))
	wd := filepath.Join(dir, "w")
	if _, err := runGit(ctx, dir, env, "clone", "-q", "--depth", "1", "-b", branch, url, wd); err != nil {
		w.Err = err.Error()
		return w
	}
	p := filepath.Join(wd, filepath.FromSlash(writerPath(run, i)))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.Err = err.Error()
		return w
	}
	if err := os.WriteFile(p, writerContent(run, i), 0o644); err != nil {
		w.Err = err.Error()
		return w
	}
	if _, err := runGit(ctx, wd, env, "add", "--", writerPath(run, i)); err != nil {
		w.Err = err.Error()
		return w
	}
	if _, err := runGit(ctx, wd, env, "commit", "-q", "-m", fmt.Sprintf("bench %s: writer %d", run, i)); err != nil {
		w.Err = err.Error()
		return w
	}
	for a := 1; a <= attempts; a++ {
		w.Attempts = a
		_, err := runGit(ctx, wd, env, "push", "-q", "origin", "HEAD:"+branch)
		if err == nil {
			w.Landed = true
			return w
		}
		w.Err = err.Error()
		if a == attempts || ctx.Err() != nil {
			break
		}
		t := time.NewTimer(gitBackoff(a))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return w
		}
		if _, err := runGit(ctx, wd, env, "pull", "-q", "--rebase", "origin", branch); err != nil {
			w.Err = err.Error()
			_, _ = runGit(ctx, wd, env, "rebase", "--abort")
		}
	}
	w.Err = fmt.Sprintf("gave up after %d pushes: %s", w.Attempts, w.Err)
	return w
}

// runGitMode runs n clone-based writers at once against a fresh copy of the
// seed repository served by git http-backend.
func runGitMode(ctx context.Context, cfg config, backend, seed string, files, n int) (runResult, error) {
	dir, err := os.MkdirTemp("", "ghcommitter-bench-git-")
	if err != nil {
		return runResult{}, err
	}
	defer os.RemoveAll(dir)
	srv, err := newGitHTTP(ctx, backend, seed, dir, cfg.latency)
	if err != nil {
		return runResult{}, err
	}
	defer srv.Close()

	run := fmt.Sprintf("git-%d-%d", files, n)
	ws := make([]writerResult, n)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := range n {
		wd := filepath.Join(dir, fmt.Sprintf("writer-%03d", i))
		if err := os.Mkdir(wd, 0o755); err != nil {
			return runResult{}, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			ws[i] = gitWriter(ctx, srv.URL, wd, run, i, cfg.gitAttempts)
			ws[i].Latency = time.Since(start)
		}()
	}
	wg.Wait()
	wall := time.Since(t0)
	if err := gitLanded(ctx, srv.bare, run, ws); err != nil {
		return runResult{}, err
	}
	return summarize("git", files, ws, wall, srv.requests.Load(), srv.bytes.Load(), cfg.gitAttempts), nil
}

// gitLanded checks in the served repository that every writer that pushed
// has its file on the branch.
func gitLanded(ctx context.Context, bare, run string, ws []writerResult) error {
	out, err := runGit(ctx, bare, gitEnv(bare, "check"), "ls-tree", "-r", "--name-only", branch, "--", "bench/"+run)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		have[strings.TrimSpace(l)] = true
	}
	for i, w := range ws {
		if w.Landed && !have[writerPath(run, i)] {
			return fmt.Errorf("git writer %d pushed but %s is not on %s", i, writerPath(run, i), branch)
		}
	}
	return nil
}
