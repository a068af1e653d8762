package cli

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// gitRepo is a local checkout made for a test, with its own global
// configuration (excludes file included), so that the user's own git
// configuration plays no part.
type gitRepo struct {
	t    *testing.T
	dir  string
	home string   // HOME, holding gitconfig (GIT_CONFIG_GLOBAL) and excludes
	env  []string // GIT_CONFIG_GLOBAL and friends, for git and for the CLI
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	home := t.TempDir()
	dir := filepath.Join(t.TempDir(), "checkout")
	excludes := filepath.Join(home, "excludes")
	writeFile(t, excludes, "*.swp\n.DS_Store\n", 0o644)
	cfg := filepath.Join(home, "gitconfig")
	writeFile(t, cfg, "[user]\n\tname = T\n\temail = t@example.com\n[core]\n\texcludesFile = "+excludes+"\n[init]\n\tdefaultBranch = main\n", 0o644)
	g := &gitRepo{t: t, dir: dir, home: home, env: []string{"GIT_CONFIG_GLOBAL=" + cfg, "GIT_CONFIG_NOSYSTEM=1", "HOME=" + home, "XDG_CONFIG_HOME="}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	g.git("init", "-q")
	return g
}

func (g *gitRepo) git(args ...string) string {
	g.t.Helper()
	return g.gitEnv(nil, args...)
}

func (g *gitRepo) gitEnv(extra []string, args ...string) string {
	g.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = g.dir
	cmd.Env = append(append(os.Environ(), g.env...), extra...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (g *gitRepo) write(p, content string, perm os.FileMode) {
	g.t.Helper()
	writeFile(g.t, filepath.Join(g.dir, p), content, perm)
	if err := os.Chmod(filepath.Join(g.dir, p), perm); err != nil {
		g.t.Fatal(err)
	}
}

// headFiles is HEAD's tree as files to seed the fake with.
func (g *gitRepo) headFiles() []githubtest.File {
	g.t.Helper()
	var files []githubtest.File
	for _, rec := range strings.Split(g.git("ls-tree", "-r", "-z", "HEAD"), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		content := g.git("cat-file", "blob", f[2])
		files = append(files, githubtest.File{Path: p, Content: []byte(content), Mode: f[0]})
	}
	return files
}

// cliEnv is a CLI whose git commands see the repository's configuration.
func (g *gitRepo) cli() *cli {
	c := newCLI(g.t)
	for _, kv := range g.env {
		k, v, _ := strings.Cut(kv, "=")
		c.env[k] = v
	}
	return c
}

// statusPaths is the set of paths real `git status --porcelain` reports.
func (g *gitRepo) statusPaths() []string {
	var paths []string
	for _, rec := range strings.Split(g.git("-c", "core.quotePath=false", "status", "--porcelain", "-z", "--untracked-files=all", "--no-renames"), "\x00") {
		if len(rec) > 3 && !slices.Contains(paths, rec[3:]) {
			paths = append(paths, rec[3:])
		}
	}
	sort.Strings(paths)
	return paths
}

// addAll is what `git add -A` would commit, computed in a scratch index:
// the tree's SHA and the paths that differ from HEAD. The copy keeps the
// index's mtime: git trusts an entry's stat data only when the file's
// mtime is older than the index's, and a copy made a second later would
// make racily clean entries (a same-size change in the second the index
// was written) look clean.
func (g *gitRepo) addAll() (tree string, changed []string) {
	g.t.Helper()
	idx := filepath.Join(g.t.TempDir(), "index")
	orig := filepath.Join(g.dir, ".git", "index")
	data, err := os.ReadFile(orig)
	if err != nil {
		g.t.Fatal(err)
	}
	info, err := os.Stat(orig)
	if err != nil {
		g.t.Fatal(err)
	}
	if err := os.WriteFile(idx, data, 0o644); err != nil {
		g.t.Fatal(err)
	}
	if err := os.Chtimes(idx, info.ModTime(), info.ModTime()); err != nil {
		g.t.Fatal(err)
	}
	env := []string{"GIT_INDEX_FILE=" + idx}
	g.gitEnv(env, "add", "-A")
	tree = strings.TrimSpace(g.gitEnv(env, "write-tree"))
	for _, p := range strings.Split(g.gitEnv(env, "-c", "core.quotePath=false", "diff", "--cached", "--no-renames", "--name-only", "-z", "HEAD"), "\x00") {
		if p != "" {
			changed = append(changed, p)
		}
	}
	sort.Strings(changed)
	return tree, changed
}

// genCheckout builds a checkout from seed: nested .gitignore files with
// negations, ignored directories, a tracked file an ignore rule matches,
// .git/info/exclude and a global excludes file; then changes it at random:
// files added (ignored or not), modified, deleted, made executable, staged,
// removed from the index.
func genCheckout(t *testing.T, seed uint64) *gitRepo {
	g := newGitRepo(t)
	r := rand.New(rand.NewPCG(seed, seed*7+1))
	// Half the seeds keep the global excludes in git's default place,
	// ~/.config/git/ignore, with no core.excludesFile; a third of them
	// set core.fileMode=false, so that chmods are not changes.
	if seed%2 == 1 {
		g.xdgExcludes("*.swp\n.DS_Store\n")
	}
	if seed%3 == 0 {
		g.git("config", "core.fileMode", "false")
	}
	g.write(".gitignore", "node_modules/\n*.log\n!keep.log\nbuild/\n.env\n/tmp*\n", 0o644)
	g.write("a/.gitignore", "*.bak\n!important.bak\nb/secret*\n", 0o644)
	g.write("src/.gitignore", "gen/*\n!gen/keep.txt\n", 0o644)
	g.write(".git/info/exclude", "local-only.txt\n", 0o644)
	dirs := []string{"", "a/", "a/b/", "src/", "src/gen/", "node_modules/", "build/", "docs/deep/er/"}
	names := []string{"f1.txt", "f2.txt", "x.log", "keep.log", "y.bak", "important.bak", "secret1", ".env", "tmp1", "local-only.txt", "z.swp", "keep.txt", "run.sh"}
	var pool []string
	for _, d := range dirs {
		for _, n := range names {
			pool = append(pool, d+n)
		}
	}
	// HEAD: a random part of the pool, plus a tracked file an ignore rule
	// matches (added with -f).
	for _, p := range pool {
		if r.IntN(3) == 0 {
			g.write(p, fmt.Sprintf("%s at HEAD %d\n", p, r.IntN(1000)), 0o644)
		}
	}
	g.write("build/tracked.txt", "tracked though ignored\n", 0o644)
	g.write("a/old.bak", "tracked though ignored\n", 0o644)
	g.git("add", "-A")
	g.git("add", "-f", "build/tracked.txt", "a/old.bak")
	g.git("commit", "-q", "-m", "HEAD")
	tracked := map[string]bool{}
	for _, p := range strings.Split(g.git("ls-files", "-z"), "\x00") {
		tracked[p] = true
	}
	pool = append(pool, "build/tracked.txt", "a/old.bak")
	for _, p := range pool {
		full := filepath.Join(g.dir, p)
		_, err := os.Lstat(full)
		exists := err == nil
		switch k := r.IntN(8); {
		case k == 0 && !exists, k == 1 && !exists:
			g.write(p, "new "+p+"\n", 0o644)
			if r.IntN(3) == 0 {
				g.git("add", "-f", p) // staged even if ignored: tracked now
			}
		case k == 0 && exists:
			g.write(p, fmt.Sprintf("modified %s %d\n", p, r.IntN(1000)), 0o644)
			if r.IntN(3) == 0 {
				g.git("add", "-f", p)
			}
		case k == 1 && exists:
			if err := os.Remove(full); err != nil {
				t.Fatal(err)
			}
		case k == 2 && exists:
			if err := os.Chmod(full, 0o755); err != nil {
				t.Fatal(err)
			}
		case k == 3 && exists && tracked[p]:
			g.git("rm", "-q", "--cached", p) // untracked now: ignored or not
		}
	}
	// A tracked file an ignore rule matches, removed from the index but
	// left on disk: git add -A deletes it.
	if seed%2 == 0 {
		if _, err := os.Lstat(filepath.Join(g.dir, "build/tracked.txt")); err == nil {
			g.git("rm", "-q", "--cached", "build/tracked.txt")
		}
	}
	// A new nested ignore file, and a directory it ignores.
	if r.IntN(2) == 0 {
		g.write("docs/.gitignore", "deep/\n", 0o644)
	}
	return g
}

func TestChangedMatchesGitStatus(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := genCheckout(t, seed)
			srv := fake(t, g.headFiles()...)
			if h, _ := srv.Commit("acme", "mono", head(t, srv, "main")); h.Tree != strings.TrimSpace(g.git("rev-parse", "HEAD^{tree}")) {
				t.Fatalf("the fake's tree %s is not the checkout's HEAD tree", h.Tree)
			}
			wantTree, wantChanged := g.addAll()
			status := g.statusPaths()
			t.Chdir(g.dir)
			c := g.cli()

			// The dry run lists every path git status reports, and only
			// those: what differs from the branch as added, modified or
			// deleted, exactly what git add -A would change.
			dry := c.run(commitArgs(srv, "-m", "changed", "--changed", "--dry-run", "--json")...)
			dry.wantCode(t, 0)
			var plan struct {
				Files []struct{ Path, Action string }
			}
			if err := json.Unmarshal([]byte(dry.stdout), &plan); err != nil {
				t.Fatalf("%v\n%s", err, dry.stdout)
			}
			var listed, differ []string
			for _, f := range plan.Files {
				listed = append(listed, f.Path)
				if f.Action != "unchanged" {
					differ = append(differ, f.Path)
				}
			}
			sort.Strings(listed)
			sort.Strings(differ)
			if !slices.Equal(listed, status) {
				t.Errorf("--changed took\n  %q\ngit status --porcelain reports\n  %q", listed, status)
			}
			if !slices.Equal(differ, wantChanged) {
				t.Errorf("--changed would change\n  %q\ngit add -A changes\n  %q", differ, wantChanged)
			}

			res := c.run(commitArgs(srv, "-m", "changed", "--changed", "--json")...)
			res.wantCode(t, 0)
			var out commitcmd.JSONResult
			if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
				t.Fatalf("%v\n%s", err, res.stdout)
			}
			if out.Tree != wantTree {
				t.Errorf("committed tree %s, git add -A && git write-tree gives %s", out.Tree, wantTree)
			}
			if !slices.Equal(out.Changed, wantChanged) && !(len(out.Changed) == 0 && len(wantChanged) == 0) {
				t.Errorf("changed %q, want %q", out.Changed, wantChanged)
			}
		})
	}
}

// A checkout behind the branch never reverts another writer's work: a path
// both changed is a conflict naming it, with nothing committed; a path only
// the other writer changed is kept.
func TestChangedCheckoutBehindIsAConflict(t *testing.T) {
	g := newGitRepo(t)
	g.write("app.yaml", "v: 1\n", 0o644)
	g.write("other.yaml", "o: 1\n", 0o644)
	g.git("add", "-A")
	g.git("commit", "-q", "-m", "HEAD")
	srv := fake(t, g.headFiles()...)
	// Another writer lands first.
	if _, err := srv.Seed("acme", "mono", "main", "other writer", githubtest.File{Path: "app.yaml", Content: []byte("v: 2\n")}, githubtest.File{Path: "other.yaml", Content: []byte("o: 2\n")}); err != nil {
		t.Fatal(err)
	}
	before := head(t, srv, "main")
	t.Chdir(g.dir)
	c := g.cli()

	g.write("app.yaml", "v: 3\n", 0o644)
	res := c.run(commitArgs(srv, "-m", "mine", "--changed")...)
	res.wantCode(t, cmdutil.ExitConflict)
	// In the user's terms (issue 41.2): which file changed where since
	// which commit of the checkout, and what to do; no blob SHAs.
	checkout := strings.TrimSpace(g.git("rev-parse", "HEAD"))[:12]
	for _, want := range []string{"app.yaml changed on main since your checkout (at " + checkout + ")", "hint: nothing was committed; pull main (git pull --rebase)"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	if strings.Contains(res.stderr, "expected one of") || strings.Contains(res.stderr, "found blob") {
		t.Errorf("the conflict speaks in blob SHAs:\n%s", res.stderr)
	}
	if h := head(t, srv, "main"); h != before {
		t.Fatalf("the branch moved to %s", h)
	}

	// Only a file the other writer did not touch: it lands, theirs stays.
	g.write("app.yaml", "v: 1\n", 0o644)
	g.write("new.yaml", "n: 1\n", 0o644)
	if err := os.Remove(filepath.Join(g.dir, "other.yaml")); err != nil {
		t.Fatal(err)
	}
	res = c.run(commitArgs(srv, "-m", "mine", "--changed")...)
	res.wantCode(t, cmdutil.ExitConflict) // other.yaml's delete: they changed it
	if !strings.Contains(res.stderr, "other.yaml") {
		t.Errorf("the conflict does not name the path:\n%s", res.stderr)
	}
	g.git("checkout", "-q", "--", "other.yaml")
	res = c.run(commitArgs(srv, "-m", "mine", "--changed")...)
	res.wantCode(t, 0)
	if got, _ := readFile(t, srv, "main", "app.yaml"); got != "v: 2\n" {
		t.Errorf("app.yaml = %q: the other writer's change was reverted", got)
	}
	if got, _ := readFile(t, srv, "main", "new.yaml"); got != "n: 1\n" {
		t.Errorf("new.yaml = %q", got)
	}
}

// Nothing changed: a no-op, exit 0, not "nothing to commit".
func TestChangedNothingIsANoOp(t *testing.T) {
	g := newGitRepo(t)
	g.write("app.yaml", "v: 1\n", 0o644)
	g.write("debug.log", "x\n", 0o644)
	g.write(".gitignore", "*.log\n", 0o644)
	g.git("add", ".gitignore", "app.yaml")
	g.git("commit", "-q", "-m", "HEAD")
	srv := fake(t, g.headFiles()...)
	before := head(t, srv, "main")
	t.Chdir(g.dir)
	out := filepath.Join(t.TempDir(), "out")
	c := g.cli()
	c.env["GITHUB_OUTPUT"] = out
	res := c.run(commitArgs(srv, "-m", "nothing", "--changed")...)
	res.wantCode(t, 0)
	if h := head(t, srv, "main"); h != before {
		t.Fatalf("the branch moved")
	}
	data, _ := os.ReadFile(out)
	if !strings.Contains(string(data), "noop=true") {
		t.Errorf("$GITHUB_OUTPUT:\n%s", data)
	}
	if writes(srv) != 0 {
		t.Errorf("%d writes for no change", writes(srv))
	}
}

func TestChangedRefusals(t *testing.T) {
	t.Chdir(t.TempDir())
	srv := fake(t)
	c := newCLI(t)
	res := c.run(commitArgs(srv, "-m", "x", "--changed")...)
	res.wantCode(t, cmdutil.ExitUsage)
	if !strings.Contains(res.stderr, "not in a git checkout") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
	g := newGitRepo(t)
	t.Chdir(g.dir)
	res = g.cli().run(commitArgs(srv, "-m", "x", "--changed", "--prefix", "sub")...)
	res.wantCode(t, cmdutil.ExitUsage)
	res = g.cli().run(commitArgs(srv, "-m", "x", "--changed", "..")...)
	res.wantCode(t, cmdutil.ExitUsage)
	if writes(srv) != 0 {
		t.Errorf("%d writes", writes(srv))
	}
}

// A directory given as LOCAL_PATH is walked as git add walks it; an
// ignored file named explicitly is refused; --no-ignore takes everything.
func TestLocalPathHonoursGitignore(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := genCheckout(t, seed)
			srv := fake(t)
			t.Chdir(g.dir)
			wantTree, _ := g.addAll()
			var want []string
			for _, rec := range strings.Split(g.git("ls-tree", "-r", "-z", "--name-only", wantTree), "\x00") {
				if rec != "" {
					want = append(want, rec)
				}
			}
			res := g.cli().run(commitArgs(srv, "-m", "all", "--dry-run", "--json", ".")...)
			res.wantCode(t, 0)
			var plan struct {
				Files []struct{ Path, Action string }
			}
			if err := json.Unmarshal([]byte(res.stdout), &plan); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range plan.Files {
				if f.Action != "deleted" {
					got = append(got, f.Path)
				}
			}
			sort.Strings(got)
			if !slices.Equal(got, want) {
				t.Errorf("walking . took\n  %q\ngit add -A takes\n  %q", got, want)
			}
		})
	}

	g := newGitRepo(t)
	g.write(".gitignore", "*.log\nnode_modules/\n", 0o644)
	g.write("app.yaml", "v\n", 0o644)
	g.write("debug.log", "x\n", 0o644)
	g.write("node_modules/m/index.js", "x\n", 0o644)
	srv := fake(t)
	t.Chdir(g.dir)
	c := g.cli()
	for _, p := range []string{"debug.log", "node_modules", "node_modules/m/index.js"} {
		res := c.run(commitArgs(srv, "-m", "x", p)...)
		res.wantCode(t, cmdutil.ExitUsage)
		if !strings.Contains(res.stderr, "ignored") || !strings.Contains(res.stderr, "--no-ignore") {
			t.Errorf("%s: stderr:\n%s", p, res.stderr)
		}
	}
	if writes(srv) != 0 {
		t.Fatalf("%d writes", writes(srv))
	}
	res := c.run(commitArgs(srv, "-m", "x", "--no-ignore", ".")...)
	res.wantCode(t, 0)
	for _, p := range []string{"debug.log", "node_modules/m/index.js", "app.yaml"} {
		readFile(t, srv, "main", p)
	}
	// --add and --sync take build output as it is.
	res = c.run(commitArgs(srv, "-m", "x", "--add", "logs=node_modules")...)
	res.wantCode(t, 0)
	readFile(t, srv, "main", "logs/m/index.js")
}

// A re-run of a --changed commit that landed is a no-op, not a conflict:
// each path may hold the checkout's HEAD blob or what the checkout has now.
func TestChangedRerunIsNoOp(t *testing.T) {
	g := newGitRepo(t)
	g.write("app.yaml", "v: 1\n", 0o644)
	g.write("old.yaml", "o\n", 0o644)
	g.git("add", "-A")
	g.git("commit", "-q", "-m", "HEAD")
	srv := fake(t, g.headFiles()...)
	t.Chdir(g.dir)
	g.write("app.yaml", "v: 2\n", 0o644)
	g.write("new.yaml", "n\n", 0o755)
	if err := os.Remove(filepath.Join(g.dir, "old.yaml")); err != nil {
		t.Fatal(err)
	}
	c := g.cli()
	c.run(commitArgs(srv, "-m", "mine", "--changed")...).wantCode(t, 0)
	landed := head(t, srv, "main")
	res := c.run(commitArgs(srv, "-m", "mine", "--changed", "--json")...)
	res.wantCode(t, 0)
	if !strings.Contains(res.stdout, `"noop":true`) || head(t, srv, "main") != landed {
		t.Errorf("re-run: %s", res.stdout)
	}
	if _, mode := readFile(t, srv, "main", "new.yaml"); mode != "100755" {
		t.Errorf("new.yaml mode %s", mode)
	}
}

// Without git on PATH, --changed and the ignore-aware walk read the
// checkout with go-git: the same tree as git add -A, the same changes.
func TestChangedWithoutGit(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := genCheckout(t, seed)
			// go-git reads core.excludesFile from ~/.gitconfig.
			var home string
			for _, kv := range g.env {
				if h, ok := strings.CutPrefix(kv, "HOME="); ok {
					home = h
				}
			}
			cfg, err := os.ReadFile(filepath.Join(home, "gitconfig"))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(home, ".gitconfig"), string(cfg), 0o644)
			t.Setenv("HOME", home)
			wantTree := wantLikeGit(t, g, true)
			c := g.cli()
			// The walk of "." takes what git add -A takes.
			var want []string
			for _, rec := range strings.Split(g.git("ls-tree", "-r", "-z", "--name-only", wantTree), "\x00") {
				if rec != "" {
					want = append(want, rec)
				}
			}
			walk := c.run(commitArgs(fake(t), "-m", "all", "--dry-run", "--json", ".")...)
			walk.wantCode(t, 0)
			var plan struct {
				Files []struct{ Path, Action string }
			}
			if err := json.Unmarshal([]byte(walk.stdout), &plan); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range plan.Files {
				got = append(got, f.Path)
			}
			sort.Strings(got)
			if !slices.Equal(got, want) {
				t.Errorf("walking . with go-git took\n  %q\ngit add -A takes\n  %q", got, want)
			}
		})
	}
}
