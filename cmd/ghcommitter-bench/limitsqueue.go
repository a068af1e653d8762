package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
)

// runLimitQueue runs the index scenario through one Queue in one process:
// n goroutines, one client with the library's default pacing, its windows
// scaled like the fake's.
func runLimitQueue(ctx context.Context, cfg config, mode string, n int) (limitResult, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.limits.timeout)
	defer cancel()
	fake, err := newLimitsFake(cfg.limits, cfg.latency, n)
	if err != nil {
		return limitResult{}, err
	}
	defer fake.Close()
	hc, err := ghclient.NewHTTPClient(ctx, ghclient.WithBaseURL(fake.URL), ghclient.WithToken(fakeToken),
		scaled(cfg.limits.scale), ghclient.WithHeader("X-Githubtest-Client", "queue"))
	if err != nil {
		return limitResult{}, err
	}
	c, err := committer.New(owner, repoName, committer.WithHTTPClient(hc),
		committer.WithRetries(cfg.maxAttempts, nil))
	if err != nil {
		return limitResult{}, err
	}
	var qopts []committer.CommitOption
	switch mode {
	case "queue-squash":
		qopts = append(qopts, committer.Squash())
	case "queue-squash-graphql":
		qopts = append(qopts, committer.Squash(), committer.WithEngine(committer.EngineGraphQL))
	}
	q, err := committer.NewQueue(c, branch, qopts...)
	if err != nil {
		return limitResult{}, err
	}
	fake.srv.ResetRequests()
	ws, wall := runQueueWriters(ctx, q, n)
	return limitSummary(fake, scenarioIndex, mode, ws, wall, cfg)
}

// runQueueWriters has n goroutines commit the index scenario's change
// sets through q at once.
func runQueueWriters(ctx context.Context, q *committer.Queue, n int) ([]writerResult, time.Duration) {
	return raceCommits(ctx, n, func(i int) *committer.ChangeSet {
		line := indexLine(i)
		return committer.NewChangeSet(fmt.Sprintf("Promote stage-%02d to v2.0.0", i)).
			Put(stagePath(i), stageContent(i, "v2.0.0")).
			Edit(indexPath, func(old []byte, _ bool) ([]byte, error) {
				return append(old[:len(old):len(old)], line...), nil
			})
	}, func(ctx context.Context, cs *committer.ChangeSet) (*committer.Result, error) {
		return q.Commit(ctx, cs)
	})
}
