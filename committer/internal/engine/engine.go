// Package engine holds the GitHub APIs a commit can be made through, each
// behind one interface: Git Data (trees, commits and a ref update), GraphQL
// createCommitOnBranch and the contents API, and Auto, an ordered choice
// among them. An engine says what it refuses before any request (Refuse)
// and on the head read (Carries), how many writes an attempt costs
// (Writes), whether change sets may share a batch (Batch, Queue, BatchBytes)
// and, for the engines that commit in one write (Writer), how that write is
// sent (Write) and how a lost reply is settled (Settle).
//
// The commit loop holds no switch on engines: a fourth engine is one file
// here, its entry in the public enum (committer/engine.go) and its answers'
// table in internal/rest.
package engine

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/landing"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
	"github.com/ghcommitter/ghcommitter/committer/internal/refs"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// Engine is one of the GitHub APIs a commit is made through.
type Engine interface {
	// Name is the engine's name as the CLI's --engine spells it.
	Name() string
	// Refuse says why the engine cannot carry ch, from what is known
	// before any request; nil when it may (Carries checks the rest once
	// the head is read).
	Refuse(ch Change) error
	// Writes is how many writes one attempt sends when nothing is
	// uploaded, for n change sets (squashed into one commit or not).
	Writes(n int, squash bool) int
	// Batch reports whether change sets may share a batch through the
	// engine (squashed into one commit or chained).
	Batch(squash bool) bool
	// Queue says why a Queue cannot commit through the engine, or nil.
	Queue(squash bool) error
	// BatchBytes bounds the content of one batch.
	BatchBytes() int64
}

// Writer is an engine that lands a commit in one write, built by GitHub:
// it settles a lost reply by the commit's Edit-Id trailer.
type Writer interface {
	Engine
	// Carries says why the engine cannot carry st, resolved on the head
	// read; nil when it can.
	Carries(st *Staged) error
	// Pinned reports whether the write is pinned to the head it was
	// built on (it loses to any move of the branch, so the branch is
	// looked at first, and once the branch has left that head it can
	// never land).
	Pinned() bool
	// Write sends the one write of st.
	Write(ctx context.Context, env *Env, c Commit, st *Staged) (Written, error)
	// Settle decides whether a write on parent whose reply was lost
	// landed, by its Edit-Id id; found is the landed commit.
	Settle(ctx context.Context, env *Env, branch, parent, id string) (found string, o ghgraphql.Outcome, err error)
}

// Change is what an engine's static refusal looks at.
type Change struct {
	P          *changes.Prepared
	Tag        bool // the branch's commit is tagged too
	OmitEditID bool // the change set leaves out its Edit-Id trailer
	Signed     bool // a signer of the caller's own
	Identity   bool // a chosen author or committer
	ExpectHead bool // pinned to a head the caller read
}

// Env is what an engine's write uses of the committer.
type Env struct {
	Owner, Repo  string
	REST         *rest.Client
	GQL          *ghgraphql.Client
	Refs         *refs.Refs
	LandingGrace time.Duration
}

// Commit is the message and identity a one-write commit carries.
type Commit struct {
	Branch    string
	Message   string
	Author    *object.Signature
	Committer *object.Signature
}

// Written is the outcome of one one-write attempt.
type Written struct {
	Commit, Tree, Parent string
	Lost                 bool // the branch or the file moved first: try again
	Ambiguous            bool // no clear answer: settle by the Edit-Id trailer
}

// Staged is a change set resolved on one head for a one-write engine: the
// files it writes and deletes, with what the head holds at each.
type Staged struct {
	Engine Engine
	Head   string
	Adds   []File
	Dels   []File
	// Finish records the outcome: the commit that landed (or Head, for a
	// no-op), its tree and its parent ("" for a no-op).
	Finish func(commit, tree, parent string)
}

// File is one file of a Staged.
type File struct {
	Path string
	Data []byte // adds only
	Old  string // the blob SHA on the head, "" when absent
}

// Empty reports whether st changes nothing.
func (st *Staged) Empty() bool { return len(st.Adds)+len(st.Dels) == 0 }

// EncodedSize is st's size in a GraphQL request: contents base64-encoded,
// plus paths.
func (st *Staged) EncodedSize() int {
	n := 0
	for _, a := range st.Adds {
		n += base64.StdEncoding.EncodedLen(len(a.Data)) + len(a.Path)
	}
	for _, d := range st.Dels {
		n += len(d.Path)
	}
	return n
}

// MaxSettleCommits bounds the commits read to settle a lost reply.
const MaxSettleCommits = 100

// OneWriteError marks what no one-write engine can carry, so that Auto
// falls back to Git Data while an explicit engine refuses.
type OneWriteError struct{ Msg string }

func (e *OneWriteError) Error() string { return e.Msg }

// OneWriteRefusal is the ErrInvalid cause at path of what no one-write
// engine can carry.
func OneWriteRefusal(path, msg string) error {
	return &kind.Cause{Path: path, Kind: kind.Invalid, Err: &OneWriteError{Msg: msg}}
}

// IsOneWriteError reports whether err says no one-write engine can carry
// the change set.
func IsOneWriteError(err error) bool {
	var ow *OneWriteError
	return errors.As(err, &ow)
}

// modeRefusal refuses a change set with a file that is not plain.
func modeRefusal(name string, p *changes.Prepared) error {
	for _, o := range p.Ops {
		if o.Kind == changes.OpPut && o.Mode != object.ModeFile {
			return &kind.Cause{Path: o.Path, Kind: kind.Invalid, Err: fmt.Errorf("the %s engine writes plain files (mode 100644) only, not mode %s: use the git-data engine", name, o.Mode)}
		}
	}
	for _, s := range p.Syncs {
		for _, f := range s.Files {
			if f.Mode != object.ModeFile {
				return &kind.Cause{Path: s.Dir + "/" + f.Rel, Kind: kind.Invalid, Err: fmt.Errorf("the %s engine writes plain files (mode 100644) only, not mode %s: use the git-data engine", name, f.Mode)}
			}
		}
	}
	return nil
}

// oneWriteRefuse is what every one-write engine refuses before any
// request: a tag, a change set without its Edit-Id, a signer of one's own,
// a file that is not plain.
func oneWriteRefuse(name string, ch Change) error {
	switch {
	case ch.Tag:
		return fmt.Errorf("the %s engine cannot move a tag with the branch: a tag needs the git-data engine (or auto)", name)
	case ch.OmitEditID:
		return fmt.Errorf("the %s engine settles a lost reply by the commit's %s trailer: OmitEditID cannot be used with it", name, changes.EditIDTrailer)
	case ch.Signed:
		return fmt.Errorf("the %s engine cannot carry a signature of your own (GitHub signs its commits): use the git-data engine", name)
	}
	return modeRefusal(name, ch.P)
}

// outcome turns rest.Judge's verdict on a one-write engine's answer into
// the attempt's outcome: a lost race, an ambiguous outcome to settle by the
// Edit-Id trailer, a wait (*rest.Refused), or a final error.
func outcome(w rest.Answer, what string, err error) (Written, error) {
	switch v, err := rest.Judge(w, err); v {
	case rest.LostRace:
		return Written{Lost: true}, nil
	case rest.Unknown:
		return Written{Ambiguous: true}, nil
	case rest.Limited:
		return Written{}, err
	default:
		if what != "" {
			return Written{}, fmt.Errorf("%s: %w", what, err)
		}
		return Written{}, err
	}
}

// settle searches the branch for the commit whose message ends with the
// Edit-Id id, from the head down to parent within scope.
func settle(ctx context.Context, env *Env, branch, parent, id string, scope ghgraphql.Scope) (string, ghgraphql.Outcome, error) {
	rctx, cancel := landing.SettleContext(ctx, env.LandingGrace)
	defer cancel()
	match := func(msg string) bool { return changes.HasOwnEditID(msg, id) }
	return env.GQL.Settle(rctx, env.Owner, env.Repo, branch, parent, scope, match, MaxSettleCommits)
}

// readTree reads the tree of a commit that landed, when its reply named
// none: a failed read leaves it empty (the commit landed whatever it says).
func readTree(ctx context.Context, env *Env, commit string) string {
	rctx, cancel := landing.SettleContext(ctx, env.LandingGrace)
	defer cancel()
	_, tree, _ := env.Refs.CommitTree(rctx, commit)
	return tree
}
