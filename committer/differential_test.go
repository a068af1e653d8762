package committer_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// The differential test: random change sets, applied through the library to
// the fake and with plain file operations to a git work tree, must give the
// same tree SHA, and Result.Changed must name exactly the paths whose
// content or mode changed. Where the library refuses a change set, the work
// tree must show why: a put through a file or a symlink, or onto a
// directory, with no Delete or sync taking it away (ErrConflict), or a sync
// onto a file (ErrInvalid). The paths share prefixes ("a", "a-b", "a.txt",
// "a/") so that tree entry order matters.

func TestDifferentialGit(t *testing.T) { runDifferential(t, 200, "commit") }

// TestDifferentialGitBatch runs the oracle through the batch path: every
// change set goes through a Queue (chained, and squashed), whose batch
// work resolves and builds it (issue 19).
func TestDifferentialGitBatch(t *testing.T) {
	for _, via := range []string{"queue", "squash"} {
		t.Run(via, func(t *testing.T) { runDifferential(t, 100, via) })
	}
}

func TestChaosDifferentialGit(t *testing.T) {
	if testing.Short() {
		t.Skip("the 2,000-sequence run is for make chaos; TestDifferentialGit runs 200 under -short")
	}
	for _, via := range []string{"commit", "queue", "squash"} {
		t.Run(via, func(t *testing.T) { runDifferential(t, 2000, via) })
	}
}

// runDifferential runs n sequences of three change sets in lockstep, each
// sequence in its own directory of one work tree and its own repository of
// one fake, so that git computes every sequence's tree in one `git add -A`
// and `git write-tree` per step.
// via is "commit" (Committer.Commit), "queue" or "squash" (a Queue).
func runDifferential(t *testing.T, n int, via string) {
	g := newGitRepo(t)
	// Thousands of commits on one token: let the fake's hour pass quickly.
	ts := githubtest.NewServer(t, githubtest.WithNow(aheadClock()))
	seed := uint64(1)
	if s := os.Getenv("GHCOMMITTER_DIFF_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		seed = v
	}
	seqs := make([]*sequence, n)
	for i := range seqs {
		sq := &sequence{name: fmt.Sprintf("d%d", i), r: rand.New(rand.NewPCG(seed, uint64(i))), via: via}
		sq.dir = filepath.Join(g.dir, sq.name)
		if err := sq.seed(t, ts); err != nil {
			t.Fatal(err)
		}
		seqs[i] = sq
	}
	counts := map[string]int{}
	for step := 0; step <= 3; step++ {
		trees := g.subtrees()
		for i, sq := range seqs {
			if sq.pending == nil {
				continue
			}
			if err := sq.pending(trees[sq.name]); err != nil {
				t.Fatalf("sequence %d (GHCOMMITTER_DIFF_SEED=%d) step %d: %v\nchange sets so far:\n  %s", i, seed, step, err, strings.Join(sq.log, "\n  "))
			}
			sq.pending = nil
		}
		if step == 3 {
			break
		}
		for i, sq := range seqs {
			o, err := sq.step(t, ts)
			if err != nil {
				t.Fatalf("sequence %d (GHCOMMITTER_DIFF_SEED=%d) step %d: %v\nchange sets so far:\n  %s", i, seed, step, err, strings.Join(sq.log, "\n  "))
			}
			for _, x := range o {
				counts[x]++
			}
		}
	}
	t.Logf("%d sequences: %v", n, counts)
	// The generator must reach every outcome, or the test tests less than
	// it claims.
	for _, o := range []string{"landed", "noop", "conflict", "invalid", "replaced"} {
		if counts[o] == 0 {
			t.Errorf("no change set ended %q", o)
		}
	}
}

// subtrees stages the work tree and returns the tree SHA of each top-level
// directory; a directory that is absent or holds no file has git's empty
// tree.
func (g *gitRepo) subtrees() map[string]string {
	g.t.Helper()
	root := g.writeTree()
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(g.git("ls-tree", root)), "\n") {
		meta, name, ok := strings.Cut(line, "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 && f[1] == "tree" {
			out[name] = f[2]
		}
	}
	return out
}

const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// sequence is one repository's run of change sets.
type sequence struct {
	name    string
	dir     string
	r       *rand.Rand
	c       *committer.Committer
	via     string // "commit", "queue" or "squash"
	q       *committer.Queue
	log     []string
	pending func(gitTree string) error // the check that needs git's tree
}

func (sq *sequence) seed(t testing.TB, ts *githubtest.TestServer) error {
	if err := os.MkdirAll(sq.dir, 0o755); err != nil {
		return err
	}
	var files []githubtest.File
	for _, f := range genFiles(sq.r, "", 2+sq.r.IntN(6)) {
		files = append(files, githubtest.File{Path: f.Path, Content: f.Data, Mode: string(f.Mode)})
		if err := writeWork(sq.dir, f.Path, f.Mode, f.Data); err != nil {
			return err
		}
	}
	if _, err := ts.Seed(owner, sq.name, "main", "seed", files...); err != nil {
		return err
	}
	sq.c = newCommitterFor(t, ts, sq.name)
	if sq.via != "commit" {
		var opts []committer.CommitOption
		if sq.via == "squash" {
			opts = append(opts, committer.Squash())
		}
		q, err := committer.NewQueue(sq.c, "main", opts...)
		if err != nil {
			return err
		}
		sq.q = q
	}
	sq.pending = func(want string) error {
		if got := treeOf(t, ts, sq.name); got != want {
			return fmt.Errorf("seeded tree %s, git says %s", got, want)
		}
		return nil
	}
	return nil
}

// step applies one random change set through the library and to the work
// tree, and leaves the tree comparison pending until git has run.
func (sq *sequence) step(t testing.TB, ts *githubtest.TestServer) ([]string, error) {
	ops := genChangeSet(sq.r, sq.dir)
	sq.log = append(sq.log, fmt.Sprint(ops))
	before, err := workFiles(sq.dir)
	if err != nil {
		return nil, err
	}
	headBefore, _ := ts.Head(owner, sq.name, "main")
	want := checkWork(sq.dir, ops)
	var res *committer.Result
	if sq.q != nil {
		res, err = sq.q.Commit(context.Background(), changeSetOf(ops))
	} else {
		res, err = sq.c.Commit(context.Background(), "main", changeSetOf(ops))
	}
	if want != "" {
		kind := committer.ErrConflict
		if want == "invalid" {
			kind = committer.ErrInvalid
		}
		if !errors.Is(err, kind) {
			return nil, fmt.Errorf("%v: the work tree refuses it (%s), the library says %w", ops, want, err)
		}
		if h, _ := ts.Head(owner, sq.name, "main"); h != headBefore {
			return nil, fmt.Errorf("%v: refused, yet the branch moved", ops)
		}
		return []string{want}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%v: the library refused what git does: %w", ops, err)
	}
	if err := applyWork(sq.dir, ops); err != nil {
		return nil, err
	}
	after, err := workFiles(sq.dir)
	if err != nil {
		return nil, err
	}
	if got, want := res.Changed, changedPaths(before, after); !slices.Equal(sorted(got), want) {
		return nil, fmt.Errorf("%v: Changed = %v, the work tree changed %v", ops, got, want)
	}
	sq.pending = func(want string) error {
		if want == "" {
			want = emptyTree
		}
		if got := treeOf(t, ts, sq.name); got != want {
			return fmt.Errorf("%v: tree %s, git says %s", ops, got, want)
		}
		return nil
	}
	out := []string{"landed"}
	if res.NoOp {
		out[0] = "noop"
	}
	if replaces(before, ops) {
		out = append(out, "replaced")
	}
	return out, nil
}

// dop is one operation of a generated change set.
type dop struct {
	kind  string // "put", "delete" or "sync"
	path  string // "" for a sync of the root
	mode  committer.Mode
	data  []byte
	files []committer.LocalFile // sync
}

func (o dop) String() string {
	switch o.kind {
	case "put":
		return fmt.Sprintf("put %s %s %q", o.path, o.mode, o.data)
	case "delete":
		return "delete " + o.path
	}
	var fs []string
	for _, f := range o.files {
		fs = append(fs, fmt.Sprintf("%s:%s:%q", f.Path, f.Mode, f.Data))
	}
	return fmt.Sprintf("sync %q [%s]", o.path, strings.Join(fs, " "))
}

// replaces reports whether ops turn a file into a directory or back.
func replaces(before map[string]string, ops []dop) bool {
	for _, o := range ops {
		if o.kind != "put" {
			continue
		}
		for p := range before {
			if strings.HasPrefix(p, o.path+"/") || strings.HasPrefix(o.path, p+"/") {
				return true
			}
		}
	}
	return false
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	if s == nil {
		s = []string{}
	}
	return s
}

func newCommitterFor(t testing.TB, ts *githubtest.TestServer, name string) *committer.Committer {
	t.Helper()
	return committerOn(t, ts.Client, name)
}

// committerOn returns a Committer for acme/name whose requests go through
// gh (its HTTP client and base URL).
func committerOn(t testing.TB, gh *github.Client, name string) *committer.Committer {
	t.Helper()
	c, err := newWith(gh, owner, name, committer.WithBackoffSleep(noSleep))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func treeOf(t testing.TB, ts *githubtest.TestServer, name string) string {
	t.Helper()
	h, ok := ts.Head(owner, name, "main")
	if !ok {
		t.Fatalf("%s has no main", name)
	}
	cm, err := ts.Commit(owner, name, h)
	if err != nil {
		t.Fatal(err)
	}
	return cm.Tree
}

func changeSetOf(ops []dop) *committer.ChangeSet {
	cs := committer.NewChangeSet("differential")
	for _, o := range ops {
		switch o.kind {
		case "put":
			cs.PutMode(o.path, o.data, o.mode)
		case "delete":
			cs.Delete(o.path)
		case "sync":
			dir := o.path
			if dir == "" {
				dir = "." // the library's one name for the root
			}
			cs.Sync(dir, o.files)
		}
	}
	return cs
}

var (
	diffSegs     = []string{"a", "a-b", "a.txt", "b"}
	diffContents = []string{"x\n", "y\n", "", "bin\x00ary", "é\n"}
	diffTargets  = []string{"a", "../a", "a.txt", "b/a", "missing", "."}
)

func randPath(r *rand.Rand, depth int) string {
	segs := make([]string, 1+r.IntN(depth))
	for i := range segs {
		segs[i] = diffSegs[r.IntN(len(diffSegs))]
	}
	return strings.Join(segs, "/")
}

func randFile(r *rand.Rand, p string) committer.LocalFile {
	f := committer.LocalFile{Path: p, Mode: committer.ModeFile, Data: []byte(diffContents[r.IntN(len(diffContents))])}
	switch r.IntN(5) {
	case 0:
		f.Mode = committer.ModeExecutable
	case 1:
		f.Mode, f.Data = committer.ModeSymlink, []byte(diffTargets[r.IntN(len(diffTargets))])
	}
	return f
}

// genFiles returns up to n files under prefix, no one at or under another.
func genFiles(r *rand.Rand, prefix string, n int) []committer.LocalFile {
	var out []committer.LocalFile
	for range n {
		p := randPath(r, 3)
		if !slices.ContainsFunc(out, func(f committer.LocalFile) bool { return overlaps(f.Path, p) }) {
			out = append(out, randFile(r, p))
		}
	}
	_ = prefix
	return out
}

func overlaps(a, b string) bool {
	return a == b || a == "" || b == "" || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

// genChangeSet makes 1 to 3 operations that the library's claim rules
// allow, biased towards the paths that exist in the work tree.
func genChangeSet(r *rand.Rand, root string) []dop {
	cur, _ := workFiles(root)
	var existing []string
	for p := range cur {
		existing = append(existing, p)
		existing = append(existing, parents(p)...)
	}
	slices.Sort(existing)
	pick := func() string {
		if len(existing) > 0 && r.IntN(3) > 0 {
			p := existing[r.IntN(len(existing))]
			if r.IntN(3) == 0 {
				p += "/" + diffSegs[r.IntN(len(diffSegs))]
			}
			return p
		}
		return randPath(r, 3)
	}
	var ops []dop
	for i := 0; i < 1+r.IntN(3) || len(ops) == 0; i++ {
		var o []dop
		switch k := r.IntN(10); {
		case k < 4:
			f := randFile(r, pick())
			o = []dop{{kind: "put", path: f.Path, mode: f.Mode, data: f.Data}}
		case k < 6:
			o = []dop{{kind: "delete", path: pick()}}
		case k < 8:
			// Replace: a Delete and Puts at or under its path.
			p := pick()
			o = []dop{{kind: "delete", path: p}}
			for _, f := range genFiles(r, "", 1+r.IntN(2)) {
				if r.IntN(3) == 0 {
					f.Path = p
					o = append(o, dop{kind: "put", path: p, mode: f.Mode, data: f.Data})
					break
				}
				o = append(o, dop{kind: "put", path: p + "/" + f.Path, mode: f.Mode, data: f.Data})
			}
		default:
			dir := ""
			if r.IntN(4) > 0 {
				dir = pick()
			}
			o = []dop{{kind: "sync", path: dir, files: genFiles(r, dir, r.IntN(5))}}
		}
		if allowed(ops, o) {
			ops = append(ops, o...)
		}
	}
	return ops
}

// allowed reports whether adding o to ops keeps every claim rule: a Delete
// pairs only with Puts at or under it; no other two operations overlap.
func allowed(ops, o []dop) bool {
	all := append(slices.Clone(ops), o...)
	for i, x := range all {
		for _, y := range all[i+1:] {
			if !overlaps(x.path, y.path) {
				continue
			}
			d, p := x, y
			if p.kind == "delete" {
				d, p = p, d
			}
			if d.kind != "delete" || p.kind != "put" || !(p.path == d.path || strings.HasPrefix(p.path, d.path+"/")) {
				return false
			}
		}
	}
	return true
}

func parents(p string) []string {
	var out []string
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		out = append(out, d)
	}
	slices.Reverse(out)
	return out
}

// checkWork says whether the work tree refuses ops: "conflict" when a put
// would go through a file or symlink, or onto a directory, that no Delete or
// sync clears; "invalid" for a sync onto a file; "" when ops apply.
func checkWork(root string, ops []dop) string {
	cleared := func(p string) bool {
		for _, o := range ops {
			switch {
			case o.kind == "delete" && (p == o.path || strings.HasPrefix(p, o.path+"/")):
				return true
			case o.kind == "sync" && (o.path == "" || strings.HasPrefix(p, o.path+"/")):
				return true
			}
		}
		return false
	}
	var puts []string
	for _, o := range ops {
		switch o.kind {
		case "put":
			puts = append(puts, o.path)
		case "sync":
			if o.path != "" && reachable(root, o.path) {
				if fi, err := os.Lstat(filepath.Join(root, o.path)); err == nil && !fi.IsDir() {
					return "invalid"
				}
			}
			for _, f := range o.files {
				puts = append(puts, path.Join(o.path, f.Path))
			}
		}
	}
	for _, p := range puts {
		blocked := false
		for _, a := range parents(p) {
			if cleared(a) {
				break
			}
			fi, err := os.Lstat(filepath.Join(root, a))
			if err != nil {
				break
			}
			if !fi.IsDir() {
				blocked = true
				break
			}
		}
		if blocked {
			return "conflict"
		}
		if fi, err := os.Lstat(filepath.Join(root, p)); err == nil && fi.IsDir() && !cleared(p) {
			return "conflict"
		}
	}
	return ""
}

// applyWork applies ops to the work tree with plain file operations, as a
// person would before `git add -A`: deletes (rm -r) and syncs (rm -r of the
// directory) first, then the files written.
func applyWork(root string, ops []dop) error {
	for _, o := range ops {
		switch o.kind {
		case "delete":
			if err := removeWork(root, o.path); err != nil {
				return err
			}
		case "sync":
			if o.path == "" {
				ents, _ := os.ReadDir(root)
				for _, e := range ents {
					if e.Name() != ".git" {
						if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
							return err
						}
					}
				}
			} else if err := removeWork(root, o.path); err != nil {
				return err
			}
		}
	}
	for _, o := range ops {
		switch o.kind {
		case "put":
			if err := writeWork(root, o.path, o.mode, o.data); err != nil {
				return err
			}
		case "sync":
			for _, f := range o.files {
				if err := writeWork(root, path.Join(o.path, f.Path), f.Mode, f.Data); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// reachable reports whether every directory above p is a real one (not a
// file, nor a symlink, which git stores as a file): only then is p in the
// tree.
func reachable(root, p string) bool {
	for _, a := range parents(p) {
		fi, err := os.Lstat(filepath.Join(root, a))
		if err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// removeWork is rm -r of p, when every directory above it is a real one,
// then removes the directories it leaves empty (git has none).
func removeWork(root, p string) error {
	if !reachable(root, p) {
		return nil
	}
	if err := os.RemoveAll(filepath.Join(root, p)); err != nil {
		return err
	}
	ps := parents(p)
	for i := len(ps) - 1; i >= 0; i-- {
		if os.Remove(filepath.Join(root, ps[i])) != nil {
			break
		}
	}
	return nil
}

func writeWork(root, p string, mode committer.Mode, data []byte) error {
	full := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	if err := os.Remove(full); err != nil && !os.IsNotExist(err) {
		return err
	}
	switch mode {
	case committer.ModeSymlink:
		return os.Symlink(string(data), full)
	case committer.ModeExecutable:
		return os.WriteFile(full, data, 0o755)
	}
	return os.WriteFile(full, data, 0o644)
}

// workFiles lists the work tree's files: path -> mode and content.
func workFiles(root string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			out[rel] = "link:" + target
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		out[rel] = fmt.Sprintf("%o:%s", info.Mode().Perm()&0o100, data)
		return err
	})
	return out, err
}

func changedPaths(before, after map[string]string) []string {
	out := []string{}
	for p, v := range before {
		if w, ok := after[p]; !ok || w != v {
			out = append(out, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
