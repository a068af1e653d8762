package refs

import (
	"context"
	"fmt"

	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/landing"
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

// strict reports whether moves are tried with updateRefs.
func (r *Refs) strict() bool {
	if r.cfg.FastForwardOnly {
		return false
	}
	r.swap.mu.Lock()
	defer r.swap.mu.Unlock()
	return !r.swap.off
}

// repositoryID returns the repository's node ID, which updateRefs names
// the repository by, cached, as it never changes. It usually comes with
// the commit's path lookup (view.go prefetch: the query asks for
// Repository.id) or DefaultBranch's read, at no request of its own; where
// neither was sent (no paths to look up, GraphQL path lookups unavailable)
// it is read once per Committer (GET /repos/{owner}/{repo}, which follows
// a renamed repository as every REST read does). See
// https://docs.github.com/rest/repos/repos#get-a-repository.
func (r *Refs) repositoryID(ctx context.Context) (string, error) {
	r.swap.mu.Lock()
	id := r.swap.id
	r.swap.mu.Unlock()
	if id != "" {
		return id, nil
	}
	got, err := r.rest.Repository(ctx)
	if err != nil {
		return "", err
	}
	if got.NodeID == "" {
		return "", fmt.Errorf("GET /repos/%s: reply has no node_id", r.cfg.Repo)
	}
	r.KnowRepositoryID(got.NodeID)
	return got.NodeID, nil
}

// KnowRepositoryID caches the repository's node ID from a reply that
// carries it.
func (r *Refs) KnowRepositoryID(id string) {
	if id == "" {
		return
	}
	r.swap.mu.Lock()
	r.swap.id = id
	r.swap.mu.Unlock()
}

// unavailable turns the strict update off for this Committer, after an
// answer that says GitHub has no updateRefs, and says so once.
func (r *Refs) unavailable(ctx context.Context, err error) {
	r.swap.mu.Lock()
	r.swap.off = true
	say := !r.swap.said
	r.swap.said = true
	r.swap.mu.Unlock()
	if say {
		r.cfg.Logger.DebugContext(ctx, "GraphQL updateRefs is not available; moving branches by REST fast-forward, which does not refuse a branch reset backwards, and ExpectHead is checked when the head is read only",
			"repo", r.cfg.Repo, "error", err)
	}
}

// swapRef moves the branch from the head from to commit with updateRefs
// (beforeOid = from). done is false when GitHub has no updateRefs: nothing
// was applied, and the caller moves the branch by REST instead.
func (r *Refs) swapRef(ctx context.Context, branch, from, commit string, t Tag) (mv Move, err error, done bool) {
	if !r.strict() || from == "" {
		return Move{}, nil, false
	}
	id, err := r.repositoryID(ctx)
	if err != nil {
		if r := rest.Refusal("read the repository's node ID", err); r != nil {
			return Move{}, r, true
		}
		return Move{}, fmt.Errorf("read the repository's node ID (for updateRefs): %w", err), true
	}
	ref := "refs/heads/" + branch
	ups := []ghgraphql.RefUpdate{{Name: ref, BeforeOID: from, AfterOID: commit}}
	if t.Name != "" {
		target, err := r.tagTarget(ctx, t, commit)
		if err != nil {
			return Move{}, err, true
		}
		tu := ghgraphql.RefUpdate{Name: t.Ref(), BeforeOID: ghgraphql.ZeroOID, AfterOID: target}
		if t.Force {
			tu.BeforeOID, tu.Force = "", true
		}
		ups = append(ups, tu)
	}
	l := landing.Start(ctx, r.cfg.LandingGrace)
	err = r.gql.UpdateRefs(l.Ctx, id, ups)
	err = l.Done(err)
	if err == nil {
		return Move{Won: true}, nil, true
	}
	if l.Unsent() {
		return Move{}, l.NotSent("update ref"), true
	}
	if ghgraphql.IsUnavailable(err) {
		r.unavailable(ctx, err)
		return Move{}, nil, false
	}
	tagRef := ""
	if t.Name != "" {
		tagRef = t.Ref()
	}
	switch v, err := rest.JudgeRefs(err, ref, tagRef); v {
	case rest.TagExists:
		return Move{}, TagExists(t, ""), true
	case rest.LostRace:
		return Move{}, nil, true
	case rest.Limited:
		return Move{}, err, true
	case rest.Unknown:
		won, err := r.Settle(ctx, branch, commit, err)
		return Move{Won: won, Ambiguous: true}, err, true
	default:
		return Move{}, fmt.Errorf("update ref: %w", err), true
	}
}
