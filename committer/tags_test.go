package committer_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

func tagAt(t *testing.T, ts *githubtest.TestServer, name string) (sha, typ string) {
	t.Helper()
	ref, _, err := ts.Client.Git.GetRef(context.Background(), owner, repo, "tags/"+name)
	if err != nil {
		return "", ""
	}
	return ref.GetObject().GetSHA(), ref.GetObject().GetType()
}

func TestTagLightweightMovesWithTheBranch(t *testing.T) {
	ts, c := setup(t)
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("release").Put("v.txt", []byte("1\n")), committer.Tag(committer.TagSpec{Name: "v1.0.0"}))
	must(t, err)
	if sha, _ := tagAt(t, ts, "v1.0.0"); sha != res.Commit || res.Tag != "v1.0.0" {
		t.Fatalf("tag at %q, result %+v", sha, res)
	}
	if ts.Count(githubtest.RouteCreateRef) != 0 || mutations(ts) != 1 {
		t.Fatalf("the tag was not created in the one updateRefs: %v", routes(ts))
	}
}

func TestTagAnnotated(t *testing.T) {
	ts, c := setup(t)
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("release").Put("v.txt", []byte("1\n")), committer.Tag(committer.TagSpec{Name: "v1", Message: "Release 1"}))
	must(t, err)
	sha, typ := tagAt(t, ts, "v1")
	if typ != "tag" {
		t.Fatalf("tag ref points at a %q, want an annotated tag object", typ)
	}
	tag, _, err := ts.Client.Git.GetTag(context.Background(), owner, repo, sha)
	must(t, err)
	if tag.GetObject().GetSHA() != res.Commit || tag.GetMessage() != "Release 1\n" && tag.GetMessage() != "Release 1" {
		t.Fatalf("tag object %+v, want on %s", tag, res.Commit)
	}
}

// An existing tag refuses the commit (ErrConflict) and nothing moves; with
// TagSpec.Force it moves. The tag is also refused when it appears between the
// read and the write: updateRefs applies neither ref then.
func TestTagExisting(t *testing.T) {
	for _, when := range []string{"before", "between read and write"} {
		t.Run(when, func(t *testing.T) {
			ts, c := setup(t)
			old := head(t, ts, "main")
			create := func() {
				_, _, err := ts.Client.Git.CreateRef(context.Background(), owner, repo, &github.Reference{Ref: github.String("refs/tags/v1"), Object: &github.GitObject{SHA: github.String(old)}})
				must(t, err)
			}
			if when == "before" {
				create()
			} else {
				ts.Inject(updateRefsFault(githubtest.Fault{Times: 1, Before: func(*http.Request) { create() }}))
			}
			_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("r").Put("v.txt", []byte("1\n")), committer.Tag(committer.TagSpec{Name: "v1"}))
			if !errors.Is(err, committer.ErrConflict) {
				t.Fatalf("err = %v, want ErrConflict", err)
			}
			if sha, _ := tagAt(t, ts, "v1"); head(t, ts, "main") != old || sha != old {
				t.Fatal("something moved")
			}
			res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("r").Put("v.txt", []byte("1\n")), committer.Tag(committer.TagSpec{Name: "v1", Force: true}))
			must(t, err)
			if sha, _ := tagAt(t, ts, "v1"); sha != res.Commit {
				t.Fatalf("Force left the tag at %s", sha)
			}
		})
	}
}

// A tagged commit that loses the race is rebuilt; the tag ends on the
// commit that landed, never on the one that lost.
func TestTagFollowsTheLandedCommit(t *testing.T) {
	ts, c := setup(t)
	ts.MoveBranchBeforeNextUpdate(owner, repo, "main", githubtest.File{Path: "other.txt", Content: []byte("theirs\n")})
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("r").Put("v.txt", []byte("1\n")), committer.Tag(committer.TagSpec{Name: "v2"}))
	must(t, err)
	if sha, _ := tagAt(t, ts, "v2"); sha != res.Commit || res.Attempts != 2 {
		t.Fatalf("tag at %s, result %+v", sha, res)
	}
}

func TestTagNeedsGitData(t *testing.T) {
	ts, c := setup(t)
	before := head(t, ts, "main")
	for _, e := range []committer.Engine{committer.EngineGraphQL, committer.EngineContents} {
		_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("r").Put("v.txt", []byte("1\n")), committer.Tag(committer.TagSpec{Name: "v1"}), committer.WithEngine(e))
		if !errors.Is(err, committer.ErrInvalid) {
			t.Fatalf("%s: err = %v, want ErrInvalid", e, err)
		}
	}
	if _, err := committer.NewQueue(c, "main", committer.Tag(committer.TagSpec{Name: "v1"})); !errors.Is(err, committer.ErrInvalid) {
		t.Fatalf("NewQueue: err = %v, want ErrInvalid", err)
	}
	for _, opts := range [][]committer.CommitOption{{committer.Tag(committer.TagSpec{Name: "bad..name"})}, {committer.Tag(committer.TagSpec{Message: "m"})}, {committer.Tag(committer.TagSpec{Force: true})}, {committer.Tag(committer.TagSpec{Name: "v1", Message: " "})}, {committer.Tag(committer.TagSpec{Name: "refs/tags/v1"})}} {
		if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("r").Put("v.txt", []byte("1\n")), opts...); !errors.Is(err, committer.ErrInvalid) {
			t.Fatalf("err = %v, want ErrInvalid", err)
		}
	}
	if head(t, ts, "main") != before || len(ts.Requests()) != 0 && writes(ts) != 0 {
		t.Fatal("a refused commit wrote")
	}
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("r").Put("v.txt", []byte("1\n")), committer.Tag(committer.TagSpec{Name: "v1"}), committer.WithEngine(committer.EngineAuto))
	must(t, err)
	if res.Engine != "git-data" {
		t.Fatalf("auto picked %s for a tagged commit, want git-data", res.Engine)
	}
}

// On the REST fallback the tag is created right after the branch moves;
// an existing tag is refused before the branch moves.
func TestTagRESTFallback(t *testing.T) {
	ts, c := setupREST(t)
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("r").Put("v.txt", []byte("1\n")), committer.Tag(committer.TagSpec{Name: "v1", Message: "one"}))
	must(t, err)
	sha, typ := tagAt(t, ts, "v1")
	tag, _, err := ts.Client.Git.GetTag(context.Background(), owner, repo, sha)
	must(t, err)
	if typ != "tag" || tag.GetObject().GetSHA() != res.Commit {
		t.Fatalf("tag %s (%s) on %s, want on %s", sha, typ, tag.GetObject().GetSHA(), res.Commit)
	}
	before := head(t, ts, "main")
	_, err = c.Commit(context.Background(), "main", committer.NewChangeSet("r").Put("v.txt", []byte("2\n")), committer.Tag(committer.TagSpec{Name: "v1"}))
	if !errors.Is(err, committer.ErrConflict) || head(t, ts, "main") != before {
		t.Fatalf("err = %v, head moved: %v", err, head(t, ts, "main") != before)
	}
}

// On the REST fallback, a branch move whose reply was lost and that the
// first read back does not show (a lagging replica: here the read of the
// ref answers 404) is found landed by the next attempt's head read; the
// tag, which the REST path creates after the branch moves, is created
// then too, and the PATCH is never sent again.
func TestTagRESTFallbackSettledLater(t *testing.T) {
	ts, c := setupREST(t)
	ts.Inject(githubtest.Fault{Route: githubtest.RouteUpdateRef, Times: 1, DropResponse: true})
	// The first GET git/ref is the tag's existence check (tags/v1), before
	// the PATCH; the second is the settling read of heads/main.
	ts.Inject(githubtest.Fault{Route: rtGetRef, Skip: 1, Times: 1, Status: http.StatusNotFound})
	ts.ResetRequests()
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("r").Put("v.txt", []byte("1\n")), committer.Tag(committer.TagSpec{Name: "v1"}))
	must(t, err)
	var reads []string
	for _, r := range ts.Requests() {
		if r.Route == rtGetRef {
			reads = append(reads, r.Path)
		}
	}
	if len(reads) < 2 || reads[1] != "/repos/"+owner+"/"+repo+"/git/ref/heads/main" {
		t.Fatalf("GET git/ref requests %v: the 404 did not hit the settling read", reads)
	}
	if head(t, ts, "main") != res.Commit || res.Attempts != 2 || ts.Count(githubtest.RouteUpdateRef) != 1 {
		t.Fatalf("result %+v, head %s, %d PATCHes: %v", res, head(t, ts, "main"), ts.Count(githubtest.RouteUpdateRef), routes(ts))
	}
	if sha, typ := tagAt(t, ts, "v1"); sha != res.Commit || typ != "commit" || res.Tag != "v1" {
		t.Fatalf("tag v1 at %q (%s), result %+v, want on %s", sha, typ, res, res.Commit)
	}
}
