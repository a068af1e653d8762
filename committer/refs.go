package committer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
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
	// Not Repositories.GetBranch: in go-github v66 it bypasses Client.Do, so
	// its errors are untyped and rate limits go unrecorded.
	req, err := c.client.NewRequest(http.MethodGet, c.repoURL("branches", branch), nil)
	if err != nil {
		return "", "", err
	}
	b := new(github.Branch)
	resp, err := c.client.Do(branchRead(ctx, branch), req, b)
	if resp != nil && resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return "", "", &redirectedError{branch: branch, to: redirectTarget(resp.Header.Get("Location"))}
	}
	if err != nil {
		if statusOf(err) == http.StatusNotFound || statusOf(err) == http.StatusConflict {
			// GitHub answers 404 Branch not found for any branch of an
			// empty repository too; tell the two apart.
			if c.isEmpty(ctx) {
				return "", "", errEmptyRepo
			}
			if statusOf(err) == http.StatusNotFound && messageIs(err, "Branch not found") {
				return "", "", errBranchMissing
			}
		}
		return "", "", fmt.Errorf("read branch %s: %w", branch, err)
	}
	if b.GetName() != branch {
		return "", "", &redirectedError{branch: branch, to: b.GetName()}
	}
	commit = b.GetCommit().GetSHA()
	tree = b.GetCommit().GetCommit().GetTree().GetSHA()
	if commit == "" {
		return "", "", fmt.Errorf("read branch %s: reply has no head commit", branch)
	}
	if tree == "" {
		return c.commitTree(ctx, commit)
	}
	return commit, tree, nil
}

// redirectTarget returns the branch name a branches/{b} URL names.
func redirectTarget(loc string) string {
	u, err := url.Parse(loc)
	if err != nil {
		return ""
	}
	_, name, ok := strings.Cut(u.Path, "/branches/")
	if !ok {
		return ""
	}
	return name
}

// isEmpty reports whether the repository has no commits: listing its
// branches then fails with 409 "Git Repository is empty.".
func (c *Committer) isEmpty(ctx context.Context) bool {
	_, _, err := c.client.Git.ListMatchingRefs(ctx, c.owner, c.repo, &github.ReferenceListOptions{Ref: "heads/"})
	return statusOf(err) == http.StatusConflict
}

func (c *Committer) commitTree(ctx context.Context, sha string) (string, string, error) {
	got, _, err := c.client.Git.GetCommit(ctx, c.owner, c.repo, sha)
	if err != nil {
		return "", "", fmt.Errorf("read commit %s: %w", short(sha), err)
	}
	return got.GetSHA(), got.GetTree().GetSHA(), nil
}

// resolveBase returns the commit and tree a new branch starts from: ref is
// a commit SHA or a branch name.
func (c *Committer) resolveBase(ctx context.Context, ref string) (string, string, error) {
	if isSHA(ref) {
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
	return mv, err
}

// patchRef is moveRef's fast-forward (REST PATCH, force=false).
func (c *Committer) patchRef(ctx context.Context, branch, commit string) (refMove, error) {
	ref := &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(commit)}}
	l := c.startLanding(ctx)
	_, _, err := c.client.Git.UpdateRef(l.ctx, c.owner, c.repo, ref, false)
	err = l.done(err)
	if err == nil {
		return refMove{won: true}, nil
	}
	if l.unsent() {
		return refMove{}, l.notSent("update ref")
	}
	switch v, err := judge(toUpdateRef, err); v {
	case verdictLostRace:
		return refMove{}, nil
	case verdictMissing:
		return refMove{missing: true}, fmt.Errorf("update ref: %w (deleted or renamed while committing?)", err)
	case verdictLimited:
		return refMove{}, err
	case verdictUnknown:
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
	ref := &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(commit)}}
	l := c.startLanding(ctx)
	_, _, err := c.client.Git.CreateRef(l.ctx, c.owner, c.repo, ref)
	err = l.done(err)
	if err == nil {
		return refMove{won: true}, nil
	}
	if l.unsent() {
		return refMove{}, l.notSent("create ref")
	}
	switch v, err := judge(toCreateRef, err); v {
	case verdictLostRace:
		return refMove{}, nil
	case verdictLimited:
		return refMove{}, err
	case verdictUnknown:
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
	got, _, err := c.client.Git.GetRef(rctx, c.owner, c.repo, "heads/"+branch)
	if err != nil {
		if statusOf(err) == http.StatusNotFound {
			return false, nil
		}
		return false, c.unknown(cause, err)
	}
	landed, err := c.landedIn(rctx, got.GetObject().GetSHA(), commit)
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
	cmp, _, err := c.client.Repositories.CompareCommits(ctx, c.owner, c.repo, tip, commit, &github.ListOptions{PerPage: 1})
	if err != nil {
		return false, fmt.Errorf("compare %s with %s: %w", short(tip), short(commit), err)
	}
	switch s := cmp.GetStatus(); s {
	case "identical", "behind":
		return true, nil
	case "ahead", "diverged":
		return false, nil
	default:
		return false, fmt.Errorf("compare %s with %s: unexpected status %q", short(tip), short(commit), s)
	}
}

// parents returns a commit's parents and message, read from GitHub on
// every call (nothing is cached).
func (c *Committer) parents(ctx context.Context, sha string) ([]string, string, error) {
	got, _, err := c.client.Git.GetCommit(ctx, c.owner, c.repo, sha)
	if err != nil {
		return nil, "", fmt.Errorf("read commit %s: %w", short(sha), err)
	}
	var p []string
	for _, parent := range got.Parents {
		p = append(p, parent.GetSHA())
	}
	return p, got.GetMessage(), nil
}
