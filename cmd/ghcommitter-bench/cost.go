package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer"
)

// costResult is the cost of one uncontended commit of one small file.
type costResult struct {
	Files         int
	Requests      int64 // Committer.Commit
	Bytes         int64
	Routes        string // the requests, in order
	QueueRequests int64  // the second of two sequential Queue commits (head known)
	QueueBytes    int64
	QueueRoutes   string
	GitRequests   int64 // one git writer alone (clone, commit, push), when the baseline runs
	GitBytes      int64
}

// measureCost commits one file with Committer.Commit on a fresh fake, then
// two files one after the other through a Queue, and reports the traffic
// of the first commit and of the Queue's second one (whose head is known).
func measureCost(ctx context.Context, cfg config, files []seedFile) (costResult, error) {
	fake, err := newFakeGitHub(files, cfg.latency)
	if err != nil {
		return costResult{}, err
	}
	defer fake.Close()
	c, err := fake.committer(ctx)
	if err != nil {
		return costResult{}, err
	}
	out := costResult{Files: len(files)}
	run := "cost" // the same paths and messages at every size

	fake.srv.ResetRequests()
	if _, err := c.Commit(ctx, branch, committer.NewChangeSet("bench: one commit").Put(writerPath(run, 0), writerContent(run, 0))); err != nil {
		return costResult{}, fmt.Errorf("uncontended commit: %w", err)
	}
	out.Requests, out.Bytes = fake.traffic()
	out.Routes = fake.routes()

	q, err := committer.NewQueue(c, branch)
	if err != nil {
		return costResult{}, err
	}
	if _, err := q.Commit(ctx, committer.NewChangeSet("bench: queue 1").Put(writerPath(run, 1), writerContent(run, 1))); err != nil {
		return costResult{}, fmt.Errorf("first queue commit: %w", err)
	}
	fake.srv.ResetRequests()
	if _, err := q.Commit(ctx, committer.NewChangeSet("bench: queue 2").Put(writerPath(run, 2), writerContent(run, 2))); err != nil {
		return costResult{}, fmt.Errorf("second queue commit: %w", err)
	}
	out.QueueRequests, out.QueueBytes = fake.traffic()
	out.QueueRoutes = fake.routes()
	return out, nil
}

// routes lists the logged requests as "GET branches, POST trees, …".
func (f *fakeGitHub) routes() string {
	var parts []string
	for _, r := range f.srv.Requests() {
		route := r.Route
		if i := strings.Index(route, "/repos/{owner}/{repo}/"); i >= 0 {
			route = route[i+len("/repos/{owner}/{repo}/"):]
		}
		if !strings.HasPrefix(route, r.Method+" ") {
			route = r.Method + " " + route
		}
		parts = append(parts, route)
	}
	return strings.Join(parts, ", ")
}
