package committer_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// hostileNames is the one table of names that must reach GitHub exactly as
// asked, through every endpoint that carries a file path (contents
// PUT/DELETE, GraphQL fileChanges, tree entries) or a branch name
// (branches/{b}, git/ref/heads/{b}, git/refs/heads/{b}, POST git/refs,
// GraphQL refs, pull requests). Each name is tried as the last segment of a
// file path ("docs/"+name) and of a branch name ("feat/"+name).
//
// The verdicts are real git's, and TestHostileNamesAgreeWithGit holds the
// table to them when git is installed:
//   - file: git keeps the name in a tree (git update-index with
//     core.protectNTFS and core.protectHFS on accepts it). Git refuses only
//     NUL; "/" separates segments. GitHub's documentation names no other
//     character a path may not hold, and its API decodes percent-escapes in
//     the URL path segment by segment and carries any UTF-8 string in JSON.
//     So every name git accepts must land exactly, control characters
//     included; the library refuses, before any request, only what git
//     refuses and what JSON cannot carry (invalid UTF-8).
//   - branch: `git check-ref-format --branch feat/NAME` accepts it (the
//     library's ValidateBranch refuses exactly those, before any request).
var hostileNames = []struct {
	name         string
	file, branch bool
}{
	{"C#.md", true, true},         // '#' starts a URL fragment: sent as is, GitHub reads "docs/C"
	{"a?b", true, false},          // '?' starts a query; git refuses '?' in a ref
	{"100%", true, true},          // a lone '%': not a valid escape
	{"%", true, true},             //
	{"%zz", true, true},           // '%' followed by non-hex: a malformed escape
	{"%41", true, true},           // a valid escape: sent as is, GitHub reads "A"
	{"%2F", true, true},           // an escaped slash: sent as is, GitHub reads a directory
	{"a%2Fb", true, true},         //
	{"%25", true, true},           // an escaped '%': decoded twice it is '%'
	{"with space", true, false},   // git refuses a space in a ref
	{" lead", true, false},        //
	{"a+b", true, true},           // '+' is a space in a query, not in a path
	{"ünïcødé-日本-🙂", true, true},  // multi-byte UTF-8
	{"trailing.", true, false},    // a trailing dot (Windows drops it); git refuses it in a ref
	{"line\nbreak", true, false},  // a newline: git keeps it in a tree, refuses it in a ref
	{"tab\tx", true, false},       // another control character
	{"cr\rx", true, false},        //
	{"semi;colon", true, true},    // ';' separates path parameters in RFC 3986
	{"a&b=c", true, true},         // query syntax in a path
	{"a,b", true, true},           //
	{`back\slash`, true, false},   // a path separator on Windows; git refuses it in a ref
	{"..x", true, false},          // not a ".." segment; git refuses ".." anywhere in a ref
	{"-leading", true, true},      // an option to a command line; fine as a later segment
	{".hidden", true, false},      // git refuses a ref segment starting with '.'
	{"x:y", true, false},          // a colon: a URL scheme in a first segment; git refuses it in a ref
	{"q'\"", true, true},          // quotes
	{"<a>|b", true, true},         //
	{"a*b", true, false},          // a glob; git refuses '*' in a ref
	{"@", true, true},             // "@" alone is refused as a whole ref, not as a segment
	{"x.lock", true, false},       // git refuses a ref segment ending in ".lock"
	{"{x}", true, true},           // braces
	{"nul\x00byte", false, false}, // git cannot hold a NUL in a name
	{"bad\xffutf8", false, false}, // not UTF-8: JSON (GitHub's API) cannot carry it
}

// misread is what a server reads as the path when p is put into a URL
// path as is: the fragment and query cut off, the escapes decoded. ""
// when no URL can be built from it.
func misread(p string) string {
	u, err := url.Parse("https://example.com/c/" + p)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/c/")
}

// hostileOp is one operation of the table test on the file at path p.
type hostileOp struct {
	name   string
	seeded bool // p holds "old\n" before the operation
	cs     func(p string) *committer.ChangeSet
	want   *string // p's content after it; nil: absent
	fails  error   // the error the commit must end with (nothing changes)
}

func str(s string) *string { return &s }

var hostileOps = []hostileOp{
	{name: "put", cs: func(p string) *committer.ChangeSet { return committer.NewChangeSet("put").Put(p, []byte("new\n")) }, want: str("new\n")},
	{name: "delete", seeded: true, cs: func(p string) *committer.ChangeSet { return committer.NewChangeSet("delete").Delete(p) }},
	{name: "edit", seeded: true, cs: func(p string) *committer.ChangeSet {
		return committer.NewChangeSet("edit").Edit(p, appendLine("edited"))
	}, want: str("old\nedited\n")},
	{name: "expect-blob", seeded: true, cs: func(p string) *committer.ChangeSet {
		return committer.NewChangeSet("expect blob").ExpectBlob(p, committer.BlobSHA([]byte("old\n"))).Put(p, []byte("new\n"))
	}, want: str("new\n")},
	{name: "expect-absent", cs: func(p string) *committer.ChangeSet {
		return committer.NewChangeSet("expect absent").ExpectAbsent(p).Put(p, []byte("new\n"))
	}, want: str("new\n")},
	{name: "expect-absent-fails", seeded: true, cs: func(p string) *committer.ChangeSet {
		return committer.NewChangeSet("expect absent").ExpectAbsent(p).Put(p, []byte("new\n"))
	}, want: str("old\n"), fails: committer.ErrConflict},
	{name: "expect-blob-fails", seeded: true, cs: func(p string) *committer.ChangeSet {
		return committer.NewChangeSet("expect blob").ExpectBlob(p, committer.BlobSHA([]byte("other\n"))).Delete(p)
	}, want: str("old\n"), fails: committer.ErrConflict},
}

// snapshot returns the branch's files as path → content.
func snapshot(t *testing.T, ts *githubtest.TestServer, ref string) map[string]string {
	t.Helper()
	fs, err := ts.Files(owner, repo, ref)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for p, f := range fs {
		out[p] = string(f.Content)
	}
	return out
}

// diffFiles describes how got differs from want, "" when it does not.
func diffFiles(want, got map[string]string) string {
	var d []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			d = append(d, fmt.Sprintf("%q missing (want %q)", p, w))
		} else if g != w {
			d = append(d, fmt.Sprintf("%q = %q, want %q", p, g, w))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			d = append(d, fmt.Sprintf("%q = %q is not wanted", p, g))
		}
	}
	sort.Strings(d)
	return strings.Join(d, "; ")
}

// TestHostileFileNames: every operation on a file of every hostile name, on
// every engine, changes exactly that file. A decoy sits where a client
// that sends the path unescaped would write (docs/C for docs/C#.md), with
// the same content, so that such a client's delete or guarded write would
// succeed on the wrong file; a name git refuses is refused before any
// request.
func TestHostileFileNames(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			for _, hn := range hostileNames {
				t.Run(fmt.Sprintf("%q", hn.name), func(t *testing.T) {
					hostileFileOps(t, e, false, hn.name, hn.file)
				})
			}
		})
	}
	// A Queue's batches: Git Data, and GraphQL (squashed).
	for _, e := range []committer.Engine{committer.EngineGitData, committer.EngineGraphQL} {
		t.Run("queue-"+e.String(), func(t *testing.T) {
			for _, hn := range hostileNames {
				t.Run(fmt.Sprintf("%q", hn.name), func(t *testing.T) {
					hostileFileOps(t, e, true, hn.name, hn.file)
				})
			}
		})
	}
}

func hostileFileOps(t *testing.T, e committer.Engine, queued bool, name string, valid bool) {
	ts, c := setup(t)
	commit := func(cs *committer.ChangeSet) (*committer.Result, error) { return engineCommit(t, c, e, cs) }
	if queued {
		opts := []committer.CommitOption{committer.WithEngine(e)}
		if e == committer.EngineGraphQL {
			opts = append(opts, committer.Squash())
		}
		q, err := committer.NewQueue(c, "main", opts...)
		if err != nil {
			t.Fatal(err)
		}
		commit = func(cs *committer.ChangeSet) (*committer.Result, error) { return q.Commit(context.Background(), cs) }
	}
	pathOf := func(op hostileOp) string { return op.name + "/docs/" + name }
	seedFiles := map[string]string{"README.md": "hello\n"}
	for _, op := range hostileOps {
		p := pathOf(op)
		if !valid || !op.seeded {
			continue
		}
		seedFiles[p] = "old\n"
	}
	for _, op := range hostileOps {
		// The decoys go in after the files, and never over one.
		if d := misread(pathOf(op)); valid && d != "" && d != pathOf(op) && committer.ValidatePath(d) == nil && !strings.HasPrefix(d+"/", pathOf(op)+"/") {
			if _, taken := seedFiles[d]; !taken {
				seedFiles[d] = "old\n"
			}
		}
	}
	seed(t, ts, seedFiles)
	for _, op := range hostileOps {
		p := pathOf(op)
		before := snapshot(t, ts, "main")
		ts.ResetRequests()
		res, err := commit(op.cs(p))
		after := snapshot(t, ts, "main")
		if !valid {
			if !errors.Is(err, committer.ErrInvalid) {
				t.Errorf("%s %q: err = %v, want ErrInvalid", op.name, p, err)
			}
			if n := len(ts.Requests()); n != 0 {
				t.Errorf("%s %q: %d requests sent before the refusal", op.name, p, n)
			}
			if d := diffFiles(before, after); d != "" {
				t.Errorf("%s %q: a refused change set changed the branch: %s", op.name, p, d)
			}
			continue
		}
		want := map[string]string{}
		for k, v := range before {
			want[k] = v
		}
		delete(want, p)
		if op.want != nil {
			want[p] = *op.want
		}
		if op.fails != nil {
			if !errors.Is(err, op.fails) {
				t.Errorf("%s %q: err = %v, want %v", op.name, p, err, op.fails)
			}
		} else if err != nil {
			t.Errorf("%s %q: %v", op.name, p, err)
		} else if len(res.Changed) != 1 || res.Changed[0] != p {
			t.Errorf("%s %q: Changed = %q", op.name, p, res.Changed)
		}
		if d := diffFiles(want, after); d != "" {
			t.Errorf("%s %q through %s: %s", op.name, p, e, d)
		}
		// What reached the server: the path, escaped, decoding to p.
		for _, r := range ts.Requests() {
			if r.Route != routePutContents && r.Route != routeDelContents {
				continue
			}
			if got, err := url.PathUnescape(r.RawPath); err != nil || got != "/repos/"+owner+"/"+repo+"/contents/"+p || r.RawQuery != "" {
				t.Errorf("%s %q: %s sent to %q?%q", op.name, p, r.Method, r.RawPath, r.RawQuery)
			}
		}
	}
	checkFastForwardOnly(t, ts)
}

// TestHostileFileNamesBootstrap: an empty repository's first commit (the
// contents API, whatever the engine) holds exactly the asked file, under a
// precondition too.
func TestHostileFileNamesBootstrap(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			for _, hn := range hostileNames {
				t.Run(fmt.Sprintf("%q", hn.name), func(t *testing.T) {
					ts := githubtest.NewServer(t)
					if err := ts.CreateRepo(owner, repo, false); err != nil {
						t.Fatal(err)
					}
					c, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(noSleep))
					if err != nil {
						t.Fatal(err)
					}
					p := "docs/" + hn.name
					res, err := engineCommit(t, c, e, committer.NewChangeSet("first").ExpectAbsent(p).Put(p, []byte("first\n")))
					if !hn.file {
						if !errors.Is(err, committer.ErrInvalid) || len(ts.Requests()) != 0 {
							t.Errorf("err = %v after %d requests, want ErrInvalid before any", err, len(ts.Requests()))
						}
						if _, ok := ts.Head(owner, repo, "main"); ok {
							t.Error("a refused change set started the repository")
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if !res.Bootstrapped {
						t.Errorf("not bootstrapped: %+v", res)
					}
					if d := diffFiles(map[string]string{p: "first\n"}, snapshot(t, ts, "main")); d != "" {
						t.Errorf("first commit: %s", d)
					}
					// The repository goes on from there.
					q := "more/" + hn.name
					if _, err := engineCommit(t, c, e, committer.NewChangeSet("second").Put(q, []byte("q\n"))); err != nil {
						t.Fatal(err)
					}
					if _, err := engineCommit(t, c, e, committer.NewChangeSet("third").Delete(p)); err != nil {
						t.Fatal(err)
					}
					if d := diffFiles(map[string]string{q: "q\n"}, snapshot(t, ts, "main")); d != "" {
						t.Errorf("after the first commit: %s", d)
					}
				})
			}
		})
	}
}

// TestHostileBranchNames: commits to a branch of every hostile name, on
// every engine — creating it, building on it, settling a lost reply on it,
// branching from it, a Queue and a pull request on it — land there and
// nowhere else; a name git refuses is refused before any request.
func TestHostileBranchNames(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			for _, hn := range hostileNames {
				t.Run(fmt.Sprintf("%q", hn.name), func(t *testing.T) {
					hostileBranch(t, e, "feat/"+hn.name, hn.branch)
				})
			}
		})
	}
}

func hostileBranch(t *testing.T, e committer.Engine, branch string, valid bool) {
	ctx := context.Background()
	ts, c := setup(t)
	base := head(t, ts, "main")
	with := func(opts ...committer.CommitOption) []committer.CommitOption {
		return append([]committer.CommitOption{committer.WithEngine(e)}, opts...)
	}
	ts.ResetRequests()
	res, err := c.Commit(ctx, branch, committer.NewChangeSet("create").Put("f", []byte("1\n")), with(committer.CreateBranchFrom("main"))...)
	if !valid {
		if !errors.Is(err, committer.ErrInvalid) || len(ts.Requests()) != 0 {
			t.Errorf("err = %v after %d requests, want ErrInvalid before any", err, len(ts.Requests()))
		}
		if _, err := committer.NewQueue(c, branch); !errors.Is(err, committer.ErrInvalid) {
			t.Errorf("NewQueue: err = %v, want ErrInvalid", err)
		}
		if _, err := c.CommitPullRequest(ctx, "main", branch, committer.NewChangeSet("pr").Put("f", []byte("f")), committer.PullRequestOptions{}); !errors.Is(err, committer.ErrInvalid) {
			t.Errorf("CommitPullRequest: err = %v, want ErrInvalid", err)
		}
		if n := len(ts.Requests()); n != 0 {
			t.Errorf("%d requests sent for a refused branch name", n)
		}
		checkOnlyBranches(t, ts, "main")
		return
	}
	if err != nil {
		t.Fatalf("create %q: %v", branch, err)
	}
	if !res.CreatedBranch || res.Parent != base || head(t, ts, branch) != res.Commit {
		t.Errorf("create %q: result %+v, head %s, base %s", branch, res, head(t, ts, branch), base)
	}
	// Built on the existing branch: its head read, then moved.
	if _, err := c.Commit(ctx, branch, committer.NewChangeSet("second").Put("g", []byte("2\n")), with()...); err != nil {
		t.Fatalf("second commit on %q: %v", branch, err)
	}
	// A lost reply, settled by reading the branch.
	dropNextWrite(ts, e)
	if _, err := c.Commit(ctx, branch, committer.NewChangeSet("third").Edit("f", appendLine("edited")), with()...); err != nil {
		t.Fatalf("lost reply on %q: %v", branch, err)
	}
	ts.ClearFaults()
	want := snapshot(t, ts, "main")
	want["f"], want["g"] = "1\nedited\n", "2\n"
	if d := diffFiles(want, snapshot(t, ts, branch)); d != "" {
		t.Errorf("%q: %s", branch, d)
	}
	if head(t, ts, "main") != base {
		t.Errorf("main moved: %s, was %s", head(t, ts, "main"), base)
	}
	// Branched from it.
	from, err := c.Commit(ctx, "copy", committer.NewChangeSet("copy").Put("h", []byte("3\n")), with(committer.CreateBranchFrom(branch))...)
	if err != nil {
		t.Fatalf("branch from %q: %v", branch, err)
	}
	if from.Parent != head(t, ts, branch) {
		t.Errorf("copy's parent %s, %q is at %s", from.Parent, branch, head(t, ts, branch))
	}
	// A Queue on it (Git Data; GraphQL squashes).
	var qopts []committer.CommitOption
	switch e {
	case committer.EngineGraphQL:
		qopts = []committer.CommitOption{committer.WithEngine(e), committer.Squash()}
	case committer.EngineGitData:
		qopts = []committer.CommitOption{committer.WithEngine(e)}
	}
	if qopts != nil {
		q, err := committer.NewQueue(c, branch, qopts...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := q.Commit(ctx, committer.NewChangeSet("queued").Put("q", []byte("q\n"))); err != nil {
			t.Fatalf("queue on %q: %v", branch, err)
		}
		if got := readFile(t, ts, branch, "q"); got != "q\n" {
			t.Errorf("queued q = %q", got)
		}
	}
	// A pull request from it (always the default engine).
	if e == committer.EngineGitData {
		pr, err := c.CommitPullRequest(ctx, "main", branch, committer.NewChangeSet("pr").Put("p", []byte("p\n")), committer.PullRequestOptions{})
		if err != nil {
			t.Fatalf("pull request from %q: %v", branch, err)
		}
		if !pr.Created || pr.Number == 0 || pr.Commit.Commit != head(t, ts, branch) {
			t.Errorf("pull request %+v; %q at %s", pr, branch, head(t, ts, branch))
		}
		// Reused: found again by its head's name.
		again, err := c.CommitPullRequest(ctx, "main", branch, committer.NewChangeSet("pr2").Put("p2", []byte("p\n")), committer.PullRequestOptions{})
		if err != nil || again.Created || again.Number != pr.Number {
			t.Errorf("second pull request from %q: %+v, %v; want #%d reused", branch, again, err, pr.Number)
		}
	}
	checkOnlyBranches(t, ts, "main", branch, "copy")
	checkFastForwardOnly(t, ts)
}

// checkOnlyBranches fails if a ref other than these branches was ever
// written.
func checkOnlyBranches(t *testing.T, ts *githubtest.TestServer, branches ...string) {
	t.Helper()
	ok := map[string]bool{}
	for _, b := range branches {
		ok["refs/heads/"+b] = true
	}
	for _, u := range ts.RefUpdates(owner, repo) {
		if !ok[u.Ref] {
			t.Errorf("ref %q was written (%s -> %s)", u.Ref, u.Old, u.New)
		}
	}
}

// TestHostileNamesAgreeWithGit holds the table's verdicts to real git's:
// a name without NUL and in UTF-8 is a file name exactly when git
// update-index takes it, and a branch segment exactly when git
// check-ref-format --branch takes it; the others are refused by the table.
func TestHostileNamesAgreeWithGit(t *testing.T) {
	g := newGitRepo(t)
	blob := strings.TrimSpace(g.git("hash-object", "-w", "--stdin"))
	for _, hn := range hostileNames {
		if strings.IndexByte(hn.name, 0) >= 0 || !utf8.ValidString(hn.name) {
			if hn.file || hn.branch {
				t.Errorf("%q: neither git (NUL) nor GitHub's JSON (invalid UTF-8) can carry it; the table must refuse it", hn.name)
			}
			continue
		}
		_, ferr := g.try([]byte("100644 "+blob+"\tdocs/"+hn.name+"\x00"), "update-index", "-z", "--add", "--index-info")
		if hn.file != (ferr == nil) {
			t.Errorf("%q: table says file=%v, git update-index says %v", hn.name, hn.file, ferr)
		}
		_, berr := g.try(nil, "check-ref-format", "--branch", "feat/"+hn.name)
		if hn.branch != (berr == nil) {
			t.Errorf("%q: table says branch=%v, git check-ref-format says %v", hn.name, hn.branch, berr)
		}
	}
}
