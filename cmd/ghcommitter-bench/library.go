package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
)

// commitFunc commits one change set and reports the attempts it took.
type commitFunc func(ctx context.Context, cs *committer.ChangeSet) (*committer.Result, error)

// runLibrary runs n goroutines at once, each committing its own file with
// commit, and returns their results and the wall time.
func runLibrary(ctx context.Context, run string, n int, commit commitFunc) ([]writerResult, time.Duration) {
	return raceCommits(ctx, n, func(i int) *committer.ChangeSet {
		return committer.NewChangeSet(fmt.Sprintf("bench %s: writer %d", run, i)).
			Put(writerPath(run, i), writerContent(run, i))
	}, commit)
}

// raceCommits has n goroutines commit changeSet(i) with commit, all
// released at once, and returns their results and the wall time.
func raceCommits(ctx context.Context, n int, changeSet func(i int) *committer.ChangeSet, commit commitFunc) ([]writerResult, time.Duration) {
	ws := make([]writerResult, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			cs := changeSet(i)
			t0 := time.Now()
			res, err := commit(ctx, cs)
			ws[i].Latency = time.Since(t0)
			if err != nil {
				ws[i].Err = shortErr(err)
				var ce *committer.Error
				if errors.As(err, &ce) {
					ws[i].Attempts = ce.Attempts
				}
				return
			}
			ws[i].Landed = !res.NoOp
			ws[i].Attempts = res.Attempts
		}()
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	return ws, time.Since(t0)
}

// runFakeMode runs one library mode (goroutines, queue-chain, queue-squash)
// against a fresh fake seeded with files.
func runFakeMode(ctx context.Context, cfg config, mode string, files []seedFile, n int) (runResult, error) {
	fake, err := newFakeGitHub(files, cfg.latency)
	if err != nil {
		return runResult{}, err
	}
	defer fake.Close()
	var backoff committer.Backoff // nil: the default
	if cfg.backoff[0] > 0 {
		backoff = committer.ExponentialBackoff(cfg.backoff[0], cfg.backoff[1])
	}
	opts := []committer.Option{committer.WithRetries(cfg.maxAttempts, backoff)}
	c, err := fake.committer(ctx, opts...)
	if err != nil {
		return runResult{}, err
	}
	var commit commitFunc
	switch mode {
	case "goroutines":
		commit = func(ctx context.Context, cs *committer.ChangeSet) (*committer.Result, error) {
			return c.Commit(ctx, branch, cs)
		}
	case "queue-chain", "queue-squash":
		var opts []committer.CommitOption
		if mode == "queue-squash" {
			opts = append(opts, committer.Squash())
		}
		q, err := committer.NewQueue(c, branch, opts...)
		if err != nil {
			return runResult{}, err
		}
		commit = q.Commit
	default:
		return runResult{}, fmt.Errorf("runFakeMode: unknown mode %q", mode)
	}
	run := fmt.Sprintf("%s-%d-%d", mode, len(files), n)
	fake.srv.ResetRequests()
	ws, wall := runLibrary(ctx, run, n, commit)
	reqs, bytes := fake.traffic()
	if err := fake.landed(run, ws); err != nil {
		return runResult{}, err
	}
	return summarize(mode, len(files), ws, wall, reqs, bytes, cfg.maxAttempts), nil
}

// shortErr keeps an error's message short enough for a table note.
func shortErr(err error) string {
	s := err.Error()
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
