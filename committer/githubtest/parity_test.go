package githubtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"
)

// gitRepo is a scratch repository driven through the git CLI.
type gitRepo struct {
	t   *testing.T
	dir string
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	g := &gitRepo{t: t, dir: t.TempDir()}
	g.run(nil, nil, "init", "-q")
	return g
}

func (g *gitRepo) run(stdin []byte, env []string, args ...string) string {
	g.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = g.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+g.dir)
	cmd.Env = append(cmd.Env, env...)
	if stdin != nil {
		cmd.Stdin = strings.NewReader(string(stdin))
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (g *gitRepo) blob(content []byte) string {
	return g.run(content, nil, "hash-object", "-w", "--stdin")
}

// tree builds nested trees bottom-up with git mktree.
func (g *gitRepo) tree(entries []treeVectorEntry) string {
	type item struct{ mode, typ, sha, name string }
	var items []item
	sub := map[string][]treeVectorEntry{}
	for _, e := range entries {
		if i := strings.IndexByte(e.Path, '/'); i >= 0 {
			d := e.Path[:i]
			e.Path = e.Path[i+1:]
			sub[d] = append(sub[d], e)
			continue
		}
		if e.SHA != "" {
			items = append(items, item{e.Mode, "commit", e.SHA, e.Path})
			continue
		}
		raw, _ := base64.StdEncoding.DecodeString(e.Content)
		items = append(items, item{e.Mode, "blob", g.blob(raw), e.Path})
	}
	for d, es := range sub {
		items = append(items, item{"040000", "tree", g.tree(es), d})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].name < items[j].name })
	var in strings.Builder
	for _, it := range items {
		fmt.Fprintf(&in, "%s %s %s\t%s\n", it.mode, it.typ, it.sha, it.name)
	}
	return g.run([]byte(in.String()), nil, "mktree")
}

func gitDate(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf("@%d %s", t.Unix(), t.Format("-0700"))
}

func gitSig(s sigVector) string {
	return fmt.Sprintf("%s <%s> %s", s.Name, s.Email, strings.TrimPrefix(strings.Replace(gitDate(s.Date), "@", "", 1), ""))
}

// commit creates the commit with git commit-tree, or, when signed, hashes
// the raw object (as git writes a gpgsig header) with git hash-object.
func (g *gitRepo) commit(c commitVector, tree string, parents []string) string {
	if c.Signature == "" {
		args := []string{"commit-tree", tree}
		for _, p := range parents {
			args = append(args, "-p", p)
		}
		env := []string{
			"GIT_AUTHOR_NAME=" + c.Author.Name, "GIT_AUTHOR_EMAIL=" + c.Author.Email, "GIT_AUTHOR_DATE=" + gitDate(c.Author.Date),
			"GIT_COMMITTER_NAME=" + c.Committer.Name, "GIT_COMMITTER_EMAIL=" + c.Committer.Email, "GIT_COMMITTER_DATE=" + gitDate(c.Committer.Date),
		}
		return g.run([]byte(c.Message), env, args...)
	}
	var raw strings.Builder
	fmt.Fprintf(&raw, "tree %s\n", tree)
	for _, p := range parents {
		fmt.Fprintf(&raw, "parent %s\n", p)
	}
	fmt.Fprintf(&raw, "author %s\ncommitter %s\n", gitSig(c.Author), gitSig(c.Committer))
	sig := strings.TrimSuffix(c.Signature, "\n")
	raw.WriteString("gpgsig " + strings.ReplaceAll(sig, "\n", "\n ") + "\n")
	raw.WriteString("\n" + c.Message)
	return g.run([]byte(raw.String()), nil, "hash-object", "-t", "commit", "-w", "--stdin")
}

func gitHashes(t *testing.T, v vectorFile) map[string]string {
	g := newGitRepo(t)
	got := map[string]string{}
	for _, b := range v.Blobs {
		raw, _ := base64.StdEncoding.DecodeString(b.Content)
		got["blob:"+b.Name] = g.blob(raw)
	}
	for _, tv := range v.Trees {
		got["tree:"+tv.Name] = g.tree(tv.Entries)
	}
	for _, c := range v.Commits {
		var parents []string
		for _, p := range c.ParentsOf {
			parents = append(parents, got["commit:"+p])
		}
		got["commit:"+c.Name] = g.commit(c, got["tree:"+c.TreeOf], parents)
	}
	return got
}

// TestGitParity compares the fake with real git on the vector inputs, and
// rewrites vectors.json from git when GITHUBTEST_WRITE_VECTORS=1.
func TestGitParity(t *testing.T) {
	v := loadVectors(t)
	want := gitHashes(t, v)
	got := fakeHashes(t, v)
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: fake %s, git %s", k, got[k], w)
		}
	}
	if os.Getenv("GITHUBTEST_WRITE_VECTORS") != "1" {
		return
	}
	for i := range v.Blobs {
		v.Blobs[i].SHA = want["blob:"+v.Blobs[i].Name]
	}
	for i := range v.Trees {
		v.Trees[i].SHA = want["tree:"+v.Trees[i].Name]
	}
	for i := range v.Commits {
		v.Commits[i].SHA = want["commit:"+v.Commits[i].Name]
	}
	out, _ := json.MarshalIndent(v, "", "  ")
	if err := os.WriteFile(vectorsPath, append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
