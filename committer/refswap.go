package committer

import (
	"context"
	"fmt"
	"sync"

	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// The strict ref update. GitHub's REST ref update (PATCH git/refs,
// force=false) checks only that the move is a fast-forward: after someone
// resets the branch backwards to an ancestor of the head a commit was
// built on, that update still lands and brings back what the reset
// removed. GraphQL updateRefs takes, per ref, beforeOid, the value the ref
// must have, and applies its updates atomically: with beforeOid = the head
// the commit was built on, the branch moves only from that head. It is a
// schema preview (Accept: application/vnd.github.update-refs-preview+json);
// where GitHub does not have it (an older GitHub Enterprise Server, the
// preview gone, no GraphQL endpoint) or WithFastForwardRefUpdates asks,
// the REST fast-forward is used, and the debug log says so once.

// refSwap is one Committer's state of the strict ref update.
type refSwap struct {
	mu   sync.Mutex
	id   string // the repository's node ID, read once
	off  bool   // GitHub has no updateRefs: every move is a REST fast-forward
	said bool   // the debug log said so
}

// strict reports whether moves are tried with updateRefs.
func (c *Committer) strict() bool {
	if c.o.fastForwardOnly {
		return false
	}
	c.swap.mu.Lock()
	defer c.swap.mu.Unlock()
	return !c.swap.off
}

// repositoryID returns the repository's node ID, which updateRefs names
// the repository by, cached, as it never changes. It usually comes with
// the commit's path lookup (view.go prefetch: the query asks for
// Repository.id) or DefaultBranch's read, at no request of its own; where
// neither was sent (no paths to look up, GraphQL path lookups unavailable)
// it is read once per Committer (GET /repos/{owner}/{repo}, which follows
// a renamed repository as every REST read does). See
// https://docs.github.com/rest/repos/repos#get-a-repository.
func (c *Committer) repositoryID(ctx context.Context) (string, error) {
	c.swap.mu.Lock()
	id := c.swap.id
	c.swap.mu.Unlock()
	if id != "" {
		return id, nil
	}
	got, err := c.rest.Repository(ctx)
	if err != nil {
		return "", err
	}
	if got.NodeID == "" {
		return "", fmt.Errorf("GET /repos/%s: reply has no node_id", c.Repository())
	}
	c.knowRepositoryID(got.NodeID)
	return got.NodeID, nil
}

// knowRepositoryID caches the repository's node ID from a reply that
// carries it.
func (c *Committer) knowRepositoryID(id string) {
	if id == "" {
		return
	}
	c.swap.mu.Lock()
	c.swap.id = id
	c.swap.mu.Unlock()
}

// unavailable turns the strict update off for this Committer, after an
// answer that says GitHub has no updateRefs, and says so once.
func (c *Committer) unavailable(ctx context.Context, err error) {
	c.swap.mu.Lock()
	c.swap.off = true
	say := !c.swap.said
	c.swap.said = true
	c.swap.mu.Unlock()
	if say {
		c.o.logger.DebugContext(ctx, "GraphQL updateRefs is not available; moving branches by REST fast-forward, which does not refuse a branch reset backwards, and ExpectHead is checked when the head is read only",
			"repo", c.Repository(), "error", err)
	}
}

// swapRef moves the branch from the head from to commit with updateRefs
// (beforeOid = from). done is false when GitHub has no updateRefs: nothing
// was applied, and the caller moves the branch by REST instead.
func (c *Committer) swapRef(ctx context.Context, branch, from, commit string, t tagSpec) (mv refMove, err error, done bool) {
	if !c.strict() || from == "" {
		return refMove{}, nil, false
	}
	id, err := c.repositoryID(ctx)
	if err != nil {
		if r := rest.Refusal("read the repository's node ID", err); r != nil {
			return refMove{}, r, true
		}
		return refMove{}, fmt.Errorf("read the repository's node ID (for updateRefs): %w", err), true
	}
	ref := "refs/heads/" + branch
	ups := []ghgraphql.RefUpdate{{Name: ref, BeforeOID: from, AfterOID: commit}}
	if t.name != "" {
		target, err := c.tagTarget(ctx, t, commit)
		if err != nil {
			return refMove{}, err, true
		}
		tu := ghgraphql.RefUpdate{Name: t.ref(), BeforeOID: ghgraphql.ZeroOID, AfterOID: target}
		if t.force {
			tu.BeforeOID, tu.Force = "", true
		}
		ups = append(ups, tu)
	}
	l := c.startLanding(ctx)
	err = c.gql.UpdateRefs(l.ctx, id, ups)
	err = l.done(err)
	if err == nil {
		return refMove{won: true}, nil, true
	}
	if l.unsent() {
		return refMove{}, l.notSent("update ref"), true
	}
	if ghgraphql.IsUnavailable(err) {
		c.unavailable(ctx, err)
		return refMove{}, nil, false
	}
	tagRef := ""
	if t.name != "" {
		tagRef = t.ref()
	}
	switch v, err := rest.JudgeRefs(err, ref, tagRef); v {
	case rest.TagExists:
		return refMove{}, tagExists(t, ""), true
	case rest.LostRace:
		return refMove{}, nil, true
	case rest.Limited:
		return refMove{}, err, true
	case rest.Unknown:
		won, err := c.settle(ctx, branch, commit, err)
		return refMove{won: won, ambiguous: true}, err, true
	default:
		return refMove{}, fmt.Errorf("update ref: %w", err), true
	}
}
