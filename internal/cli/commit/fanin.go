package commit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
)

// Fan-in: --manifest given more than once, or naming a directory, makes
// each manifest its own commit, all in one batch to the one branch the
// flags name (committer.Committer.CommitAll): one ref update, and a
// manifest that cannot land is taken out with its own error while the
// others land (exit 4, partly done).

// manifestExts are the names a manifest directory's manifests end with.
var manifestExts = []string{".yaml", ".yml", ".json"}

// expand resolves --manifest's values into manifest paths: a directory
// stands for its *.yaml, *.yml and *.json files, in lexical order, not
// recursively. fanIn is true when more than one --manifest was given or one
// names a directory; otherwise m.file is the one manifest (or "").
func (m *manifestFlags) expand() (paths []string, fanIn bool, err error) {
	if len(m.files) == 1 && m.files[0] == "-" {
		m.file = "-"
		return nil, false, nil
	}
	for _, p := range m.files {
		if p == "-" {
			return nil, false, cmdutil.UsageErrorf("write the stdin manifest to a file", "--manifest - cannot be given beside other manifests")
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, false, cmdutil.UsageErrorf("", "--manifest: %v", err)
		}
		if !fi.IsDir() {
			paths = append(paths, p)
			continue
		}
		fanIn = true
		found, err := manifestsIn(p)
		if err != nil {
			return nil, false, err
		}
		paths = append(paths, found...)
	}
	if len(m.files) > 1 || fanIn {
		return paths, true, nil
	}
	if len(paths) == 1 {
		m.file = paths[0]
	}
	return nil, false, nil
}

// manifestsIn lists dir's manifests, in lexical order; none is a usage
// error.
func manifestsIn(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, cmdutil.UsageErrorf("", "--manifest %s: %v", dir, err)
	}
	var out []string
	for _, de := range entries {
		ext := strings.ToLower(filepath.Ext(de.Name()))
		if de.IsDir() || !containsString(manifestExts, ext) {
			continue
		}
		out = append(out, filepath.Join(dir, de.Name()))
	}
	if len(out) == 0 {
		return nil, cmdutil.UsageErrorf("a manifest directory holds *.yaml, *.yml or *.json manifests (not its subdirectories)", "--manifest %s: no manifest in the directory", dir)
	}
	sort.Strings(out)
	return out, nil
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// checkFanIn refuses the flags that have no meaning beside several
// manifests: those of a change set's content and message (each manifest
// carries its own), and those of a commit that lands alone.
func (f *commitFlags) checkFanIn() error {
	const hint = "put it in each manifest, or commit one manifest at a time"
	for _, c := range []struct {
		set  bool
		flag string
	}{
		{f.message != "", "-m/--message"}, {f.messageFile != "", "-F/--message-file"},
		{len(f.paths) > 0, "LOCAL_PATH arguments"}, {len(f.adds) > 0, "--add"}, {len(f.deletes) > 0, "--delete"},
		{len(f.syncs) > 0, "--sync"}, {len(f.edits) > 0, "--edit"}, {len(f.structured.ops) > 0, "--set, --unset and --set-image"},
		{len(f.expectSHAs) > 0, "--expect-sha"}, {len(f.absent) > 0, "--expect-absent"}, {f.changed, "--changed"},
		{f.prefix != "", "--prefix"}, {f.pr.enabled, "--pull-request"}, {f.tags.name != "", "--tag"},
		{f.onProtected == "pull-request", "--on-protected pull-request"}, {f.dryRun, "--dry-run"},
	} {
		if c.set {
			return cmdutil.UsageErrorf(hint, "%s cannot be given beside several manifests", c.flag)
		}
	}
	return nil
}

// fanInChanges builds each manifest's change set on a copy of f, before any
// request. A manifest that names another branch or --create-branch-from
// than the flags, or a pull request, is refused.
func fanInChanges(ctx context.Context, f *commitFlags, e *cmdutil.Env, paths []string) ([]*committer.ChangeSet, *changeBuilder, error) {
	css := make([]*committer.ChangeSet, len(paths))
	total := &changeBuilder{}
	stdin := ""
	for i, p := range paths {
		g := *f
		g.manifest.file, g.manifest.files = p, nil
		g.branch, g.createFrom = "", "" // the manifest's own, to compare
		cs, b, err := buildChangeSet(ctx, &g, e)
		if err != nil {
			return nil, nil, err
		}
		for _, a := range g.adds {
			if !strings.HasSuffix(a, "=-") {
				continue
			}
			if stdin != "" {
				return nil, nil, cmdutil.UsageErrorf("write the others to files", "%s and %s both put a file from stdin", stdin, p)
			}
			stdin = p
		}
		switch {
		case g.pr.enabled:
			return nil, nil, cmdutil.UsageErrorf("commit it alone, with --manifest once", "%s: a pull-request: manifest cannot be committed beside other manifests", p)
		case g.branch != "" && g.branch != f.branch:
			return nil, nil, cmdutil.UsageErrorf("every manifest commits to the branch -b names: drop branch: from the manifest, or pass -b with the same branch", "%s: branch %q: not the branch the flags name (%q)", p, g.branch, f.branch)
		case g.createFrom != "" && g.createFrom != f.createFrom:
			return nil, nil, cmdutil.UsageErrorf("every manifest commits to the branch the flags name: drop create-branch-from: from the manifest, or pass the same --create-branch-from", "%s: create-branch-from %q: not the flags' (%q)", p, g.createFrom, f.createFrom)
		}
		if err := g.trailers.apply(e, cs); err != nil {
			return nil, nil, err
		}
		css[i] = cs
		total.files += b.files
		total.bytes += b.bytes
	}
	return css, total, nil
}

// fanInRun commits the manifests at paths, each its own commit, in one
// batch.
func fanInRun(ctx context.Context, e *cmdutil.Env, f *commitFlags, paths []string) error {
	if err := f.checkFanIn(); err != nil {
		return err
	}
	owner, name, err := f.repository(e)
	if err != nil {
		return err
	}
	css, total, err := fanInChanges(ctx, f, e, paths)
	if err != nil {
		return err
	}
	for i, cs := range css {
		if f.signKey != "" && cs.Author == nil {
			return cmdutil.UsageErrorf(`add author: to each manifest, or pass --author "Name <email>" matching the key's identity`, "%s: --sign-key needs an author", paths[i])
		}
	}
	apiURL := APIURLFor(f.auth.apiURL, f.repo, e)
	c, prog, client, err := newCommitter(ctx, f, e, owner, name, apiURL, css[0], total)
	if err != nil {
		return err
	}
	defer prog.finish()
	branch, err := targetBranch(ctx, f, e, c)
	if err != nil {
		return err
	}
	cos := f.engine.commitOptions()
	if f.createFrom != "" {
		cos = append(cos, committer.CreateBranchFrom(f.createFrom))
	}
	res, err := c.CommitAll(ctx, branch, css, cos...)
	prog.finish()
	var be *committer.BatchError
	if err != nil && !errors.As(err, &be) {
		return err // refused before any request, or by the options
	}
	out, rb := newOutput(e, f.json, apiURL), newReadBack(ctx, e, apiURL, client)
	return out.fanIn(paths, res, be, rb)
}

// fanIn prints each manifest's outcome, in order: under --json one array,
// an element per manifest (its result object, or its error object), else a
// line each. Some landed and some not is exit 4 (partly done); none landed
// is the first failure's exit code.
func (o *output) fanIn(paths []string, res []*committer.Result, be *committer.BatchError, rb *readBack) error {
	var failed []string
	var first *cmdutil.ExitError
	var last *committer.Result
	elems := make([]any, len(paths))
	for i, p := range paths {
		if r := res[i]; r != nil {
			last = r
			elems[i] = o.jsonResult(r, o.commitURL(r.Repository, r.Commit))
			if !o.json {
				fmt.Fprintf(o.e.Stdout, "%s: %s\n", p, summary(r, r.Repository+"@"+r.Branch, cmdutil.Short(r.Commit), o.commitURL(r.Repository, r.Commit)))
			}
			continue
		}
		ee := Classify(be.Errs[i])
		if first == nil {
			first = ee
		}
		elems[i] = failureJSON(ee)
		failed = append(failed, fmt.Sprintf("%s: %v", p, ee.Err))
	}
	if last != nil {
		if err := o.actions(fanInResult(res), o.commitURL(last.Repository, last.Commit), nil, rb.verified(last.Repository, last.Commit)); err != nil {
			return err
		}
	}
	if o.json {
		if err := writeJSON(o.e, elems); err != nil {
			return err
		}
	}
	if first == nil {
		return nil
	}
	ee := &cmdutil.ExitError{Code: first.Code, Hint: first.Hint, Reported: o.json,
		Err: fmt.Errorf("%d of %d manifests not committed: %s", len(failed), len(paths), strings.Join(failed, "; "))}
	if last != nil {
		ee = PartlyDone(ee.Err, "the others landed on "+last.Branch+"; fix those manifests and commit them again", o.json)
	}
	return ee
}

// fanInResult is what the GitHub Actions outputs report of a fan-in: the
// branch's new head (the last commit that landed) and every path changed.
func fanInResult(res []*committer.Result) *committer.Result {
	var out *committer.Result
	seen := map[string]bool{}
	for _, r := range res {
		if r == nil {
			continue
		}
		if out == nil {
			c := *r
			out, c.Changed = &c, nil
		}
		out.Commit, out.Tree, out.NoOp = r.Commit, r.Tree, out.NoOp && r.NoOp
		out.Attempts = max(out.Attempts, r.Attempts)
		for _, p := range changed(r) {
			if !seen[p] {
				seen[p] = true
				out.Changed = append(out.Changed, p)
			}
		}
	}
	return out
}
