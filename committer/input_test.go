package committer_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
)

func TestBadInputSendsNothing(t *testing.T) {
	ts, c := setup(t)
	dir := t.TempDir()
	edit := func(old []byte, _ bool) ([]byte, error) { return old, nil }
	cases := []struct {
		name   string
		branch string
		cs     *committer.ChangeSet
		opts   []committer.CommitOption
		want   string // a fragment the message must contain
	}{
		{"dotdot", "main", committer.NewChangeSet("m").Put("a/../b", []byte("x")), nil, `must not contain ".."`},
		{"dot segment", "main", committer.NewChangeSet("m").Put("a/./b", []byte("x")), nil, `"." segment`},
		{"leading slash", "main", committer.NewChangeSet("m").Put("/etc/passwd", []byte("x")), nil, "relative"},
		{"empty segment", "main", committer.NewChangeSet("m").Put("a//b", []byte("x")), nil, "empty segment"},
		{"trailing slash", "main", committer.NewChangeSet("m").Put("a/", []byte("x")), nil, `end with "/"`},
		{"dot git", "main", committer.NewChangeSet("m").Put(".git/config", []byte("x")), nil, ".git"},
		{"dot git upper", "main", committer.NewChangeSet("m").Put("sub/.GIT/hooks", []byte("x")), nil, ".git"},
		{"nul", "main", committer.NewChangeSet("m").Put("a\x00b", []byte("x")), nil, "NUL"},
		{"empty path", "main", committer.NewChangeSet("m").Delete(""), nil, "empty"},
		{"unknown mode", "main", committer.NewChangeSet("m").PutMode("a", []byte("x"), "100664"), nil, "mode"},
		{"submodule mode", "main", committer.NewChangeSet("m").PutMode("a", []byte("x"), "160000"), nil, "mode"},
		{"same path twice", "main", committer.NewChangeSet("m").Put("a", []byte("x")).Put("a", []byte("y")), nil, "more than one operation"},
		{"deleted twice", "main", committer.NewChangeSet("m").Delete("a").Delete("a"), nil, "more than once"},
		{"nested deletes", "main", committer.NewChangeSet("m").Delete("a/b").Delete("a"), nil, "overlaps another Delete"},
		{"delete under a put", "main", committer.NewChangeSet("m").Put("a", []byte("x")).Delete("a/b"), nil, "writes as a file"},
		{"edit and delete", "main", committer.NewChangeSet("m").Edit("a", edit).Delete("a"), nil, "edited and deleted"},
		{"edit under a delete", "main", committer.NewChangeSet("m").Delete("a").Edit("a/b", edit), nil, "edits"},
		{"delete a synced dir", "main", committer.NewChangeSet("m").Sync("a", nil).Delete("a"), nil, "synced"},
		{"delete over a synced dir", "main", committer.NewChangeSet("m").Sync("a/b", nil).Delete("a"), nil, "synced"},
		{"nul in message", "main", committer.NewChangeSet("a\x00b").Put("a", []byte("x")), nil, "NUL"},
		{"invalid utf-8 message", "main", committer.NewChangeSet("a\xffb").Put("a", []byte("x")), nil, "UTF-8"},
		{"two emails", "main", withAuthor("A <b@c>", "d@e.com"), nil, "must not contain"},
		{"gt in name", "main", withAuthor("A>B", "d@e.com"), nil, "must not contain"},
		{"lt in email", "main", withAuthor("A", "<d@e.com"), nil, "must not contain"},
		{"newline in name", "main", withAuthor("A\nB", "d@e.com"), nil, "must not contain"},
		{"HEAD branch", "HEAD", committer.NewChangeSet("m").Put("a", []byte("x")), nil, "HEAD"},
		{"dot git dot", "main", committer.NewChangeSet("m").Put("a/.git./b", []byte("x")), nil, ".git"},
		{"git tilde 1", "main", committer.NewChangeSet("m").Put("GIT~1/b", []byte("x")), nil, ".git"},
		{"hfs ignorable", "main", committer.NewChangeSet("m").Put(".g\u200cit/x", []byte("x")), nil, ".git"},
		{"gitmodules symlink", "main", committer.NewChangeSet("m").Symlink("a/.GITMODULES", "x"), nil, ".gitmodules"},
		{"file and dir", "main", committer.NewChangeSet("m").Put("a", []byte("x")).Put("a/b", []byte("y")), nil, "both a file and a directory"},
		{"dir and file", "main", committer.NewChangeSet("m").Put("a/b/c", []byte("x")).Edit("a/b", edit), nil, "both a file and a directory"},
		{"inside sync", "main", committer.NewChangeSet("m").Sync("cfg", nil).Put("cfg/x", []byte("x")), nil, "synced directory"},
		{"nil edit", "main", committer.NewChangeSet("m").Edit("a", nil), nil, "edit function"},
		{"two preconditions", "main", committer.NewChangeSet("m").ExpectAbsent("a").ExpectAbsent("a"), nil, "precondition"},
		{"bad sha", "main", committer.NewChangeSet("m").ExpectBlob("a", "xyz"), nil, "40"},
		{"missing local file", "main", committer.NewChangeSet("m").PutLocalFile("a", filepath.Join(dir, "nope"), committer.ModeFile), nil, "no such file"},
		{"directory as file", "main", committer.NewChangeSet("m").PutLocalFile("a", dir, committer.ModeFile), nil, "is a directory"},
		{"too big", "main", committer.NewChangeSet("m").PutReader("big", committer.ModeFile, 5<<30+1, func() (io.ReadCloser, error) {
			return nil, errors.New("must not be opened")
		}), nil, "LFS file limit"},
		{"short reader", "main", committer.NewChangeSet("m").PutReader("r", committer.ModeFile, 10, func() (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader("abc")), nil
		}), nil, "not 10 bytes"},
		{"empty message", "main", committer.NewChangeSet("  \n").Put("a", []byte("x")), nil, "message"},
		{"empty change set", "main", committer.NewChangeSet("m"), nil, "empty"},
		{"nil change set", "main", nil, nil, "nil"},
		{"bad author", "main", func() *committer.ChangeSet {
			cs := committer.NewChangeSet("m").Put("a", []byte("x"))
			cs.Author = &committer.Signature{Name: "x"}
			return cs
		}(), nil, "email"},
		{"bad branch", "ma..in", committer.NewChangeSet("m").Put("a", []byte("x")), nil, "branch"},
		{"branch with space", "my branch", committer.NewChangeSet("m").Put("a", []byte("x")), nil, "branch"},
		{"ref prefix", "refs/heads/main", committer.NewChangeSet("m").Put("a", []byte("x")), nil, "refs/heads"},
		{"bad expected head", "main", committer.NewChangeSet("m").Put("a", []byte("x")), []committer.CommitOption{committer.ExpectHead("HEAD")}, "SHA"},
		{"bad base", "new", committer.NewChangeSet("m").Put("a", []byte("x")), []committer.CommitOption{committer.CreateBranchFrom("a b")}, "base"},
		{"edit then sync edit", "main", committer.NewChangeSet("m").Edit("a", edit).Edit("a", edit), nil, "more than one"},
	}
	before := head(t, ts, "main")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts.ResetRequests()
			_, err := c.Commit(context.Background(), tc.branch, tc.cs, tc.opts...)
			if !errors.Is(err, committer.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("message %q does not mention %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "commit to acme/mono") {
				t.Errorf("message %q does not say where", err)
			}
			if n := len(ts.Requests()); n != 0 {
				t.Fatalf("%d requests sent for invalid input", n)
			}
			_, err = c.Plan(context.Background(), tc.branch, tc.cs, tc.opts...)
			if !errors.Is(err, committer.ErrInvalid) || len(ts.Requests()) != 0 {
				t.Fatalf("Plan: err = %v, %d requests", err, len(ts.Requests()))
			}
		})
	}
	if head(t, ts, "main") != before {
		t.Fatal("branch moved")
	}
}

func TestValidatePath(t *testing.T) {
	valid := []string{"a", "a/b", "a.b/c-d_e", ".github/workflows/ci.yml", "..a", "a..", ".gitignore", "x/.gitkeep", "ünïcode/файл"}
	for _, p := range valid {
		if err := committer.ValidatePath(p); err != nil {
			t.Errorf("ValidatePath(%q) = %v, want nil", p, err)
		}
	}
	invalid := []string{"", "/", "/a", "a/", "a//b", ".", "..", "a/..", "../a", "a/./b", ".git", "a/.git/b", ".Git", "a\x00", "\xff"}
	for _, p := range invalid {
		if err := committer.ValidatePath(p); err == nil {
			t.Errorf("ValidatePath(%q) = nil, want an error", p)
		}
	}
}

func TestNewValidatesOptions(t *testing.T) {
	ts, _ := setup(t)
	bad := []committer.Option{
		committer.WithRetries(-1, nil), committer.WithRetries(1001, nil),
		committer.WithBackoffSleep(nil), committer.WithUploads(committer.Uploads{InlineLimit: 1<<20 + 1}),
		committer.WithUploads(committer.Uploads{Parallelism: -1}), committer.WithUploads(committer.Uploads{Parallelism: 65}),
	}
	for i, o := range bad {
		if _, err := newWith(ts.Client, owner, repo, o); err == nil {
			t.Errorf("option %d accepted", i)
		}
	}
	if _, err := committer.New(owner, repo, committer.WithHTTPClient(nil)); err == nil {
		t.Error("nil client accepted")
	}
	for _, r := range [][2]string{{"", "x"}, {"a b", "x"}, {"acme", "a/b"}, {"acme", ".."}} {
		if _, err := newWith(ts.Client, r[0], r[1]); err == nil {
			t.Errorf("repository %q accepted", r)
		}
	}
}

func TestLoadDirSymlinkPolicy(t *testing.T) {
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "sub", "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644))
	must(t, os.Symlink("sub/run.sh", filepath.Join(dir, "link")))
	files, err := committer.LoadDir(dir, committer.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]committer.Mode{}
	for _, f := range files {
		got[f.Path] = f.Mode
	}
	if got["a.txt"] != committer.ModeFile || got["sub/run.sh"] != committer.ModeExecutable || got["link"] != committer.ModeSymlink {
		t.Fatalf("modes = %v", got)
	}
	files, err = committer.LoadDir(dir, committer.LoadOptions{NoFileMode: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Mode != committer.ModeFile {
			t.Errorf("%s: mode %s with NoFileMode", f.Path, f.Mode)
		}
	}
	must(t, os.Symlink("../../etc/passwd", filepath.Join(dir, "sub", "escape")))
	if _, err := committer.LoadDir(dir, committer.LoadOptions{}); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("escaping symlink: err = %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func withAuthor(name, email string) *committer.ChangeSet {
	cs := committer.NewChangeSet("m").Put("a", []byte("x"))
	cs.Author = &committer.Signature{Name: name, Email: email}
	return cs
}

// TestSyncRootSpelling (issue 18.9): only "." names the repository root
// for Sync. "" (an empty path variable), "/" and "./" (a prefix before an
// empty variable) are ErrInvalid before any request, through Commit on
// every engine, Plan and a Queue, and the branch keeps its other files;
// "." mirrors the root.
func TestSyncRootSpelling(t *testing.T) {
	local := []committer.LocalFile{{Path: "x", Mode: committer.ModeFile, Data: []byte("x\n")}}
	for _, dir := range []string{"", "/", "./", ".//", "//"} {
		t.Run("dir="+dir, func(t *testing.T) {
			ts, c := setup(t)
			before := seed(t, ts, map[string]string{"keep/me": "k\n", "other": "o\n"})
			q, err := committer.NewQueue(c, "main")
			must(t, err)
			try := map[string]func(*committer.ChangeSet) error{
				"queue": func(cs *committer.ChangeSet) error { _, err := q.Commit(context.Background(), cs); return err },
				"plan": func(cs *committer.ChangeSet) error {
					_, err := c.Plan(context.Background(), "main", cs)
					return err
				},
			}
			for _, e := range []committer.Engine{committer.EngineGitData, committer.EngineGraphQL, committer.EngineContents, committer.EngineAuto} {
				try[e.String()] = func(cs *committer.ChangeSet) error {
					_, err := c.Commit(context.Background(), "main", cs, committer.WithEngine(e))
					return err
				}
			}
			for name, f := range try {
				n := len(ts.Requests())
				err := f(committer.NewChangeSet("sync").Sync(dir, local))
				if !errors.Is(err, committer.ErrInvalid) || !strings.Contains(err.Error(), `"."`) {
					t.Errorf("%s: Sync(%q): err = %v, want ErrInvalid naming \".\" as the root", name, dir, err)
				}
				if got := len(ts.Requests()) - n; got != 0 {
					t.Errorf("%s: Sync(%q) sent %d requests before refusing", name, dir, got)
				}
			}
			if head(t, ts, "main") != before || readFile(t, ts, "main", "keep/me") != "k\n" {
				t.Errorf("Sync(%q) changed the branch", dir)
			}
		})
	}
	ts, c := setup(t)
	seed(t, ts, map[string]string{"keep/me": "k\n"})
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("sync").Sync(".", local)); err != nil {
		t.Fatal(err)
	}
	files, err := ts.Files(owner, repo, "main")
	must(t, err)
	if len(files) != 1 || string(files["x"].Content) != "x\n" {
		t.Errorf("Sync(\".\") left %v, want the root to mirror the local files", files)
	}
	// A trailing slash on a named directory is still that directory.
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("sync").Sync("d/", local)); err != nil {
		t.Fatal(err)
	}
	if readFile(t, ts, "main", "d/x") != "x\n" || readFile(t, ts, "main", "x") != "x\n" {
		t.Error(`Sync("d/") did not mirror d`)
	}
}
