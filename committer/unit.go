package committer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// unit is one change set on its way to the branch.
type unit struct {
	cs      *ChangeSet
	p       *changes.Prepared
	message string
	editID  string  // the EditIDTrailer value message ends with; "" when none
	boot    *booted // set when this change set started an empty repository
}

// begin validates a commit's options and change set, before any request:
// the one gate of Commit, Plan and Queue.Commit.
func (c *Committer) begin(op, branch string, cs *ChangeSet, opts []CommitOption) (commitOptions, *unit, error) {
	co, err := c.commitOptions(op, branch, opts)
	if err != nil {
		return co, nil, err
	}
	u, err := c.prepareUnit(op, branch, cs)
	return co, u, err
}

func (c *Committer) commitOptions(op, branch string, opts []CommitOption) (commitOptions, error) {
	var co commitOptions
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&co); err != nil {
			return co, c.fail(op, branch, ErrInvalid, err)
		}
	}
	if err := ValidateBranch(branch); err != nil {
		return co, c.fail(op, branch, ErrInvalid, err)
	}
	if co.expectHead != "" && !object.IsSHA(co.expectHead) {
		return co, c.fail(op, branch, ErrInvalid, fmt.Errorf("expected head %q is not a 40-digit commit SHA", co.expectHead))
	}
	if co.onProtected != nil && co.tag.Name != "" {
		return co, c.fail(op, branch, ErrInvalid, errors.New("Tag and WithPullRequestOnProtected cannot be combined: tag the merge commit once the pull request is merged"))
	}
	if co.createFrom != "" && !object.IsSHA(co.createFrom) {
		if err := ValidateBranch(co.createFrom); err != nil {
			return co, c.fail(op, branch, ErrInvalid, fmt.Errorf("base ref: %w", err))
		}
	}
	return co, nil
}

func (c *Committer) prepareUnit(op, branch string, cs *ChangeSet) (*unit, error) {
	p, err := prepare(cs, c.lfs != nil)
	if err != nil {
		return nil, c.fail(op, branch, ErrInvalid, err)
	}
	if c.o.signer != nil && cs.Author == nil {
		return nil, c.fail(op, branch, ErrInvalid, errors.New("signing a commit needs an author: set ChangeSet.Author"))
	}
	msg, id := changes.CommitMessage(cs.Message, cs.OmitEditID, p)
	return &unit{cs: cs, p: p, message: msg, editID: id}, nil
}

// completeResolve makes a resolution made without writing (resolve with
// full set) into what resolve makes for a commit: its subtrees created,
// the trees it makes predicted, only the paths it changes listed.
func (c *Committer) completeResolve(ctx context.Context, v *view, r *resolved) (*resolved, error) {
	if err := c.resolver().Finish(ctx, v, &r.Resolved); err != nil {
		return nil, err
	}
	changes := r.changes[:0:0]
	for _, f := range r.changes {
		if f.Action != Unchanged {
			changes = append(changes, f)
		}
	}
	r.changes = changes
	return r, nil
}

func newResult(c *Committer, branch string, changes []FileChange) *Result {
	r := &Result{Repository: c.Repository(), Branch: branch, Files: changes, Changed: []string{}}
	for _, f := range changes {
		if f.Action != Unchanged {
			r.Changed = append(r.Changed, f.Path)
		}
	}
	return r
}

// booted records the first commit of an empty repository, made for a unit.
type booted struct {
	commit, tree string
	change       FileChange
}

// apply marks a result as the landing of a bootstrapped change set.
func (b *booted) apply(r *Result) {
	if b == nil {
		return
	}
	r.Bootstrapped = true
	r.Files = append([]FileChange{b.change}, r.Files...)
	r.Changed = append([]string{b.change.Path}, r.Changed...)
	if r.NoOp {
		r.NoOp = false
		r.Commit, r.Tree, r.Parent = b.commit, b.tree, ""
	}
}

// annotate says, in an error about a bootstrapped change set, that its
// first commit landed although the rest did not.
func (b *booted) annotate(err error) error {
	var e *Error
	if b == nil || !errors.As(err, &e) {
		return err
	}
	cp := *e
	cp.Err = fmt.Errorf("%w (the empty repository's first commit %s, holding %s, landed; the rest of the change set did not)", e.Err, short(b.commit), b.change.Path)
	return &cp
}

// missing returns the names of want that have lacks (compared without
// case when fold).
func missing(want, have []string, fold bool) []string {
	seen := map[string]bool{}
	norm := func(s string) string {
		if fold {
			return strings.ToLower(s)
		}
		return s
	}
	for _, h := range have {
		seen[norm(h)] = true
	}
	var out []string
	for _, w := range want {
		if !seen[norm(w)] {
			out = append(out, w)
		}
	}
	return out
}

func wrapIf(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}

// Operations a PullRequestResult reports.
const (
	PullRequestCreated   = "created"   // this call opened it
	PullRequestUpdated   = "updated"   // reused: a commit landed on it, or its title or body changed
	PullRequestUnchanged = "unchanged" // reused: nothing landed, its title and body were already as given
)
