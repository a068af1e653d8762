package committer_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// rawCommit is the git encoding of c, rebuilt from what the fake reports.
func rawCommit(c githubtest.Commit) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", c.Tree)
	for _, p := range c.Parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	ident := func(s githubtest.Signature) string {
		return fmt.Sprintf("%s <%s> %d %s", s.Name, s.Email, s.Date.Unix(), s.Date.Format("-0700"))
	}
	fmt.Fprintf(&b, "author %s\ncommitter %s\n", ident(c.Author), ident(c.Committer))
	if c.PGPSignature != "" {
		b.WriteString("gpgsig " + strings.ReplaceAll(strings.TrimSuffix(c.PGPSignature, "\n"), "\n", "\n ") + "\n")
	}
	b.WriteString("\n" + c.Message)
	return []byte(b.String())
}

// fsckHistory writes every commit of main (and its tree, through a work
// tree and `git add -A`) into a scratch repository and runs git fsck
// --strict on it. Rebuilding a commit must give its SHA back, so the
// objects fsck checks are the ones the fake stored.
func fsckHistory(t *testing.T, ts *githubtest.TestServer) int {
	t.Helper()
	g := newGitRepo(t)
	hist, err := ts.History(owner, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(hist)
	for _, c := range hist {
		g.reset()
		files, err := ts.Files(owner, repo, c.SHA)
		if err != nil {
			t.Fatal(err)
		}
		for p, f := range files {
			if err := writeWork(g.dir, p, committer.Mode(f.Mode), f.Content); err != nil {
				t.Fatal(err)
			}
		}
		if tree := g.writeTree(); tree != c.Tree {
			t.Fatalf("commit %s: git writes tree %s for its files, the fake has %s", c.SHA, tree, c.Tree)
		}
		raw := rawCommit(c)
		sha, err := g.try(raw, "hash-object", "-t", "commit", "-w", "--stdin")
		if err != nil {
			t.Fatalf("commit %s: git refuses to store it: %v\n%s", c.SHA, err, raw)
		}
		if strings.TrimSpace(sha) != c.SHA {
			t.Fatalf("commit %s rebuilt as %s:\n%s", c.SHA, sha, raw)
		}
	}
	if out, err := g.try(nil, "fsck", "--strict", "--no-dangling", "--no-progress"); err != nil {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
	return len(hist)
}

// Issue 11.8: every commit the library makes passes git fsck, whatever the
// author, message and tree shapes.
func TestCommitsPassGitFsck(t *testing.T) {
	ts, c := setup(t)
	ctx := context.Background()
	seed(t, ts, map[string]string{"f": "file", "d/x": "x"})
	zone := time.FixedZone("", -(9*3600 + 30*60))
	css := []*committer.ChangeSet{
		committer.NewChangeSet("plain").Put("a.txt", []byte("a")),
		committer.NewChangeSet("Subject\n\nBody with ünïcödé.\n\nSigned-off-by: A <a@example.com>").
			Edit("a.txt", func(old []byte, _ bool) ([]byte, error) { return append(old, '+'), nil }),
		committer.NewChangeSet("file to dir").Delete("f").Put("f/g", []byte("g")).Symlink("l", "f/g"),
		committer.NewChangeSet("dir to file").Delete("d").PutMode("d", []byte("#!/bin/sh\n"), committer.ModeExecutable),
		committer.NewChangeSet("binary").Put("bin", []byte{0, 1, 2, 0xff}).ExpectAbsent("nope"),
	}
	css[0].Author = &committer.Signature{Name: "Zoë Ünïcode", Email: "zoe@example.com", Date: time.Date(2024, 2, 29, 23, 59, 59, 0, zone)}
	css[0].Committer = &committer.Signature{Name: "Bot [bot]", Email: "bot+1@users.noreply.github.com", Date: time.Date(1970, 1, 1, 0, 0, 1, 0, time.UTC)}
	css[3].Author = &committer.Signature{Name: " spaced  name ", Email: "x@y"}
	for _, cs := range css {
		if _, err := c.Commit(ctx, "main", cs); err != nil {
			t.Fatalf("%q: %v", cs.Message, err)
		}
	}
	if n := fsckHistory(t, ts); n != len(css)+2 { // + the initial commit and the seed
		t.Fatalf("checked %d commits, want %d", n, len(css)+2)
	}
}

// The values git fsck would reject never reach GitHub.
func TestFsckRejectedValuesRefused(t *testing.T) {
	ts, c := setup(t)
	for _, s := range []committer.Signature{
		{Name: "A <b@c>", Email: "d@e.com"},
		{Name: "A>B", Email: "d@e.com"},
		{Name: "A", Email: "d@e.com> <x@y"},
		{Name: "A\nB", Email: "d@e.com"},
		{Name: "A", Email: "d@e.com", Date: time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)},
	} {
		cs := committer.NewChangeSet("m").Put("a", []byte("a"))
		cs.Author = &s
		ts.ResetRequests()
		if _, err := c.Commit(context.Background(), "main", cs); err == nil || len(ts.Requests()) != 0 {
			t.Errorf("author %q <%s>: err = %v after %d requests; want ErrInvalid before any", s.Name, s.Email, err, len(ts.Requests()))
		}
	}
	for _, msg := range []string{"a\x00b", "a\xffb", " \n\t"} {
		ts.ResetRequests()
		if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet(msg).Put("a", []byte("a"))); err == nil || len(ts.Requests()) != 0 {
			t.Errorf("message %q: err = %v after %d requests", msg, err, len(ts.Requests()))
		}
	}
}
