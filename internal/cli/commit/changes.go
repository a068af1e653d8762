package commit

import (
	"context"
	"errors"
	"fmt"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"github.com/ghcommitter/ghcommitter/internal/cli/input"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
)

// changeBuilder turns the commit command's arguments into a change set.
// Everything it finds wrong is a usage error: nothing has been sent yet.
type changeBuilder struct {
	e           *cmdutil.Env
	ctx         context.Context
	in          *stdinOnce
	opts        committer.LoadOptions
	editTimeout time.Duration

	cs    *committer.ChangeSet
	files int   // files put
	bytes int64 // their total size

	// checkout is the git work tree LOCAL_PATH directories are walked in
	// with its ignore rules; nil outside one and with --no-ignore.
	checkout *input.GitCheckout
	// changed lists the paths --changed found, relative to the top level,
	// and checkoutHead is the commit they changed from.
	changed      []string
	checkoutHead string
}

const addHint = "use --add REMOTE=LOCAL to commit a file from outside the current directory"

var shaRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

func (b *changeBuilder) build(f *commitFlags, msg string) (*committer.ChangeSet, error) {
	b.cs = committer.NewChangeSet(msg)
	if f.author != "" {
		sig, err := parseAuthor(f.author)
		if err != nil {
			return nil, err
		}
		b.cs.Author = sig
	}
	prefix, err := prefixDir(f.prefix)
	if err != nil {
		return nil, err
	}
	if f.changed {
		if err := b.changedPaths(f, prefix); err != nil {
			return nil, err
		}
	} else {
		if err := b.openIgnores(f); err != nil {
			return nil, err
		}
		for _, a := range f.paths {
			if err := b.localPath(prefix, a); err != nil {
				return nil, err
			}
		}
	}
	for _, a := range f.adds {
		remote, local, ok := strings.Cut(a, "=")
		if !ok || local == "" {
			return nil, cmdutil.UsageErrorf("write it as --add REMOTE=LOCAL, e.g. --add docs/index.html=build/index.html", "--add %q: want REMOTE=LOCAL", a)
		}
		if err := b.add(remote, local); err != nil {
			return nil, err
		}
	}
	for _, p := range f.deletes {
		rp, err := repoPath("--delete", strings.TrimSuffix(p, "/"))
		if err != nil {
			return nil, err
		}
		b.cs.Delete(rp)
	}
	for _, s := range f.syncs {
		if err := b.sync(s); err != nil {
			return nil, err
		}
	}
	if err := b.editsAndChecks(f); err != nil {
		return nil, err
	}
	if err := b.structured(f); err != nil { // structured.go
		return nil, err
	}
	if b.cs.Len() == 0 && !f.changed {
		return nil, cmdutil.UsageErrorf("give files to commit, or --add, --delete, --sync, --edit, --set or --manifest", "nothing to commit")
	}
	return b.cs, nil
}

// editsAndChecks adds --edit, --expect-sha and --expect-absent.
func (b *changeBuilder) editsAndChecks(f *commitFlags) error {
	if len(f.edits) > 0 && b.e.Exposed != nil {
		return &cmdutil.ExitError{Code: cmdutil.ExitFailed, Err: fmt.Errorf("--edit: cannot hide the credentials from the commands it runs: %w", b.e.Exposed),
			Hint: "unset the variables named, passing the token with --token-file instead, or commit without --edit"}
	}
	for _, s := range f.edits {
		p, command, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(command) == "" {
			return cmdutil.UsageErrorf(`write it as --edit PATH=COMMAND, e.g. --edit 'VERSION=echo 1.2.3'`, "--edit %q: want PATH=COMMAND", s)
		}
		rp, err := repoPath("--edit", p)
		if err != nil {
			return err
		}
		b.cs.Edit(rp, input.ShellEdit(b.ctx, b.e, b.editTimeout, rp, command))
	}
	for _, s := range f.expectSHAs {
		// A SHA holds no "=": split at the last one, so PATH may hold "=".
		i := strings.LastIndex(s, "=")
		if i < 0 || !shaRE.MatchString(s[i+1:]) {
			return cmdutil.UsageErrorf("write it as --expect-sha PATH=SHA with the file's 40-digit blob SHA (git rev-parse HEAD:PATH)", "--expect-sha %q: want PATH=SHA", s)
		}
		rp, err := repoPath("--expect-sha", s[:i])
		if err != nil {
			return err
		}
		b.cs.ExpectBlob(rp, s[i+1:])
	}
	for _, p := range f.absent {
		rp, err := repoPath("--expect-absent", p)
		if err != nil {
			return err
		}
		b.cs.ExpectAbsent(rp)
	}
	return nil
}

// localPath adds a LOCAL_PATH argument: a file or directory inside the
// current directory, committed at the same relative path under prefix.
func (b *changeBuilder) localPath(prefix, arg string) error {
	clean := filepath.Clean(arg)
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return cmdutil.UsageErrorf(addHint, "%s: LOCAL_PATH must be relative and inside the current directory", arg)
	}
	rel := filepath.ToSlash(clean)
	if rel == "." {
		rel = ""
	}
	remote := path.Join(prefix, rel)
	if remote == "" {
		remote = "." // the current directory at the root
	}
	if b.checkout != nil && rel != "" {
		ignored, err := b.checkout.Ignored(arg)
		if err != nil {
			return &cmdutil.ExitError{Code: cmdutil.ExitFailed, Err: err}
		}
		if ignored {
			return cmdutil.UsageErrorf("see why with: git check-ignore -v "+ShellQuote(arg)+"; pass --no-ignore to take it anyway",
				"%s: is ignored by a .gitignore or exclude rule (git add refuses it too)", arg)
		}
	}
	if info, err := os.Stat(arg); err == nil && info.IsDir() && b.checkout != nil {
		return b.addIgnoring(remote, arg)
	}
	return b.add(remote, arg)
}

// openIgnores finds the checkout whose ignore rules LOCAL_PATH arguments
// are taken with: none with --no-ignore, without arguments, outside a
// checkout, or without git on PATH.
func (b *changeBuilder) openIgnores(f *commitFlags) error {
	if f.noIgnore || len(f.paths) == 0 {
		return nil
	}
	g, ok, err := input.OpenCheckout(b.ctx, b.e)
	if errors.Is(err, input.ErrNoGit) || !ok {
		return nil
	}
	if err != nil {
		return &cmdutil.ExitError{Code: cmdutil.ExitFailed, Err: err}
	}
	b.checkout = g
	return nil
}

// addIgnoring puts the files git add would take under the directory local
// (tracked ones, and untracked ones no ignore rule matches) at remote.
func (b *changeBuilder) addIgnoring(remote, local string) error {
	dir, err := repoDir(local, remote)
	if err != nil {
		return err
	}
	files, err := b.checkout.Files(local)
	if err != nil {
		return &cmdutil.ExitError{Code: cmdutil.ExitFailed, Err: err}
	}
	if len(files) == 0 {
		return cmdutil.UsageErrorf("pass --no-ignore to take ignored files too", "%s: directory holds no files that .gitignore lets through", local)
	}
	base := filepath.Clean(local)
	for _, lp := range files {
		rel := lp
		if base != "." {
			if rel, err = filepath.Rel(base, lp); err != nil {
				return cmdutil.UsageErrorf("", "%w", err)
			}
		}
		rp := path.Join(dir, filepath.ToSlash(rel))
		lf, err := committer.LoadFile(lp, rp, b.opts)
		if err != nil {
			return cmdutil.UsageErrorf("", "%w", err)
		}
		if err := b.put(rp, lf); err != nil {
			return err
		}
	}
	return nil
}

// changedPaths adds what git status says changed under the LOCAL_PATH
// arguments (default "."), each path guarded by its blob at the checkout's
// HEAD, so that a checkout behind the branch never reverts another
// writer's work: that is a conflict naming the path.
func (b *changeBuilder) changedPaths(f *commitFlags, prefix string) error {
	if prefix != "" {
		return cmdutil.UsageErrorf("the checkout's paths are the repository's", "--changed and --prefix cannot be combined")
	}
	specs := f.paths
	if len(specs) == 0 {
		specs = []string{"."}
	}
	for _, a := range specs {
		clean := filepath.Clean(a)
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return cmdutil.UsageErrorf("cd to the directory, or name paths inside the current one", "%s: LOCAL_PATH must be relative and inside the current directory", a)
		}
	}
	g, ok, err := input.OpenCheckout(b.ctx, b.e)
	var ee *cmdutil.ExitError
	switch {
	case errors.Is(err, input.ErrNoGit):
		return cmdutil.UsageErrorf("install git, or name the files to commit", "--changed needs git on PATH")
	case errors.As(err, &ee):
		return err
	case err != nil:
		return &cmdutil.ExitError{Code: cmdutil.ExitFailed, Err: err}
	case !ok:
		return cmdutil.UsageErrorf("run it in the checkout (actions/checkout), or name the files to commit", "--changed: the current directory is not in a git checkout")
	}
	b.checkoutHead = g.Head()
	changes, err := g.Changes(specs)
	if err != nil {
		if errors.As(err, &ee) {
			return err
		}
		return &cmdutil.ExitError{Code: cmdutil.ExitFailed, Err: err}
	}
	for _, c := range changes {
		rp, err := repoPath("changed path", c.Path)
		if err != nil {
			return err
		}
		b.changed = append(b.changed, rp)
		// The branch may hold what the checkout's HEAD has (the change
		// applies) or what the checkout has now (it is there already: a
		// re-run); anything else is another writer's, a conflict.
		if !c.Keep {
			b.cs.Delete(rp)
			b.cs.ExpectOneOf(rp, c.HeadSHA, "")
			continue
		}
		lf, err := committer.LoadFile(c.Local, rp, b.opts)
		if err != nil {
			return cmdutil.UsageErrorf("", "%w", err)
		}
		if c.Mode != "" && (lf.Mode == committer.ModeFile || lf.Mode == committer.ModeExecutable) {
			lf.Mode = committer.Mode(c.Mode) // core.fileMode=false: the index's
		}
		sha, err := input.LocalBlobSHA(lf)
		if err != nil {
			return cmdutil.UsageErrorf("", "%s: %w", c.Local, err)
		}
		b.cs.ExpectOneOf(rp, c.HeadSHA, sha)
		if err := b.put(rp, lf); err != nil {
			return err
		}
	}
	return nil
}

// add puts the local file or directory local at repository path remote
// (for a directory, "" or "." is the root).
func (b *changeBuilder) add(remote, local string) error {
	if local == "-" {
		rp, err := repoPath("--add", remote)
		if err != nil {
			return err
		}
		data, err := b.in.read()
		if err != nil {
			return cmdutil.UsageErrorf("", "--add %s=-: read stdin: %v", remote, err)
		}
		b.files++
		b.bytes += int64(len(data))
		b.cs.Put(rp, data)
		return nil
	}
	info, err := os.Lstat(local)
	if err != nil {
		if os.IsNotExist(err) {
			return cmdutil.UsageErrorf(missingHint(local), "%s: no such file or directory", local) // usererrors.go
		}
		return cmdutil.UsageErrorf("", "%w", err)
	}
	if info.IsDir() {
		dir, err := repoDir(fmt.Sprintf("--add %q", remote+"="+local), remote)
		if err != nil {
			return err
		}
		files, err := committer.LoadDir(local, b.opts)
		if err != nil {
			return cmdutil.UsageErrorf("", "%w", err)
		}
		if len(files) == 0 {
			return cmdutil.UsageErrorf("", "%s: directory holds no files", local)
		}
		for _, lf := range files {
			if err := b.put(path.Join(dir, lf.Path), lf); err != nil {
				return err
			}
		}
		return nil
	}
	rp, err := repoPath("repository path", remote)
	if err != nil {
		return err
	}
	lf, err := committer.LoadFile(local, rp, b.opts)
	if err != nil {
		return cmdutil.UsageErrorf("", "%w", err)
	}
	return b.put(rp, lf)
}

func (b *changeBuilder) put(rp string, lf committer.LocalFile) error {
	if err := committer.ValidatePath(rp); err != nil {
		return cmdutil.UsageErrorf("", "%s: repository path %q: %v", lf.LocalPath, rp, err)
	}
	b.files++
	b.bytes += lf.Size
	if lf.Data != nil || lf.LocalPath == "" {
		b.cs.PutMode(rp, lf.Data, lf.Mode)
	} else {
		b.cs.PutLocalFile(rp, lf.LocalPath, lf.Mode)
	}
	return nil
}

// repoPath validates a repository file path given on the command line.
func repoPath(what, p string) (string, error) {
	if err := committer.ValidatePath(p); err != nil {
		return "", cmdutil.UsageErrorf("repository paths are relative to the root, with / separators, e.g. deploy/values.yaml", "%s %q: %v", what, p, err)
	}
	return p, nil
}

// repoDir validates a repository directory given on the command line: "."
// is the root (returned as ""); a trailing "/" is dropped. An empty
// directory, "/" and "./" are refused, so that an unset shell variable
// ($DIR, /$DIR, ./$DIR) can never mean the whole repository: the library's
// rule for ChangeSet.Sync.
func repoDir(what, d string) (string, error) {
	if d == "." {
		return "", nil
	}
	if strings.Trim(d, "/") == "" || strings.TrimRight(d, "/") == "." {
		return "", cmdutil.UsageErrorf(`name the repository directory; "." is the root`, "%s: repository directory %q: want a path, or \".\" for the root", what, d)
	}
	return repoPath(what, strings.TrimRight(d, "/"))
}

// prefixDir validates --prefix: empty (the default) or "." is the root.
func prefixDir(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	return repoDir("--prefix", p)
}

// sync adds a --sync LOCAL_DIR=REMOTE_DIR. It splits at the last "=": a
// repository directory holding "=" is rarer than a local one. A LOCAL_DIR
// that is a symlink to a directory syncs that directory (LoadDir follows it).
func (b *changeBuilder) sync(s string) error {
	i := strings.LastIndex(s, "=")
	if i <= 0 {
		return cmdutil.UsageErrorf(`write it as --sync LOCAL_DIR=REMOTE_DIR, e.g. --sync ./out=deploy ("." is the root)`, "--sync %q: want LOCAL_DIR=REMOTE_DIR", s)
	}
	local, remote := s[:i], s[i+1:]
	dir, err := repoDir(fmt.Sprintf("--sync %q", s), remote)
	if err != nil {
		return err
	}
	files, err := committer.LoadDir(local, b.opts) // follows a symlinked LOCAL_DIR
	if err != nil {
		return cmdutil.UsageErrorf("", "--sync %s: %v", local, err)
	}
	for _, lf := range files {
		b.files++
		b.bytes += lf.Size
	}
	if dir == "" {
		dir = "." // the library's one name for the root
	}
	b.cs.Sync(dir, files)
	return nil
}

// parseAuthor parses "Name <email>".
func parseAuthor(s string) (*committer.Signature, error) {
	bad := cmdutil.UsageErrorf(`write it as --author "Jane Doe <jane@example.com>"`, "--author %q: want \"Name <email>\"", s)
	i := strings.LastIndex(s, "<")
	if i < 0 || !strings.HasSuffix(s, ">") || strings.ContainsAny(s, "\r\n") {
		return nil, bad
	}
	name := strings.TrimSpace(s[:i])
	email := strings.TrimSpace(s[i+1 : len(s)-1])
	if name == "" || email == "" || strings.ContainsAny(email, "<> ") {
		return nil, bad
	}
	return &committer.Signature{Name: name, Email: email}, nil
}

// stdinOnce reads stdin at most once. A read gives up when ctx is done (a
// signal), leaving the blocked read to the process's exit.
type stdinOnce struct {
	ctx  context.Context
	r    io.Reader
	data []byte
	done bool
}

func (s *stdinOnce) read() ([]byte, error) {
	if s.done {
		return s.data, nil
	}
	s.done = true
	if s.r == nil {
		return nil, nil
	}
	type result struct {
		data []byte
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		d, err := io.ReadAll(io.LimitReader(s.r, committer.MaxFileSize+1))
		ch <- result{d, err}
	}()
	var r result
	select {
	case r = <-ch:
	case <-s.ctx.Done():
		return nil, context.Cause(s.ctx)
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.data) > committer.MaxFileSize {
		return nil, fmt.Errorf("over GitHub's 100 MB file limit")
	}
	s.data = r.data
	return s.data, nil
}

// readLocal reads a file, or stdin for "-".
func readLocal(in *stdinOnce, name string) ([]byte, error) {
	if name == "-" {
		return in.read()
	}
	return os.ReadFile(name)
}
