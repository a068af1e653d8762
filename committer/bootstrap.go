package committer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/internal/loop"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/landing"
	"github.com/ghcommitter/ghcommitter/committer/internal/refs"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// GitHub's Git Data API answers 409 "Git Repository is empty." to every
// write on a repository with no commit; only the contents API can make the
// first commit (PUT contents/{path}, one file). So an empty repository is
// started with one of the change set's own plain files, exactly as the
// change set asks for it, and the rest follows in a second commit built by
// the ordinary attempt loop. Preconditions are checked, and edit functions
// run, against the empty tree before anything is written; the bootstrap
// file's edit never runs again.

// firstFile is the file an empty repository is started with.
type firstFile struct {
	path string
	sha  string
	data []byte
}

// maxBootstrapAttempts bounds the contents-API writes that try to start an
// empty repository whose replies were lost.
const maxBootstrapAttempts = 3

// bootstrap starts the empty repository with u's first plain file. It
// returns the head and tree to build the rest of u on: the new root commit,
// or the head another writer made first (then u is unchanged and is built
// on it as a whole), or reread: the repository is no longer empty, read
// the branch again.
func (c *Committer) bootstrap(ctx context.Context, branch string, u *unit) (loop.Head, error) {
	if u.boot != nil {
		return loop.Head{Reread: true}, nil // already started by u; the branch is there now
	}
	f, err := c.planBootstrap(ctx, u.p)
	if err != nil {
		return loop.Head{}, err
	}
	var cause error
	for range maxBootstrapAttempts {
		commit, tree, err := c.putFirst(ctx, branch, u, f)
		if err == nil {
			u.boot = &booted{commit: commit, tree: tree, change: FileChange{Path: f.path, Action: Added}}
			u.p = withoutBootstrapFile(u.p, f.path)
			return loop.Head{Head: commit, Tree: tree}, nil
		}
		var ue *landing.UnsentError
		if errors.As(err, &ue) {
			if cause != nil {
				// An earlier PUT was sent and may still land.
				return loop.Head{}, c.unknownBoot(cause, err)
			}
			return loop.Head{}, err // never sent: nothing landed
		}
		switch v, jerr := rest.Judge(rest.ToContents, err); v {
		case rest.Limited:
			return loop.Head{}, jerr
		case rest.Failed:
			return loop.Head{}, fmt.Errorf("bootstrap empty repository: %w", jerr)
		}
		// No clear answer (or: the file exists already, or the repository
		// is no longer empty): read the branch to tell who started it.
		cause = err
		hr, again, err := c.bootstrapped(ctx, branch, u, f, cause)
		if !again {
			return hr, err
		}
	}
	return loop.Head{}, c.unknownBoot(cause, errors.New("the repository is still empty"))
}

// bootstrapped reads the branch after a first-commit write whose answer
// did not say whether it landed (cause): again is true when the
// repository is still empty and the write may be sent again; else the
// head to build on (u.boot set when the root commit is u's own).
func (c *Committer) bootstrapped(ctx context.Context, branch string, u *unit, f *firstFile, cause error) (hr loop.Head, again bool, err error) {
	rctx, cancel := c.settleContext(ctx)
	head, tree, err := c.refs.ReadHead(rctx, branch)
	cancel()
	switch {
	case errors.Is(err, refs.ErrEmptyRepo) && ctx.Err() != nil:
		// The PUT was sent, and GitHub may still apply it; the caller
		// is gone, so it is not sent again.
		return loop.Head{}, false, c.unknownBoot(cause, errors.New("the repository is still empty, and the write may yet land"))
	case errors.Is(err, refs.ErrEmptyRepo):
		return loop.Head{}, true, nil // nothing landed: a contents PUT without sha can only create, so sending it again is safe
	case errors.Is(err, refs.ErrBranchMissing):
		return loop.Head{Reread: true}, false, nil
	case err != nil:
		return loop.Head{}, false, c.unknownBoot(cause, err)
	}
	rctx, cancel = c.settleContext(ctx)
	root, rootTree, ours, err := c.isOurBootstrap(rctx, head, u, f)
	cancel()
	if err != nil {
		return loop.Head{}, false, c.unknownBoot(cause, err)
	}
	if ours {
		u.boot = &booted{commit: root, tree: rootTree, change: FileChange{Path: f.path, Action: Added}}
		u.p = withoutBootstrapFile(u.p, f.path)
	}
	return loop.Head{Head: head, Tree: tree}, false, nil
}

func (c *Committer) unknownBoot(cause, err error) error {
	return &kind.Cause{Kind: ErrUnknownOutcome, Err: fmt.Errorf("bootstrap empty repository: %w; then reading the branch: %w", cause, err),
		Hint: "check the branch for the first commit before retrying: it may have landed"}
}

// planBootstrap checks p against the empty tree (preconditions, edits) and
// picks the plain file to start the repository with: the smallest. A change
// set with none (only symlinks, executables or deletes) cannot start a
// repository: ErrInvalid.
func (c *Committer) planBootstrap(ctx context.Context, p *changes.Prepared) (*firstFile, error) {
	r, err := c.resolve(ctx, newView(c, ""), p, true)
	if err != nil {
		return nil, err
	}
	var best *effect
	for i, e := range r.Effects {
		if !e.Deleted && !e.Dir && Mode(e.Mode) == ModeFile && (best == nil || effectSize(p, e) < effectSize(p, *best)) {
			best = &r.Effects[i]
		}
	}
	if best == nil {
		return nil, &kind.Cause{Kind: ErrInvalid, Err: errors.New("the repository is empty, and the change set writes no plain file (mode 100644) to start it with: " +
			"GitHub's Git Data API does not work on an empty repository, and its first commit can only hold one plain file; add one (a README, say)")}
	}
	data := best.Data
	if data == nil {
		if data, err = p.Read(best.Path); err != nil {
			return nil, &kind.Cause{Path: best.Path, Err: err}
		}
	}
	return &firstFile{path: best.Path, sha: best.SHA, data: data}, nil
}

func effectSize(p *changes.Prepared, e effect) int64 {
	if e.Data != nil {
		return int64(len(e.Data))
	}
	if s := p.Source(e.Path); s != nil {
		return s.Size
	}
	return 1 << 62
}

// putFirst makes the root commit with f through the contents API. See
// https://docs.github.com/rest/repos/contents#create-or-update-file-contents.
func (c *Committer) putFirst(ctx context.Context, branch string, u *unit, f *firstFile) (commit, tree string, err error) {
	cw := rest.ContentsWrite{Path: f.path, Content: f.data, Message: u.message, Branch: branch,
		Author: toAuthor(u.cs.Author), Committer: toAuthor(u.cs.Committer)}
	c.o.logger.DebugContext(ctx, "bootstrapping empty repository", "repo", c.Repository(), "path", f.path)
	l := c.startLanding(ctx)
	got, err := c.rest.PutContents(l.Ctx, cw)
	err = l.Done(err)
	if err != nil && l.Unsent() {
		return "", "", l.NotSent("bootstrap empty repository")
	}
	if err != nil {
		return "", "", err
	}
	return got.Commit, got.Tree, nil
}

// maxRootWalk bounds how far back isOurBootstrap looks for the root commit.
const maxRootWalk = 100

// isOurBootstrap reports whether the repository's root commit (below head)
// is u's bootstrap commit: it has u's message (which carries u's random
// Edit-Id trailer when u has edits or preconditions) and f at f's content.
func (c *Committer) isOurBootstrap(ctx context.Context, head string, u *unit, f *firstFile) (root, rootTree string, ours bool, err error) {
	sha := head
	for range maxRootWalk {
		got, err := c.rest.Commit(ctx, sha)
		if err != nil {
			return "", "", false, err
		}
		if len(got.Parents) > 0 {
			sha = got.Parents[0]
			continue
		}
		tree := got.Tree
		if strings.TrimSpace(got.Message) != strings.TrimSpace(u.message) {
			return sha, tree, false, nil
		}
		e, ok, err := c.lookup(ctx, tree, f.path)
		if err != nil {
			return "", "", false, err
		}
		return sha, tree, ok && e.SHA == f.sha, nil
	}
	return "", "", false, fmt.Errorf("no root commit within %d commits of %s", maxRootWalk, short(head))
}

// withoutBootstrapFile returns p without what the bootstrap commit already
// did: the op that writes file (its edit must not run again), the deletes
// at or above it (they found nothing on the empty tree) and the
// preconditions at or above it (they held on the empty tree).
func withoutBootstrapFile(p *changes.Prepared, file string) *changes.Prepared {
	above := func(q string) bool { return q == file || strings.HasPrefix(file, q+"/") }
	rest := &changes.Prepared{Syncs: p.Syncs}
	for _, o := range p.Ops {
		if o.Path == file || o.Kind == changes.OpDelete && above(o.Path) {
			continue
		}
		rest.Ops = append(rest.Ops, o)
	}
	for _, pre := range p.Pres {
		if !above(pre.Path) {
			rest.Pres = append(rest.Pres, pre)
		}
	}
	return rest
}
