package githubtest

import (
	"fmt"
	"testing"
)

// deleteOn deletes path on branch through the git data API.
func deleteOn(t testing.TB, ts *TestServer, repo, branch, path string) {
	t.Helper()
	rr := "/repos/acme/" + repo
	head := mustHead(t, ts, repo, branch)
	tree := call(t, ts, "POST", rr+"/git/trees", map[string]any{"base_tree": head,
		"tree": []any{map[string]any{"path": path, "mode": "100644", "type": "blob", "sha": nil}}})
	expect(t, tree, 201, "")
	c := call(t, ts, "POST", rr+"/git/commits", map[string]any{"message": "delete " + path + " on " + branch, "tree": tree.str(t, "sha"), "parents": []string{head}})
	expect(t, c, 201, "")
	expect(t, call(t, ts, "PATCH", rr+"/git/refs/heads/"+branch, map[string]any{"sha": c.str(t, "sha")}), 200, "")
}

// side is one side's change: files written, paths deleted.
type side struct {
	write []File
	del   []string
}

func (sd side) apply(t *testing.T, ts *TestServer, repo, branch string) {
	t.Helper()
	if len(sd.write) > 0 {
		commitOn(t, ts, repo, branch, branch+" changes", sd.write...)
	}
	for _, p := range sd.del {
		deleteOn(t, ts, repo, branch, p)
	}
}

// The path-level model agrees with git merge-tree --write-tree on the
// cases it covers: the same conflicts, and where there is none the same
// merged tree (the merge commit's).
func TestMergeModelAgreesWithGit(t *testing.T) {
	ts := NewServer(t)
	cases := []struct {
		name          string
		ours, theirs  side
		wantConflicts bool
	}{
		{"disjoint files", side{write: []File{file("a.txt", "a2\n")}}, side{write: []File{file("b.txt", "b\n")}}, false},
		{"same change on both sides", side{write: []File{file("shared.txt", "x\n")}}, side{write: []File{file("shared.txt", "x\n")}}, false},
		{"both delete", side{del: []string{"shared.txt"}}, side{del: []string{"shared.txt"}}, false},
		{"one side deletes, other untouched", side{del: []string{"a.txt"}}, side{write: []File{file("n/new.txt", "n\n")}}, false},
		{"different contents", side{write: []File{file("shared.txt", "ours\n")}}, side{write: []File{file("shared.txt", "theirs\n")}}, true},
		{"delete and modify", side{del: []string{"shared.txt"}}, side{write: []File{file("shared.txt", "theirs\n")}}, true},
		{"add and add", side{write: []File{file("new.txt", "1\n")}}, side{write: []File{file("new.txt", "2\n")}}, true},
		{"file and directory", side{write: []File{file("d", "file\n")}}, side{write: []File{file("d/x", "in dir\n")}}, true},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repo := fmt.Sprintf("model%d", i)
			mergeRepo(t, ts, repo)
			branchOff(t, ts, repo, "main", "topic")
			c.theirs.apply(t, ts, repo, "topic")
			c.ours.apply(t, ts, repo, "main")
			pull := openPull(t, ts, repo, "topic", "main")
			o := newGitOracle(t, ts, repo)
			base, head := mustHead(t, ts, repo, "main"), mustHead(t, ts, repo, "topic")
			o.mirror(base)
			o.mirror(head)
			gitTree, gitConflict := o.mergeTree(base, head)
			mergeable, _, state := pullState(t, ts, pull)
			if gitConflict != c.wantConflicts || (state == "dirty") != c.wantConflicts || mergeable != !c.wantConflicts {
				t.Fatalf("git conflict %v, fake mergeable %v state %s; want conflict %v", gitConflict, mergeable, state, c.wantConflicts)
			}
			if c.wantConflicts {
				expect(t, call(t, ts, "PUT", pull+"/merge", nil), 405, "Pull Request is not mergeable")
				return
			}
			expect(t, call(t, ts, "PUT", pull+"/merge", nil), 200, "")
			mc, err := ts.Commit("acme", repo, mustHead(t, ts, repo, "main"))
			if err != nil || mc.Tree != gitTree {
				t.Fatalf("merged tree %s, git merge-tree %s (%v)", mc.Tree, gitTree, err)
			}
		})
	}
}
