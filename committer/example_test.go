package committer_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// exampleClient starts a fake GitHub holding acme/mono and returns the
// options that point a Committer at it. Real programs pass their own
// authenticated *http.Client: from ghclient.NewHTTPClient, or oauth2's or
// any go-github client's Client() wrapped by ghclient.Wrap with the API's
// URL (for GitHub Enterprise Server, or here the fake).
func exampleClient() ([]committer.Option, *githubtest.Server, func()) {
	fake := githubtest.New()
	if err := fake.CreateRepo("acme", "mono", true); err != nil {
		panic(err) // a fresh fake always takes a new repository
	}
	srv := httptest.NewServer(fake)
	hc, err := ghclient.Wrap(srv.Client(), srv.URL+"/")
	if err != nil {
		panic(err)
	}
	opts := []committer.Option{committer.WithHTTPClient(hc)}
	return opts, fake, srv.Close
}

// One commit of several files, landing on top of whatever is on main.
func Example() {
	opts, _, stop := exampleClient()
	defer stop()

	c, err := committer.New("acme", "mono", opts...)
	if err != nil {
		log.Fatal(err)
	}
	cs := committer.NewChangeSet("Promote api to v1.4.2").
		Put("deploy/prod/api/values.yaml", []byte("image:\n  tag: v1.4.2\n")).
		PutMode("scripts/rollout.sh", []byte("#!/bin/sh\necho rolling out\n"), committer.ModeExecutable).
		Delete("deploy/prod/api/old-values.yaml")
	res, err := c.Commit(context.Background(), "main", cs)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("changed:", res.Changed, "attempts:", res.Attempts, "no-op:", res.NoOp)
	// Output: changed: [deploy/prod/api/values.yaml scripts/rollout.sh] attempts: 1 no-op: false
}

// An edit function computes a file's new content from its content at the
// head being built on. It runs again on every attempt, so concurrent writers
// that edit the same file all land.
func ExampleChangeSet_Edit() {
	opts, fake, stop := exampleClient()
	defer stop()
	c, _ := committer.New("acme", "mono", opts...)

	increment := func(old []byte, exists bool) ([]byte, error) {
		n := 0
		if exists {
			var err error
			if n, err = strconv.Atoi(strings.TrimSpace(string(old))); err != nil {
				return nil, fmt.Errorf("counter.txt: %w", err)
			}
		}
		return []byte(strconv.Itoa(n+1) + "\n"), nil
	}
	for range 3 {
		if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("count").Edit("counter.txt", increment)); err != nil {
			log.Fatal(err)
		}
	}
	content, _, _ := fake.ReadFile("acme", "mono", "main", "counter.txt")
	fmt.Print(string(content))
	// Output: 3
}

// A precondition turns a commit into optimistic locking: it lands only if
// the file is still what the caller last read.
func ExampleChangeSet_ExpectBlob() {
	opts, _, stop := exampleClient()
	defer stop()
	c, _ := committer.New("acme", "mono", opts...)
	ctx := context.Background()

	v1 := []byte("replicas: 2\n")
	if _, err := c.Commit(ctx, "main", committer.NewChangeSet("v1").Put("app.yaml", v1)); err != nil {
		log.Fatal(err)
	}
	// Someone else changes the file.
	if _, err := c.Commit(ctx, "main", committer.NewChangeSet("v2").Put("app.yaml", []byte("replicas: 5\n"))); err != nil {
		log.Fatal(err)
	}
	// Our write, based on v1, is refused and commits nothing.
	cs := committer.NewChangeSet("v1 -> v3").ExpectBlob("app.yaml", committer.BlobSHA(v1)).Put("app.yaml", []byte("replicas: 3\n"))
	_, err := c.Commit(ctx, "main", cs)
	fmt.Println(errors.Is(err, committer.ErrConflict))
	// Output: true
}

// A Queue lands the change sets of many goroutines of one process with one
// ref update per batch; each caller still gets its own Result.
func ExampleQueue() {
	opts, fake, stop := exampleClient()
	defer stop()
	c, _ := committer.New("acme", "mono", opts...)
	q, err := committer.NewQueue(c, "main")
	if err != nil {
		log.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := committer.NewChangeSet(fmt.Sprintf("promote app%d", i)).
				Put(fmt.Sprintf("apps/app%d/tag", i), []byte("v2\n"))
			if _, err := q.Commit(context.Background(), cs); err != nil {
				log.Fatal(err)
			}
		}()
	}
	wg.Wait()
	files, _ := fake.Files("acme", "mono", "main")
	fmt.Println(len(files) - 1) // all but the README
	// Output: 8
}

// Plan is a dry run: it says what a change set would do, sending only
// reads.
func ExampleCommitter_Plan() {
	opts, _, stop := exampleClient()
	defer stop()
	c, _ := committer.New("acme", "mono", opts...)
	cs := committer.NewChangeSet("tidy").Put("README.md", []byte("# new\n")).Put("NEW.md", []byte("n\n")).Delete("gone.txt")
	plan, err := c.Plan(context.Background(), "main", cs)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range plan.Files {
		fmt.Println(f.Path, f.Action)
	}
	// Output:
	// README.md modified
	// NEW.md added
	// gone.txt unchanged
}

// Errors say what failed, match a kind with errors.Is, and carry GitHub's
// own status, message and request ID.
func ExampleError() {
	opts, _, stop := exampleClient()
	defer stop()
	c, _ := committer.New("acme", "mono", opts...)
	_, err := c.Commit(context.Background(), "no-such-branch", committer.NewChangeSet("m").Put("a", []byte("a")))
	var e *committer.Error
	if errors.As(err, &e) {
		fmt.Println(errors.Is(err, committer.ErrNotFound), e.Branch)
		fmt.Println(e.Hint)
	}
	// Output:
	// true no-such-branch
	// create it from a base with CreateBranchFrom
}

// WithObserver reports each attempt, lost race, rate-limit wait and
// landing, for a bot's metrics or traces.
func ExampleWithObserver() {
	opts, _, stop := exampleClient()
	defer stop()
	var events []string
	c, _ := committer.New("acme", "mono", append(opts, committer.WithObserver(func(e committer.Event) {
		if e.Kind == committer.EventUpload || e.Kind == committer.EventTree {
			return // progress, for a display
		}
		events = append(events, fmt.Sprintf("%s %d", e.Kind, e.Attempt))
	}))...)
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("m").Put("a", []byte("a"))); err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Join(events, ", "))
	// Output: attempt 1, landed 1
}
