package githubtest

import (
	"strings"
	"testing"
	"time"
)

// The commits of a merge, a squash and a rebase are the ones real git
// writes from the same trees, parents, authors, committers and messages:
// the trees by git merge-tree (merge, squash) and git cherry-pick
// (rebase), the commits by git commit-tree with the fake's signature.
func TestMergeCommitsAreGits(t *testing.T) {
	ts := NewServer(t)
	mergeRepo(t, ts, "o")
	ts.Pass(time.Minute)
	branchOff(t, ts, "o", "main", "feat", file("f1.txt", "f1\n"), file("dir/x.txt", "x\n"))
	branchOff(t, ts, "o", "main", "sq", file("b.txt", "b\n"), File{Path: "bin/run", Content: []byte("#!/bin/sh\n"), Mode: "100755"})
	branchOff(t, ts, "o", "main", "rb", file("c.txt", "c\n"), file("dir/y.txt", "y\n"), File{Path: "l", Content: []byte("c.txt"), Mode: "120000"})
	commitOn(t, ts, "o", "main", "main moves", file("a.txt", "a2\n"))
	feat, sq, rb := openPull(t, ts, "o", "feat", "main"), openPull(t, ts, "o", "sq", "main"), openPull(t, ts, "o", "rb", "main")
	o := newGitOracle(t, ts, "o")

	ts.Pass(time.Hour)
	base, head := mustHead(t, ts, "o", "main"), mustHead(t, ts, "o", "feat")
	expect(t, call(t, ts, "PUT", feat+"/merge", map[string]any{"sha": head}), 200, "")
	mc := mergedCommit(t, ts, o, feat, []string{base, head})
	if want := "Merge pull request #1 from acme/feat\n\nPull feat"; mc.Message != want {
		t.Errorf("merge commit message %q, want %q", mc.Message, want)
	}
	if mc.Author.Name != "The Octocat" || mc.Committer.Name != "GitHub" || mc.Committer.Email != "noreply@github.com" {
		t.Errorf("merge commit author %+v, committer %+v", mc.Author, mc.Committer)
	}

	base = mustHead(t, ts, "o", "main")
	expect(t, call(t, ts, "PUT", sq+"/merge", map[string]any{"merge_method": "squash"}), 200, "")
	sc := mergedCommit(t, ts, o, sq, []string{base, mustHead(t, ts, "o", "sq")})
	if want := "Pull sq (#2)\n\n* change b.txt\n\n* change bin/run"; sc.Message != want {
		t.Errorf("squash message %q, want %q", sc.Message, want)
	}

	base, head = mustHead(t, ts, "o", "main"), mustHead(t, ts, "o", "rb")
	expect(t, call(t, ts, "PUT", rb+"/merge", map[string]any{"merge_method": "rebase"}), 200, "")
	o.mirror(base)
	o.mirror(head)
	originals, _ := ts.History("acme", "o", head)
	rebased, _ := ts.History("acme", "o", "main")
	if len(rebased) < 4 || rebased[3].SHA != base {
		t.Fatalf("rebase did not put 3 commits on %s: %+v", base, rebased[:2])
	}
	tip := base
	for i := 2; i >= 0; i-- {
		nc, orig := rebased[i], originals[i]
		if nc.Author != orig.Author || nc.Message != orig.Message || nc.Committer.Name != "GitHub" {
			t.Errorf("rebased %q: author %+v message %q committer %+v", orig.Message, nc.Author, nc.Message, nc.Committer)
		}
		tree := o.cherryPick(tip, orig.SHA)
		if got := o.commit(tree, []string{tip}, nc); got != nc.SHA {
			t.Fatalf("rebased %q: git writes %s, the fake %s", orig.Message, got, nc.SHA)
		}
		tip = nc.SHA
	}
	if r := call(t, ts, "GET", rb, nil); r.str(t, "merge_commit_sha") != tip {
		t.Errorf("merge_commit_sha of a rebase %q, want the last rebased commit %s", r.str(t, "merge_commit_sha"), tip)
	}
}

// mergedCommit checks the pull request's merge_commit_sha is the base's
// new tip with parents and git's tree for merging them, and that git
// names it as the fake does; it returns the commit.
func mergedCommit(t *testing.T, ts *TestServer, o *gitOracle, pull string, parents []string) Commit {
	t.Helper()
	sha := call(t, ts, "GET", pull, nil).str(t, "merge_commit_sha")
	if tip := mustHead(t, ts, "o", "main"); tip != sha {
		t.Fatalf("main at %s, merge_commit_sha %s", tip, sha)
	}
	c, err := ts.Commit("acme", "o", sha)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parents {
		o.mirror(p)
	}
	if len(c.Parents) < 1 || c.Parents[0] != parents[0] || len(c.Parents) == 2 && c.Parents[1] != parents[1] {
		t.Fatalf("parents %v, want %v", c.Parents, parents)
	}
	tree, conflict := o.mergeTree(parents[0], parents[1])
	if conflict || tree != c.Tree {
		t.Fatalf("git merge-tree: %s (conflict %v), the fake's tree %s", tree, conflict, c.Tree)
	}
	if got := o.commit(tree, c.Parents, c); got != sha {
		t.Fatalf("git writes the commit as %s, the fake %s", got, sha)
	}
	if !strings.HasPrefix(c.PGPSignature, "-----BEGIN PGP SIGNATURE-----") {
		t.Errorf("not signed by GitHub: %q", c.PGPSignature)
	}
	checkWebFlowSignedIn(t, ts, "o", sha)
	return c
}

func mustHead(t testing.TB, ts *TestServer, repo, branch string) string {
	t.Helper()
	h, ok := ts.Head("acme", repo, branch)
	if !ok {
		t.Fatalf("no branch %s in %s", branch, repo)
	}
	return h
}

// checkWebFlowSignedIn checks GET git/commits says Verified.
func checkWebFlowSignedIn(t *testing.T, ts *TestServer, repo, sha string) {
	t.Helper()
	r := call(t, ts, "GET", "/repos/acme/"+repo+"/git/commits/"+sha, nil)
	validateReply(t, "git-get-commit", r.Status, r.Raw)
	if v := r.obj(t)["verification"].(map[string]any); v["verified"] != true {
		t.Errorf("commit %s: verification %v", sha, v)
	}
}
