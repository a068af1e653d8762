package edits_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/edits"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/internal/testseam"
)

// TestConcurrentSetsOfOneFileAllLand: writers with a Committer each set
// their own key of one shared values file and their own image of one shared
// kustomization at once, while another writer moves the branch under them:
// every key lands exactly once, in a linear history, and the comments are
// intact.
func TestConcurrentSetsOfOneFileAllLand(t *testing.T) {
	const n = 12
	shared := "# one key per stage\nstages:\n  # filled by promotions\n  seed: \"0\"\n"
	kust := "# images of every stage\nimages:\n- name: seed\n  newTag: \"0\"\nresources: [a.yaml]\n"
	srv := githubtest.NewServer(t)
	before, err := srv.Seed("acme", "mono", "main", "seed",
		githubtest.File{Path: "deploy/values.yaml", Content: []byte(shared)},
		githubtest.File{Path: "deploy/kustomization.yaml", Content: []byte(kust)})
	if err != nil {
		t.Fatal(err)
	}
	// Another writer lands in between, adding a comment of its own.
	srv.MoveBranchBeforeNextUpdate("acme", "mono", "main",
		githubtest.File{Path: "deploy/values.yaml", Content: []byte(shared + "# other writer\n")})
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The client's write pacer at 100x: the test is about edits.
			hc, err := ghclient.NewHTTPClient(context.Background(), ghclient.WithBaseURL(srv.URL),
				ghclient.WithHTTPClient(testseam.Client(nil, testseam.Seams{LimitScale: 100})))
			if err != nil {
				errs[i] = err
				return
			}
			c, err := committer.New("acme", "mono", committer.WithHTTPClient(hc), committer.WithRetries(50, nil))
			if err != nil {
				errs[i] = err
				return
			}
			cs := committer.NewChangeSet(fmt.Sprintf("stage %d", i)).
				Edit("deploy/values.yaml", edits.Set(edits.YAML, fmt.Sprintf("stages.s%d", i), fmt.Sprint(i), edits.AsString())).
				Edit("deploy/kustomization.yaml", edits.SetImage(edits.Image{Name: fmt.Sprintf("img%d", i), NewTag: fmt.Sprint(i)}))
			_, errs[i] = c.Commit(context.Background(), "main", cs)
		}()
	}
	wg.Wait()
	values, _, _ := srv.ReadFile("acme", "mono", "main", "deploy/values.yaml")
	images, _, _ := srv.ReadFile("acme", "mono", "main", "deploy/kustomization.yaml")
	for i := range n {
		if errs[i] != nil {
			t.Errorf("writer %d: %v", i, errs[i])
		}
		if c := strings.Count(string(values), fmt.Sprintf("  s%d: \"%d\"\n", i, i)); c != 1 {
			t.Errorf("stage s%d appears %d times:\n%s", i, c, values)
		}
		if c := strings.Count(string(images), fmt.Sprintf("- name: img%d\n  newTag: \"%d\"\n", i, i)); c != 1 {
			t.Errorf("image img%d appears %d times:\n%s", i, c, images)
		}
	}
	for _, keep := range []string{"# one key per stage\nstages:\n  # filled by promotions\n  seed: \"0\"\n", "# other writer\n"} {
		if !strings.Contains(string(values), keep) {
			t.Errorf("values.yaml lost %q:\n%s", keep, values)
		}
	}
	if !strings.HasPrefix(string(images), "# images of every stage\nimages:\n- name: seed\n  newTag: \"0\"\n") || !strings.HasSuffix(string(images), "resources: [a.yaml]\n") {
		t.Errorf("kustomization.yaml lost its other lines:\n%s", images)
	}
	hist, err := srv.History("acme", "mono", "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) < n+2 || hist[n+1].SHA != before {
		t.Fatalf("history: %d commits; want %d new ones (and the other writer's) on the seed", len(hist), n)
	}
}

// TestEditErrorWritesNothing: an edit that cannot apply to the branch's
// content fails the commit as invalid input, naming the path and the key,
// and sends no write.
func TestEditErrorWritesNothing(t *testing.T) {
	srv := githubtest.NewServer(t)
	if _, err := srv.Seed("acme", "mono", "main", "seed", githubtest.File{Path: "v.yaml", Content: []byte("image: nginx\n")}); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	hc, err := ghclient.Wrap(&http.Client{}, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := committer.New("acme", "mono", committer.WithHTTPClient(hc))
	cs := committer.NewChangeSet("m").Edit("v.yaml", edits.Set(edits.YAML, "image.tag", "1"))
	_, err = c.Commit(context.Background(), "main", cs)
	if err == nil || !strings.Contains(err.Error(), `"v.yaml"`) || !strings.Contains(err.Error(), `"image.tag"`) {
		t.Fatalf("err = %v, want it to name the path and the key", err)
	}
	var ee *edits.Error
	if !errors.As(err, &ee) || !errors.Is(err, committer.ErrInvalid) {
		t.Fatalf("err = %v, want an *edits.Error matching ErrInvalid", err)
	}
	if w := srv.CountWrites(); w != 0 { // REST writes and GraphQL mutations, not the path lookup
		t.Fatalf("%d writes were sent", w)
	}
}
