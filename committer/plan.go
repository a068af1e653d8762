package committer

import (
	"context"
	"errors"
	"fmt"
)

// Plan is what a change set would do to a branch, computed without writing
// anything: a dry run.
type Plan struct {
	Repository string       `json:"repository"`
	Branch     string       `json:"branch"`
	Head       string       `json:"head"` // the head it was resolved against; "" for an empty repository
	Files      []FileChange `json:"files"`
	// NewBranch is true when the branch does not exist and would be created
	// from the CreateBranchFrom base.
	NewBranch bool `json:"new_branch,omitempty"`
}

// Changes reports whether the plan changes anything.
func (p *Plan) Changes() bool {
	for _, f := range p.Files {
		if f.Action != Unchanged {
			return true
		}
	}
	return p.NewBranch
}

// Plan resolves cs against the branch's current head and reports, path by
// path, whether it would be added, modified, deleted or left unchanged. It
// runs edit functions and checks preconditions (a failed one is an
// ErrConflict, as for Commit) but sends only reads: no blob, tree, commit or
// ref is created.
func (c *Committer) Plan(ctx context.Context, branch string, cs *ChangeSet, opts ...CommitOption) (*Plan, error) {
	const op = "plan for"
	co, u, err := c.begin(op, branch, cs, opts)
	if err != nil {
		return nil, err
	}
	// A dry run refuses what the chosen engine cannot carry, as Commit does.
	if err := c.engineGate(op, branch, u, co); err != nil {
		return nil, err
	}
	if co.squash || co.maxBatch != 0 {
		return nil, c.fail(op, branch, ErrInvalid, errors.New("Squash and WithMaxBatch are options of a Queue, not of a plan"))
	}
	d := &driver{c: c, op: op, branch: branch, co: co, w: &single{c: c, branch: branch, u: u}, dryRun: true}
	plan := &Plan{Repository: c.Repository(), Branch: branch}
	hr, err := d.head(ctx, 1)
	if err != nil {
		return nil, err
	}
	head, tree, creating := hr.head, hr.tree, hr.creating
	plan.NewBranch = creating
	if co.expectHead != "" && head != co.expectHead {
		e := c.fail(op, branch, ErrConflict, fmt.Errorf("head is %s, expected %s", short(head), short(co.expectHead)))
		e.Head = head
		return nil, e
	}
	plan.Head = head
	res, err := c.resolve(ctx, newViewAt(c, head, tree), u.p, true)
	if err != nil {
		e := c.fail(op, branch, nil, err)
		e.Head = head
		return nil, e
	}
	plan.Files = res.changes
	return plan, nil
}
