package cli

import (
	"context"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

func cliTag(t *testing.T, srv *githubtest.TestServer, name string) (sha, typ string) {
	t.Helper()
	ref, _, err := srv.Client.Git.GetRef(context.Background(), "acme", "mono", "tags/"+name)
	if err != nil {
		return "", ""
	}
	return ref.GetObject().GetSHA(), ref.GetObject().GetType()
}

func TestCommitTag(t *testing.T) {
	srv := fake(t)
	r := newCLI(t).run(commitArgs(srv, "--json", "-m", "release", "--tag", "v1.0.0", "--tag-message", "Release 1.0.0", "--edit", "VERSION=echo 1.0.0")...)
	r.wantCode(t, 0)
	obj := oneJSON(t, r.stdout)
	sha, typ := cliTag(t, srv, "v1.0.0")
	if obj["tag"] != "v1.0.0" || typ != "tag" {
		t.Fatalf("json %v; tag ref at %s (%s), want an annotated tag", obj, sha, typ)
	}
	tag, _, err := srv.Client.Git.GetTag(context.Background(), "acme", "mono", sha)
	if err != nil || tag.GetObject().GetSHA() != obj["commit"] {
		t.Fatalf("tag object on %s, commit %v: %v", tag.GetObject().GetSHA(), obj["commit"], err)
	}

	// An existing tag: exit 3, nothing moves; --tag-force moves it.
	before := head(t, srv, "main")
	r = newCLI(t).run(commitArgs(srv, "--json", "-m", "again", "--tag", "v1.0.0", "--edit", "VERSION=echo 1.0.1")...)
	r.wantCode(t, 3)
	if head(t, srv, "main") != before {
		t.Fatal("the branch moved although the tag exists")
	}
	if got, _ := cliTag(t, srv, "v1.0.0"); got != sha {
		t.Fatal("the existing tag moved")
	}
	r = newCLI(t).run(commitArgs(srv, "--json", "-m", "again", "--tag", "v1.0.0", "--tag-force", "--edit", "VERSION=echo 1.0.1")...)
	r.wantCode(t, 0)
	if got, typ := cliTag(t, srv, "v1.0.0"); got != head(t, srv, "main") || typ != "commit" {
		t.Fatalf("--tag-force left the tag at %s (%s)", got, typ)
	}
}

func TestCommitTagRefusals(t *testing.T) {
	srv := fake(t)
	before := head(t, srv, "main")
	for _, args := range [][]string{
		{"--tag", "v1", "--engine", "graphql"},
		{"--tag", "v1", "--engine", "contents"},
		{"--tag-message", "m"},
		{"--tag-force"},
		{"--tag", "bad..name"},
		{"--tag", "v1", "--pull-request", "-b", "feature"},
	} {
		r := newCLI(t).run(commitArgs(srv, append([]string{"-m", "m", "--edit", "a=echo a"}, args...)...)...)
		r.wantCode(t, 2)
	}
	if head(t, srv, "main") != before || srv.CountMethod("POST")+srv.CountMethod("PATCH") != 0 {
		t.Fatal("a refused tagged commit wrote")
	}
	r := newCLI(t).run(commitArgs(srv, "--json", "-m", "m", "--engine", "auto", "--tag", "v1", "--edit", "a=echo a")...)
	r.wantCode(t, 0)
	if obj := oneJSON(t, r.stdout); obj["engine"] != "git-data" || obj["tag"] != "v1" {
		t.Fatalf("auto with --tag: %v", obj)
	}
}
