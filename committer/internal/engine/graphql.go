package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/landing"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// GraphQL commits with createCommitOnBranch: one write per attempt, pinned
// to the head read (expectedHeadOid). Plain files only, up to
// MaxGraphQLBytes per commit, no chosen author or committer, no signer of
// one's own. See
// https://docs.github.com/graphql/reference/mutations#createcommitonbranch.
type GraphQL struct{}

// MaxGraphQLBytes is the largest commit GraphQL sends (file contents once
// base64-encoded, plus paths): GitHub fails payloads around 40 MB.
const MaxGraphQLBytes = 25 << 20

// Name implements Engine.
func (GraphQL) Name() string { return "graphql" }

// Refuse implements Engine.
func (g GraphQL) Refuse(ch Change) error {
	if err := oneWriteRefuse(g.Name(), ch); err != nil {
		return err
	}
	if ch.Identity {
		return errors.New("the graphql engine cannot set an author or committer (GitHub uses the token's identity): use the git-data or contents engine")
	}
	return nil
}

// Writes implements Engine.
func (GraphQL) Writes(int, bool) int { return 1 }

// Batch implements Engine: a squashed batch is one commit.
func (GraphQL) Batch(squash bool) bool { return squash }

// Queue implements Engine: a chained batch keeps each change set's
// message and author, which GraphQL cannot set.
func (GraphQL) Queue(squash bool) error {
	if !squash {
		return errors.New("a chained Queue keeps each change set's message and author, which the graphql engine cannot set: use Squash with it")
	}
	return nil
}

// BatchBytes implements Engine: a squashed batch is one request, its
// content base64-encoded.
func (GraphQL) BatchBytes() int64 { return MaxGraphQLBytes / 4 * 3 }

// Carries implements Writer.
func (GraphQL) Carries(st *Staged) error {
	if n := st.EncodedSize(); n > MaxGraphQLBytes {
		return fmt.Errorf("the graphql engine sends at most %d MiB per commit, and this one is %d bytes encoded: use the git-data engine", MaxGraphQLBytes>>20, n)
	}
	return nil
}

// Pinned implements Writer: expectedHeadOid.
func (GraphQL) Pinned() bool { return true }

// Write implements Writer: createCommitOnBranch, pinned to st.Head.
func (GraphQL) Write(ctx context.Context, env *Env, c Commit, st *Staged) (Written, error) {
	headline, body := changes.SplitMessage(c.Message)
	in := ghgraphql.CommitInput{Owner: env.Owner, Name: env.Repo, Branch: c.Branch, ExpectedHead: st.Head, Headline: headline, Body: body}
	for _, a := range st.Adds {
		in.Additions = append(in.Additions, ghgraphql.Addition{Path: a.Path, Contents: a.Data})
	}
	for _, d := range st.Dels {
		in.Deletions = append(in.Deletions, d.Path)
	}
	l := landing.Start(ctx, env.LandingGrace)
	got, err := env.GQL.CreateCommitOnBranch(l.Ctx, in)
	err = l.Done(err)
	if err == nil {
		tree := got.Tree.OID
		if !object.IsSHA(tree) {
			// The reply names no tree (it is asked for): read it. The
			// commit landed, so a failed read must not turn that into an
			// error (Result.Tree is then empty).
			tree = readTree(ctx, env, got.OID)
		}
		return Written{Commit: got.OID, Tree: tree, Parent: st.Head}, nil
	}
	if l.Unsent() {
		return Written{}, l.NotSent("GraphQL createCommitOnBranch")
	}
	return outcome(rest.ToGraphQL, "", err)
}

// Settle implements Writer: GraphQL's commit can only be parent's child on
// the first-parent chain.
func (GraphQL) Settle(ctx context.Context, env *Env, branch, parent, id string) (string, ghgraphql.Outcome, error) {
	return settle(ctx, env, branch, parent, id, ghgraphql.ChildOf)
}
