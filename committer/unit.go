package committer

import (
	"context"
	"errors"
	"fmt"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
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
	p, err := prepare(cs)
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

// createTree creates a tree of entries on base (in chunks: see
// createTreeInChunks).
func (c *Committer) createTree(ctx context.Context, base string, entries []*object.TreeEntry) (string, error) {
	t, err := c.createTreeInChunks(ctx, base, entries)
	if err != nil {
		return "", fmt.Errorf("create tree: %w", err)
	}
	return t.SHA, nil
}

func (c *Committer) createCommit(ctx context.Context, cs *ChangeSet, message, parent, tree string) (string, error) {
	nc := rest.NewCommit{Message: message, Tree: tree, Parent: parent, Author: toAuthor(cs.Author), Committer: toAuthor(cs.Committer)}
	if c.o.signer != nil {
		if nc.Author == nil {
			return "", errors.New("signing a commit needs an author")
		}
		if nc.Author.Date.IsZero() {
			nc.Author.Date = rest.Now()
		}
		if nc.Committer == nil {
			cp := *nc.Author
			nc.Committer = &cp
		}
		if nc.Committer.Date.IsZero() {
			nc.Committer.Date = nc.Author.Date
		}
		nc.Sign = c.o.signer.Sign
	}
	sha, err := c.rest.CreateCommit(ctx, nc)
	if err != nil {
		return "", fmt.Errorf("create commit: %w", err)
	}
	return sha, nil
}

// toAuthor is a Signature in the object model (nil for none).
func toAuthor(s *Signature) *object.Signature {
	if s == nil {
		return nil
	}
	return &object.Signature{Name: s.Name, Email: s.Email, Date: s.Date}
}
