package committer_test

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// gitBlobSHA is the blob's SHA as git names it.
func gitBlobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestReadFile (issue 41.4): a file read at a branch and at a commit, its
// mode and git's blob SHA; what is not a file there is ErrNotFound, a bad
// path ErrInvalid, and nothing is written.
func TestReadFile(t *testing.T) {
	ts, c := setup(t)
	first, err := ts.Seed(owner, repo, "main", "first",
		githubtest.File{Path: "deploy/values.yaml", Content: []byte("tag: v1\n")},
		githubtest.File{Path: "bin/run", Content: []byte("#!/bin/sh\n"), Mode: "100755"},
		githubtest.File{Path: "current", Content: []byte("deploy/values.yaml"), Mode: "120000"})
	must(t, err)
	_, err = ts.Seed(owner, repo, "main", "second", githubtest.File{Path: "deploy/values.yaml", Content: []byte("tag: v2\n")})
	must(t, err)
	ts.ResetRequests()
	ctx := context.Background()
	for _, tc := range []struct {
		ref, path, content, mode string
	}{
		{"main", "deploy/values.yaml", "tag: v2\n", "100644"},
		{first, "deploy/values.yaml", "tag: v1\n", "100644"},
		{"main", "bin/run", "#!/bin/sh\n", "100755"},
		{"main", "current", "deploy/values.yaml", "120000"},
	} {
		f, err := c.ReadFile(ctx, tc.ref, tc.path)
		if err != nil {
			t.Fatalf("%s at %s: %v", tc.path, tc.ref, err)
		}
		if string(f.Content) != tc.content || f.Mode != tc.mode || f.SHA != gitBlobSHA([]byte(tc.content)) || f.Path != tc.path {
			t.Errorf("%s at %s: %+v, want %q mode %s blob %s", tc.path, tc.ref, f, tc.content, tc.mode, gitBlobSHA([]byte(tc.content)))
		}
		if want := head(t, ts, "main"); tc.ref == "main" && f.Commit != want {
			t.Errorf("%s read at %s, the head is %s", tc.path, f.Commit, want)
		}
	}
	for _, tc := range []struct {
		ref, path string
		want      error
	}{
		{"main", "deploy", committer.ErrNotFound},
		{"main", "missing.yaml", committer.ErrNotFound},
		{"main", "bin/run/x", committer.ErrNotFound},
		{"no-such-branch", "deploy/values.yaml", committer.ErrNotFound},
		{"0123456789abcdef0123456789abcdef01234567", "deploy/values.yaml", committer.ErrNotFound},
		{"main", "../etc/passwd", committer.ErrInvalid},
		{"main", "", committer.ErrInvalid},
		{"main", "/deploy/values.yaml", committer.ErrInvalid},
	} {
		_, err := c.ReadFile(ctx, tc.ref, tc.path)
		if !errors.Is(err, tc.want) {
			t.Errorf("%q at %s: err = %v, want %v", tc.path, tc.ref, err, tc.want)
		}
	}
	if n := ts.CountWrites(); n != 0 {
		t.Errorf("reading wrote %d times", n)
	}
	// Paths are found with the GraphQL path query, not by reading the
	// directories on the way (a directory of 20,000 entries).
	if n := ts.Count("GET /repos/{owner}/{repo}/git/trees/{sha...}"); n != 0 {
		t.Errorf("%d directory reads: %v", n, routes(ts))
	}
}

// TestReadFileEmptyRepository: an empty repository has no file: ErrNotFound.
func TestReadFileEmptyRepository(t *testing.T) {
	ts := githubtest.NewServer(t)
	must(t, ts.CreateRepo(owner, repo, false))
	c, err := newWithClient(ts.Client, owner, repo, nil)
	must(t, err)
	if _, err := c.ReadFile(context.Background(), "main", "a"); !errors.Is(err, committer.ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
}
