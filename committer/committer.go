package committer

import (
	"errors"
	"fmt"

	"github.com/google/go-github/v66/github"
)

// Committer commits change sets to the branches of one GitHub repository
// through the Git Data API. It is safe for concurrent use; concurrent commits
// to one branch coordinate through GitHub's fast-forward-only ref update (see
// Commit). Immutable objects it has read or uploaded are cached across
// commits and attempts.
type Committer struct {
	client *github.Client
	owner  string
	repo   string
	o      options
	cache  *objectCache
}

// New returns a Committer for the repository owner/repo. client is any
// go-github client; ghclient.New builds one with GitHub-aware retries and
// rate-limit handling, which this package relies on for transient errors of
// the idempotent requests (it retries only the ref update itself).
func New(client *github.Client, owner, repo string, opts ...Option) (*Committer, error) {
	if client == nil {
		return nil, errors.New("committer: client must not be nil")
	}
	if err := ValidateRepo(owner, repo); err != nil {
		return nil, fmt.Errorf("committer: %w", err)
	}
	o := defaultOptions()
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, fmt.Errorf("committer: %w", err)
		}
	}
	return &Committer{client: client, owner: owner, repo: repo, o: o, cache: newObjectCache()}, nil
}

// Repository returns "owner/name".
func (c *Committer) Repository() string { return c.owner + "/" + c.repo }

// Client returns the go-github client the Committer uses.
func (c *Committer) Client() *github.Client { return c.client }

// Result describes a commit that landed, or a change set that needed none.
type Result struct {
	Repository string `json:"repository"`
	Branch     string `json:"branch"`
	Commit     string `json:"commit"` // the new head; the unchanged head for a no-op
	Parent     string `json:"parent"` // the head the commit was built on
	Tree       string `json:"tree"`
	Attempts   int    `json:"attempts"`
	// Changed lists the paths the commit wrote or deleted. Small puts are
	// written without reading the branch first (see Written), so a put of
	// content that was already there can be listed.
	Changed []string     `json:"changed"`
	Files   []FileChange `json:"-"`
	// NoOp is true when the branch already held the change set's content:
	// no commit was made and the branch did not move.
	NoOp bool `json:"noop"`
	// CreatedBranch is true when this commit created the branch.
	CreatedBranch bool `json:"created_branch,omitempty"`
	// Bootstrapped is true when the repository was empty and its first
	// commit was made through the contents API.
	Bootstrapped bool `json:"bootstrapped,omitempty"`
}

func (c *Committer) fail(op, branch string, kind, err error) *Error {
	e := &Error{Op: op, Repo: c.Repository(), Branch: branch, Kind: kind, Err: err}
	var pe *pathError
	if errors.As(err, &pe) {
		e.Path = pe.path
		e.Err = pe.err
		if e.Kind == nil {
			e.Kind = pe.kind
		}
	}
	if e.Kind == nil {
		e.Kind, e.Hint = classify(err)
	} else if e.Hint == "" {
		_, e.Hint = classify(err)
	}
	return e
}

func applyCommitOptions(opts []CommitOption) commitOptions {
	var co commitOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&co)
		}
	}
	return co
}

func (c *Committer) check(op, branch string, co commitOptions) *Error {
	if err := ValidateBranch(branch); err != nil {
		return c.fail(op, branch, ErrInvalid, err)
	}
	if co.expectHead != "" && !isSHA(co.expectHead) {
		return c.fail(op, branch, ErrInvalid, fmt.Errorf("expected head %q is not a 40-digit commit SHA", co.expectHead))
	}
	if co.createFrom != "" && !isSHA(co.createFrom) {
		if err := ValidateBranch(co.createFrom); err != nil {
			return c.fail(op, branch, ErrInvalid, fmt.Errorf("base ref: %w", err))
		}
	}
	return nil
}

// begin validates a commit's options and change set, before any request.
func (c *Committer) begin(op, branch string, cs *ChangeSet, opts []CommitOption) (commitOptions, *prepared, error) {
	co := applyCommitOptions(opts)
	if e := c.check(op, branch, co); e != nil {
		return co, nil, e
	}
	p, err := prepare(cs)
	if err != nil {
		return co, nil, c.fail(op, branch, ErrInvalid, err)
	}
	if c.o.signer != nil && cs.Author == nil {
		return co, nil, c.fail(op, branch, ErrInvalid, errors.New("signing a commit needs an author: set ChangeSet.Author"))
	}
	return co, p, nil
}

func (c *Committer) missingBranch(op, branch string) *Error {
	return c.fail(op, branch, ErrNotFound, fmt.Errorf("branch %q does not exist; create it from a base (CreateBranchFrom, --create-branch-from)", branch))
}
