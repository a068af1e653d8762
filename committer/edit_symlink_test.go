package committer_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// An edit of a symbolic link is refused on every engine, naming the link
// and its target, before the edit function runs and with nothing written:
// an edit names the file it changes, and a link may be repointed between
// attempts.
func TestEditOfSymlinkIsRefused(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setup(t, restFor(e))
			before, err := ts.Seed(owner, repo, "main", "seed",
				githubtest.File{Path: "deploy/v1/app.yaml", Content: []byte("v: 1\n")},
				githubtest.File{Path: "deploy/current.yaml", Content: []byte("v1/app.yaml"), Mode: "120000"})
			if err != nil {
				t.Fatal(err)
			}
			ran := false
			cs := committer.NewChangeSet("edit").Edit("deploy/current.yaml", func(old []byte, _ bool) ([]byte, error) {
				ran = true
				return []byte(strings.ReplaceAll(string(old), "1", "3")), nil
			})
			ts.ResetRequests()
			_, err = engineCommit(t, c, e, cs)
			if !errors.Is(err, committer.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			for _, want := range []string{"deploy/current.yaml", "symbolic link", `"v1/app.yaml"`} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if ran {
				t.Error("the edit function ran on the link's target text")
			}
			if h, _ := ts.Head(owner, repo, "main"); h != before || ts.CountWrites() != 0 {
				t.Errorf("the branch moved to %s (%d writes)", h, ts.CountWrites())
			}
		})
	}
}
