package committer

import (
	"context"
	"fmt"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// written is the outcome of one one-write attempt.
type written struct {
	commit, tree, parent string
	lost                 bool // the branch or the file moved first: try again
	ambiguous            bool // no clear answer: settle by the Edit-Id trailer
}

// maxSettleCommits bounds the commits read to settle a lost reply.
const maxSettleCommits = 100

// writeGraphQL commits st with createCommitOnBranch, pinned to st.head.
// See https://docs.github.com/graphql/reference/mutations#createcommitonbranch.
func (c *Committer) writeGraphQL(ctx context.Context, branch string, u *unit, st *staged) (written, error) {
	headline, body := splitMessage(u.message)
	in := ghgraphql.CommitInput{Owner: c.owner, Name: c.repo, Branch: branch, ExpectedHead: st.head, Headline: headline, Body: body}
	for _, a := range st.adds {
		in.Additions = append(in.Additions, ghgraphql.Addition{Path: a.path, Contents: a.data})
	}
	for _, d := range st.dels {
		in.Deletions = append(in.Deletions, d.path)
	}
	l := c.startLanding(ctx)
	got, err := c.gql.CreateCommitOnBranch(l.Ctx, in)
	err = l.Done(err)
	if err == nil {
		tree := got.Tree.OID
		if !object.IsSHA(tree) {
			// The reply names no tree (it is asked for): read it. The
			// commit landed, so a failed read must not turn that into an
			// error (Result.Tree is then empty).
			rctx, cancel := c.settleContext(ctx)
			defer cancel()
			_, tree, _ = c.refs.CommitTree(rctx, got.OID)
		}
		return written{commit: got.OID, tree: tree, parent: st.head}, nil
	}
	if l.Unsent() {
		return written{}, l.NotSent("GraphQL createCommitOnBranch")
	}
	return c.graphqlOutcome(err)
}

// graphqlOutcome is what a createCommitOnBranch error means (rest.Judge).
func (c *Committer) graphqlOutcome(err error) (written, error) {
	return oneWriteOutcome(rest.ToGraphQL, err)
}

// oneWriteOutcome turns rest.Judge's verdict on a one-write engine's answer
// into the attempt's outcome: a lost race, an ambiguous outcome to
// settle by the Edit-Id trailer, a wait (*rest.Refused), or a final error.
func oneWriteOutcome(w rest.Answer, err error) (written, error) {
	switch v, err := rest.Judge(w, err); v {
	case rest.LostRace:
		return written{lost: true}, nil
	case rest.Unknown:
		return written{ambiguous: true}, nil
	case rest.Limited:
		return written{}, err
	default:
		if w == rest.ToContents {
			return written{}, fmt.Errorf("contents write: %w", err)
		}
		return written{}, err
	}
}

// writeContents writes st's one file through the contents API, guarded by
// the file's blob SHA on the head read (none: it must be absent). See
// https://docs.github.com/rest/repos/contents#create-or-update-file-contents
// and #delete-a-file.
func (c *Committer) writeContents(ctx context.Context, branch string, u *unit, st *staged) (written, error) {
	cw := rest.ContentsWrite{Message: u.message, Branch: branch, Author: toAuthor(u.cs.Author), Committer: toAuthor(u.cs.Committer)}
	var got rest.ContentsCommit
	var err error
	l := c.startLanding(ctx)
	if len(st.adds) == 1 {
		f := st.adds[0]
		cw.Path, cw.Content, cw.SHA = f.path, f.data, f.old
		got, err = c.rest.PutContents(l.Ctx, cw)
	} else {
		f := st.dels[0]
		cw.Path, cw.SHA = f.path, f.old
		got, err = c.rest.DeleteContents(l.Ctx, cw)
	}
	err = l.Done(err)
	if err != nil && l.Unsent() {
		return written{}, l.NotSent("contents write")
	}
	if err != nil {
		return c.contentsOutcome(err)
	}
	w := written{commit: got.Commit, tree: got.Tree, parent: st.head}
	if got.Parent != "" {
		w.parent = got.Parent
	}
	if w.tree == "" {
		rctx, cancel := c.settleContext(ctx)
		defer cancel()
		_, w.tree, _ = c.refs.CommitTree(rctx, w.commit) // landed whatever this read says
	}
	return w, nil
}

// contentsOutcome is what a contents write's error means (rest.Judge).
func (c *Committer) contentsOutcome(err error) (written, error) {
	return oneWriteOutcome(rest.ToContents, err)
}

// settleOneWrite decides whether a one-write commit on parent whose reply
// was lost landed, by the unit's own Edit-Id (id, which a commit's message
// must end with: see changes.OwnEditID). GraphQL's commit can
// only be parent's child on the first-parent chain; a contents commit is
// built on whatever head GitHub found, so the chain from the head down to
// parent is searched. found is the landed commit.
func (c *Committer) settleOneWrite(ctx context.Context, branch string, engine Engine, parent, id string) (found string, o ghgraphql.Outcome, err error) {
	rctx, cancel := c.settleContext(ctx)
	defer cancel()
	match := func(msg string) bool { return changes.HasOwnEditID(msg, id) }
	scope := ghgraphql.Since
	if engine == EngineGraphQL {
		scope = ghgraphql.ChildOf
	}
	return c.gql.Settle(rctx, c.owner, c.repo, branch, parent, scope, match, maxSettleCommits)
}
