package refs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/landing"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// ErrBranchMissing and ErrEmptyRepo say why a branch head cannot be read:
// the branch is not there, or the repository has no commit at all.
var (
	ErrBranchMissing = errors.New("branch not found")
	ErrEmptyRepo     = errors.New("repository is empty")
)

// RedirectedError says the branch's name only redirects to another branch
// (GitHub answers GET branches/{b} with 301 for a renamed branch, and for
// master in repositories that never had one): the branch is not there
// under that name.
type RedirectedError struct{ branch, to string }

func (e *RedirectedError) Error() string {
	if e.to == "" {
		return fmt.Sprintf("the name %q only redirects to another branch", e.branch)
	}
	return fmt.Sprintf("the name %q only redirects to branch %q (renamed?)", e.branch, e.to)
}

// Is makes a redirected name an ErrBranchMissing.
func (e *RedirectedError) Is(target error) bool { return target == ErrBranchMissing }

// ReadHead returns the head commit of branch and its tree, in one request
// (GET branches/{b}). It never follows a redirect: a 301, or a reply about a
// branch of another name, means the branch is missing under this name
// (ErrBranchMissing, as a *RedirectedError). See
// https://docs.github.com/rest/branches/branches#get-a-branch.
func (r *Refs) ReadHead(ctx context.Context, branch string) (commit, tree string, err error) {
	commit, tree, _, err = r.ReadHeadAge(ctx, branch)
	return commit, tree, err
}

// ReadHeadAge is ReadHead, and how long ago the head was committed as
// GitHub's reply tells it (rest.Head.Age; -1 when it does not).
func (r *Refs) ReadHeadAge(ctx context.Context, branch string) (commit, tree string, age time.Duration, err error) {
	commit, tree, age, err = r.readHead(ctx, branch)
	if err != nil {
		age = -1
	}
	return commit, tree, age, err
}

func (r *Refs) readHead(ctx context.Context, branch string) (commit, tree string, age time.Duration, err error) {
	b, err := r.rest.Branch(ctx, branch)
	age = b.Age
	if b.Redirect {
		return "", "", -1, &RedirectedError{branch: branch, to: rest.RedirectTarget(b.Location)}
	}
	if err != nil {
		if rest.Status(err) == http.StatusNotFound || rest.Status(err) == http.StatusConflict {
			// GitHub answers 404 Branch not found for any branch of an
			// empty repository too; tell the two apart.
			if r.isEmpty(ctx) {
				return "", "", -1, ErrEmptyRepo
			}
			if rest.Status(err) == http.StatusNotFound && rest.MessageIs(err, "Branch not found") {
				// GitHub's reply stays in the chain: its status and
				// request id are the error's.
				return "", "", -1, fmt.Errorf("%w (%w)", ErrBranchMissing, err)
			}
		}
		return "", "", -1, fmt.Errorf("read branch %s: %w", branch, err)
	}
	if b.Name != branch {
		return "", "", -1, &RedirectedError{branch: branch, to: b.Name}
	}
	commit, tree = b.Commit, b.Tree
	if commit == "" {
		return "", "", -1, fmt.Errorf("read branch %s: reply has no head commit", branch)
	}
	if tree == "" {
		commit, tree, err = r.CommitTree(ctx, commit)
		return commit, tree, age, err
	}
	return commit, tree, age, nil
}

// isEmpty reports whether the repository has no commits: listing its
// branches then fails with 409 "Git Repository is empty.".
func (r *Refs) isEmpty(ctx context.Context) bool {
	return rest.Status(r.rest.ListHeads(ctx)) == http.StatusConflict
}

// CommitTree returns the commit sha, as GitHub names it, and its tree.
func (r *Refs) CommitTree(ctx context.Context, sha string) (string, string, error) {
	got, err := r.rest.Commit(ctx, sha)
	if err != nil {
		return "", "", err
	}
	return got.SHA, got.Tree, nil
}

// ResolveBase returns the commit and tree a new branch starts from: ref is
// a commit SHA or a branch name.
func (r *Refs) ResolveBase(ctx context.Context, ref string) (string, string, error) {
	if object.IsSHA(ref) {
		return r.CommitTree(ctx, ref)
	}
	commit, tree, err := r.ReadHead(ctx, ref)
	if errors.Is(err, ErrBranchMissing) {
		return "", "", &kind.Cause{Kind: kind.NotFound, Err: fmt.Errorf("base branch %q does not exist", ref)}
	}
	if errors.Is(err, ErrEmptyRepo) {
		return "", "", &kind.Cause{Kind: kind.NotFound, Err: fmt.Errorf("base branch %q does not exist: the repository is empty", ref)}
	}
	return commit, tree, err
}

// Move is the outcome of one ref write.
type Move struct {
	Won       bool // the branch now holds (or descends from) our commit
	Ambiguous bool // settled by reading the branch: a delayed write could still land
	Missing   bool // the branch is not there (PATCH: "Reference does not exist")
	// Untagged: an ambiguous REST move (the fallback) that may land later
	// without its tag, which is created (RESTTag) when it is found landed.
	Untagged bool
}

// Move moves the branch from the head from (the one the commit was
// built on) to commit: with a strict compare-and-swap (GraphQL updateRefs,
// beforeOid = from: see swapRef) where GitHub has it, else by fast-forward
// (PATCH git/refs/heads/B, force=false), which accepts the move from any
// ancestor of commit. An ambiguous outcome (no answer, or a 5xx) is
// settled by reading the ref back, never by sending the update again. See
// https://docs.github.com/rest/git/refs#update-a-reference.
//
// A tag (Tag) moves in the same updateRefs call; on the REST fallback it is
// checked before and created right after the branch moves (not atomic).
func (r *Refs) Move(ctx context.Context, branch, from, commit string, t Tag) (Move, error) {
	if mv, err, done := r.swapRef(ctx, branch, from, commit, t); done {
		return mv, err
	}
	if err := r.restTagExists(ctx, t); err != nil {
		return Move{}, err
	}
	mv, err := r.patchRef(ctx, branch, commit)
	if err == nil && mv.Won && t.Name != "" {
		err = r.RESTTag(ctx, t, commit)
	}
	mv.Untagged = err == nil && mv.Ambiguous && !mv.Won && t.Name != ""
	return mv, err
}

// CreateTagged creates the branch at commit (createRef) and then the tag,
// if any, over REST: a new branch and its tag are not created atomically.
func (r *Refs) CreateTagged(ctx context.Context, branch, commit string, t Tag) (Move, error) {
	if err := r.restTagExists(ctx, t); err != nil {
		return Move{}, err
	}
	mv, err := r.CreateRef(ctx, branch, commit)
	if err == nil && mv.Won && t.Name != "" {
		err = r.RESTTag(ctx, t, commit)
	}
	mv.Untagged = err == nil && mv.Ambiguous && !mv.Won && t.Name != ""
	return mv, err
}

// patchRef is Move's fast-forward (REST PATCH, force=false).
func (r *Refs) patchRef(ctx context.Context, branch, commit string) (Move, error) {
	return r.restRefWrite(ctx, rest.ToUpdateRef, "update ref", branch, commit, func(ctx context.Context) error {
		return r.rest.UpdateRef(ctx, "refs/heads/"+branch, commit, false)
	})
}

// CreateRef creates the branch pointing at commit (POST git/refs). A lost
// creation race ("Reference already exists") is not won; see
// https://docs.github.com/rest/git/refs#create-a-reference.
func (r *Refs) CreateRef(ctx context.Context, branch, commit string) (Move, error) {
	return r.restRefWrite(ctx, rest.ToCreateRef, "create ref", branch, commit, func(ctx context.Context) error {
		return r.rest.CreateRef(ctx, "refs/heads/"+branch, commit)
	})
}

// restRefWrite sends one REST write of the branch ref as a landing write
// and reads its answer (rest.Judge for w): a lost race is no error and not
// won; an unknown outcome is settled by reading the ref.
func (r *Refs) restRefWrite(ctx context.Context, w rest.Answer, what, branch, commit string, send func(context.Context) error) (Move, error) {
	l := landing.Start(ctx, r.cfg.LandingGrace)
	err := l.Done(send(l.Ctx))
	if err == nil {
		return Move{Won: true}, nil
	}
	if l.Unsent() {
		return Move{}, l.NotSent(what)
	}
	switch v, err := rest.Judge(w, err); v {
	case rest.LostRace:
		return Move{}, nil
	case rest.Missing:
		return Move{Missing: true}, fmt.Errorf("%s: %w (deleted or renamed while committing?)", what, err)
	case rest.Limited:
		return Move{}, err
	case rest.Unknown:
		won, err := r.Settle(ctx, branch, commit, err)
		return Move{Won: won, Ambiguous: true}, err
	default:
		return Move{}, fmt.Errorf("%s: %w", what, err)
	}
}

// Settle reads the ref after a write whose outcome is unknown. It uses a
// context that outlives the caller's cancellation, briefly (see
// settleContext), so that a deadline hit during the write still gets an
// answer. The write landed if the ref holds commit or a descendant of it
// (another writer may already have built on it); where that cannot be
// told, the outcome is kind.UnknownOutcome. Not landed (yet) is not a proof:
// the write may still be applied; the driver decides with what it knows.
func (r *Refs) Settle(ctx context.Context, branch, commit string, cause error) (bool, error) {
	if ctx.Err() != nil {
		return false, nil // the caller is gone: the driver's end settles it, once
	}
	rctx, cancel := landing.SettleContext(ctx, r.cfg.LandingGrace)
	defer cancel()
	r.cfg.Logger.DebugContext(ctx, "ref update outcome unknown; reading the ref", "error", cause)
	_, tip, err := r.rest.Ref(rctx, "heads/"+branch)
	if err != nil {
		if rest.Status(err) == http.StatusNotFound {
			return false, nil
		}
		return false, r.unknown(cause, err)
	}
	landed, err := r.LandedIn(rctx, tip, commit)
	if err != nil {
		return false, r.unknown(cause, err)
	}
	return landed, nil
}

func (r *Refs) unknown(cause, err error) error {
	return &kind.Cause{Kind: kind.UnknownOutcome, Err: fmt.Errorf("update ref: %w; then reading it back: %w; read the branch before retrying", cause, err)}
}

// LandedIn reports whether commit is tip or one of its ancestors, with one
// request to the compare API (GET compare/{tip}...{commit}, one page of
// one commit): it describes commit relative to tip, so "identical" or
// "behind" means commit is in tip's history, whatever the number of
// commits between them. See
// https://docs.github.com/rest/commits/commits#compare-two-commits.
func (r *Refs) LandedIn(ctx context.Context, tip, commit string) (bool, error) {
	if tip == commit {
		return true, nil
	}
	status, err := r.rest.Compare(ctx, tip, commit)
	if err != nil {
		return false, fmt.Errorf("compare %s with %s: %w", kind.Short(tip), kind.Short(commit), err)
	}
	switch s := status; s {
	case "identical", "behind":
		return true, nil
	case "ahead", "diverged":
		return false, nil
	default:
		return false, fmt.Errorf("compare %s with %s: unexpected status %q", kind.Short(tip), kind.Short(commit), s)
	}
}

// Parents returns a commit's parents and message (GET git/commits/{sha}).
func (r *Refs) Parents(ctx context.Context, sha string) ([]string, string, error) {
	got, err := r.rest.Commit(ctx, sha)
	if err != nil {
		return nil, "", err
	}
	return got.Parents, got.Message, nil
}
