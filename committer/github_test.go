//go:build github

// Tests against real GitHub. They run only with the build tag and a token:
//
//	GITHUB_TOKEN=... GHCOMMITTER_TEST_REPO=owner/scratch-repo make test-github
//
// They write to throwaway branches named ghcommitter-test-<time> in that
// repository (which must exist and have at least one commit) and delete
// them afterwards. The token needs contents: write.
package committer_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
)

func realGitHub(t *testing.T) (*committer.Committer, string) {
	t.Helper()
	token, target := os.Getenv("GITHUB_TOKEN"), os.Getenv("GHCOMMITTER_TEST_REPO")
	if token == "" || target == "" {
		t.Skip("set GITHUB_TOKEN and GHCOMMITTER_TEST_REPO=owner/repo to run tests against GitHub")
	}
	o, r, err := committer.ParseRepo(target)
	if err != nil {
		t.Fatal(err)
	}
	opts := []ghclient.Option{ghclient.WithToken(token)}
	if u := os.Getenv("GITHUB_API_URL"); u != "" {
		opts = append(opts, ghclient.WithBaseURL(u))
	}
	gh, err := ghclient.New(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newWith(gh, o, r)
	if err != nil {
		t.Fatal(err)
	}
	repo, _, err := gh.Repositories.Get(context.Background(), o, r)
	if err != nil {
		t.Fatal(err)
	}
	branch := fmt.Sprintf("ghcommitter-test-%d", time.Now().UnixNano())
	t.Cleanup(func() {
		if _, err := gh.Git.DeleteRef(context.Background(), o, r, "heads/"+branch); err != nil {
			t.Logf("deleting %s: %v", branch, err)
		}
	})
	// Create the branch from the default branch with a first commit.
	_, err = c.Commit(context.Background(), branch, committer.NewChangeSet("ghcommitter test: start").Put("ghcommitter-test/counter.txt", []byte("0\n")),
		committer.CreateBranchFrom(repo.GetDefaultBranch()))
	if err != nil {
		t.Fatal(err)
	}
	return c, branch
}

func TestGitHubConcurrentWriters(t *testing.T) {
	c, branch := realGitHub(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const n = 4
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, err := c.Commit(ctx, branch, committer.NewChangeSet(fmt.Sprintf("ghcommitter test: file %d", i)).
				Put(fmt.Sprintf("ghcommitter-test/w%d.txt", i), []byte(strconv.Itoa(i))))
			errs <- err
		}()
		go func() {
			defer wg.Done()
			_, err := c.Commit(ctx, branch, committer.NewChangeSet("ghcommitter test: increment").Edit("ghcommitter-test/counter.txt", incr))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.Plan(ctx, branch, committer.NewChangeSet("check").Edit("ghcommitter-test/counter.txt", func(old []byte, _ bool) ([]byte, error) {
		if strings.TrimSpace(string(old)) != strconv.Itoa(n) {
			return nil, fmt.Errorf("counter = %q, want %d", old, n)
		}
		return old, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
}

func TestGitHubPreconditionAndNoOp(t *testing.T) {
	c, branch := realGitHub(t)
	ctx := context.Background()
	_, err := c.Commit(ctx, branch, committer.NewChangeSet("ghcommitter test: guarded").ExpectAbsent("ghcommitter-test/counter.txt").Put("x", []byte("x")))
	if !errors.Is(err, committer.ErrConflict) {
		t.Fatalf("err = %v, want ErrConflict", err)
	}
	res, err := c.Commit(ctx, branch, committer.NewChangeSet("ghcommitter test: same").Put("ghcommitter-test/counter.txt", []byte("0\n")))
	if err != nil {
		t.Fatal(err)
	}
	if !res.NoOp {
		t.Fatalf("rewriting the same content made a commit: %+v", res)
	}
}
