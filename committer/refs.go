package committer

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

var (
	errBranchMissing = errors.New("branch not found")
	errEmptyRepo     = errors.New("repository is empty")
)

// redirectedError says the branch's name only redirects to another branch
// (GitHub answers GET branches/{b} with 301 for a renamed branch, and for
// master in repositories that never had one): the branch is not there
// under that name.
type redirectedError struct{ branch, to string }

func (e *redirectedError) Error() string {
	if e.to == "" {
		return fmt.Sprintf("the name %q only redirects to another branch", e.branch)
	}
	return fmt.Sprintf("the name %q only redirects to branch %q (renamed?)", e.branch, e.to)
}

func (e *redirectedError) Is(target error) bool { return target == errBranchMissing }

// readHead returns the head commit of branch and its tree, in one request
// (GET branches/{b}). It never follows a redirect: a 301, or a reply about a
// branch of another name, means the branch is missing under this name
// (errBranchMissing, as a *redirectedError). See
// https://docs.github.com/rest/branches/branches#get-a-branch.
func (c *Committer) readHead(ctx context.Context, branch string) (commit, tree string, err error) {
	b, err := c.rest.Branch(ctx, branch)
	if b.Redirect {
		return "", "", &redirectedError{branch: branch, to: rest.RedirectTarget(b.Location)}
	}
	if err != nil {
		if rest.Status(err) == http.StatusNotFound || rest.Status(err) == http.StatusConflict {
			// GitHub answers 404 Branch not found for any branch of an
			// empty repository too; tell the two apart.
			if c.isEmpty(ctx) {
				return "", "", errEmptyRepo
			}
			if rest.Status(err) == http.StatusNotFound && rest.MessageIs(err, "Branch not found") {
				return "", "", errBranchMissing
			}
		}
		return "", "", fmt.Errorf("read branch %s: %w", branch, err)
	}
	if b.Name != branch {
		return "", "", &redirectedError{branch: branch, to: b.Name}
	}
	commit, tree = b.Commit, b.Tree
	if commit == "" {
		return "", "", fmt.Errorf("read branch %s: reply has no head commit", branch)
	}
	if tree == "" {
		return c.commitTree(ctx, commit)
	}
	return commit, tree, nil
}

// isEmpty reports whether the repository has no commits: listing its
// branches then fails with 409 "Git Repository is empty.".
func (c *Committer) isEmpty(ctx context.Context) bool {
	return rest.Status(c.rest.ListHeads(ctx)) == http.StatusConflict
}

func (c *Committer) commitTree(ctx context.Context, sha string) (string, string, error) {
	got, err := c.rest.Commit(ctx, sha)
	if err != nil {
		return "", "", err
	}
	return got.SHA, got.Tree, nil
}

// resolveBase returns the commit and tree a new branch starts from: ref is
// a commit SHA or a branch name.
func (c *Committer) resolveBase(ctx context.Context, ref string) (string, string, error) {
	if changes.IsSHA(ref) {
		return c.commitTree(ctx, ref)
	}
	commit, tree, err := c.readHead(ctx, ref)
	if errors.Is(err, errBranchMissing) {
		return "", "", &kind.Cause{Kind: ErrNotFound, Err: fmt.Errorf("base branch %q does not exist", ref)}
	}
	if errors.Is(err, errEmptyRepo) {
		return "", "", &kind.Cause{Kind: ErrNotFound, Err: fmt.Errorf("base branch %q does not exist: the repository is empty", ref)}
	}
	return commit, tree, err
}

// refMove is the outcome of one ref write.
type refMove struct {
	won       bool // the branch now holds (or descends from) our commit
	ambiguous bool // settled by reading the branch: a delayed write could still land
	missing   bool // the branch is not there (PATCH: "Reference does not exist")
	// untagged: an ambiguous REST move (the fallback) that may land later
	// without its tag, which is created when it is found landed.
	untagged bool
}

// moveRef moves the branch from the head from (the one the commit was
// built on) to commit: with a strict compare-and-swap (GraphQL updateRefs,
// beforeOid = from: see swapRef) where GitHub has it, else by fast-forward
// (PATCH git/refs/heads/B, force=false), which accepts the move from any
// ancestor of commit. An ambiguous outcome (no answer, or a 5xx) is
// settled by reading the ref back, never by sending the update again. See
// https://docs.github.com/rest/git/refs#update-a-reference.
//
// A tag (Tag) moves in the same updateRefs call; on the REST fallback it is
// checked before and created right after the branch moves (not atomic).
func (c *Committer) moveRef(ctx context.Context, branch, from, commit string, t tagSpec) (refMove, error) {
	if mv, err, done := c.swapRef(ctx, branch, from, commit, t); done {
		return mv, err
	}
	if err := c.restTagExists(ctx, t); err != nil {
		return refMove{}, err
	}
	mv, err := c.patchRef(ctx, branch, commit)
	if err == nil && mv.won && t.name != "" {
		err = c.restTag(ctx, t, commit)
	}
	mv.untagged = err == nil && mv.ambiguous && !mv.won && t.name != ""
	return mv, err
}

// createTagged creates the branch at commit (createRef) and then the tag,
// if any, over REST: a new branch and its tag are not created atomically.
func (c *Committer) createTagged(ctx context.Context, branch, commit string, t tagSpec) (refMove, error) {
	if err := c.restTagExists(ctx, t); err != nil {
		return refMove{}, err
	}
	mv, err := c.createRef(ctx, branch, commit)
	if err == nil && mv.won && t.name != "" {
		err = c.restTag(ctx, t, commit)
	}
	mv.untagged = err == nil && mv.ambiguous && !mv.won && t.name != ""
	return mv, err
}

// patchRef is moveRef's fast-forward (REST PATCH, force=false).
func (c *Committer) patchRef(ctx context.Context, branch, commit string) (refMove, error) {
	l := c.startLanding(ctx)
	err := c.rest.UpdateRef(l.ctx, "refs/heads/"+branch, commit, false)
	err = l.done(err)
	if err == nil {
		return refMove{won: true}, nil
	}
	if l.unsent() {
		return refMove{}, l.notSent("update ref")
	}
	switch v, err := rest.Judge(rest.ToUpdateRef, err); v {
	case rest.LostRace:
		return refMove{}, nil
	case rest.Missing:
		return refMove{missing: true}, fmt.Errorf("update ref: %w (deleted or renamed while committing?)", err)
	case rest.Limited:
		return refMove{}, err
	case rest.Unknown:
		won, err := c.settle(ctx, branch, commit, err)
		return refMove{won: won, ambiguous: true}, err
	default:
		return refMove{}, fmt.Errorf("update ref: %w", err)
	}
}

// createRef creates the branch pointing at commit (POST git/refs). A lost
// creation race ("Reference already exists") is not won; see
// https://docs.github.com/rest/git/refs#create-a-reference.
func (c *Committer) createRef(ctx context.Context, branch, commit string) (refMove, error) {
	l := c.startLanding(ctx)
	err := c.rest.CreateRef(l.ctx, "refs/heads/"+branch, commit)
	err = l.done(err)
	if err == nil {
		return refMove{won: true}, nil
	}
	if l.unsent() {
		return refMove{}, l.notSent("create ref")
	}
	switch v, err := rest.Judge(rest.ToCreateRef, err); v {
	case rest.LostRace:
		return refMove{}, nil
	case rest.Limited:
		return refMove{}, err
	case rest.Unknown:
		won, err := c.settle(ctx, branch, commit, err)
		return refMove{won: won, ambiguous: true}, err
	default:
		return refMove{}, fmt.Errorf("create ref: %w", err)
	}
}

// settle reads the ref after a write whose outcome is unknown. It uses a
// context that outlives the caller's cancellation, briefly (see
// settleContext), so that a deadline hit during the write still gets an
// answer. The write landed if the ref holds commit or a descendant of it
// (another writer may already have built on it); where that cannot be
// told, the outcome is ErrUnknownOutcome. Not landed (yet) is not a proof:
// the write may still be applied; the driver decides with what it knows.
func (c *Committer) settle(ctx context.Context, branch, commit string, cause error) (bool, error) {
	if ctx.Err() != nil {
		return false, nil // the caller is gone: the driver's end settles it, once
	}
	rctx, cancel := c.settleContext(ctx)
	defer cancel()
	c.o.logger.DebugContext(ctx, "ref update outcome unknown; reading the ref", "error", cause)
	_, tip, err := c.rest.Ref(rctx, "heads/"+branch)
	if err != nil {
		if rest.Status(err) == http.StatusNotFound {
			return false, nil
		}
		return false, c.unknown(cause, err)
	}
	landed, err := c.landedIn(rctx, tip, commit)
	if err != nil {
		return false, c.unknown(cause, err)
	}
	return landed, nil
}

func (c *Committer) unknown(cause, err error) error {
	return &kind.Cause{Kind: ErrUnknownOutcome, Err: fmt.Errorf("update ref: %w; then reading it back: %w; read the branch before retrying", cause, err)}
}

// landedIn reports whether commit is tip or one of its ancestors, with one
// request to the compare API (GET compare/{tip}...{commit}, one page of
// one commit): it describes commit relative to tip, so "identical" or
// "behind" means commit is in tip's history, whatever the number of
// commits between them. See
// https://docs.github.com/rest/commits/commits#compare-two-commits.
func (c *Committer) landedIn(ctx context.Context, tip, commit string) (bool, error) {
	if tip == commit {
		return true, nil
	}
	status, err := c.rest.Compare(ctx, tip, commit)
	if err != nil {
		return false, fmt.Errorf("compare %s with %s: %w", short(tip), short(commit), err)
	}
	switch s := status; s {
	case "identical", "behind":
		return true, nil
	case "ahead", "diverged":
		return false, nil
	default:
		return false, fmt.Errorf("compare %s with %s: unexpected status %q", short(tip), short(commit), s)
	}
}

// parents returns a commit's parents and message (GET git/commits/{sha}).
func (c *Committer) parents(ctx context.Context, sha string) ([]string, string, error) {
	got, err := c.rest.Commit(ctx, sha)
	if err != nil {
		return nil, "", err
	}
	return got.Parents, got.Message, nil
}
