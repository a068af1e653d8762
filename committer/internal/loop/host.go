package loop

import (
	"context"
	pubturns "github.com/ghcommitter/ghcommitter/committer/turns"
	"sync"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
	"github.com/ghcommitter/ghcommitter/committer/internal/refs"
)

// Unit is one change set of a Work, as the host knows it: the driver only
// hands it back (Host.Bootstrap, Work.Drop).
type Unit any

// Work is what one run of the driver lands: one change set (Commit) or a
// batch of them (Queue).
type Work interface {
	// Prune finishes the callers that gave up and reports whether any is
	// left. With settling set, an earlier landing write of this work is
	// still unsettled, so nobody may leave: their change may yet land.
	Prune(settling bool) bool
	// First returns the first change set still to land, nil when none.
	First() Unit
	// Size is the number of change sets still to land.
	Size() int
	// Drop finishes u alone with err, when the work can go on without it
	// (a batch); it reports false when err must end the whole work.
	Drop(u Unit, err error) bool
	// Build resolves the work on head's tree and creates its trees and
	// commits: the new tip (head itself when nothing changes), or that no
	// caller is left, or that the branch moved first.
	Build(ctx context.Context, head, tree string, attempt int) (Built, error)
	// Land hands out the results: tip, which Build returned, is on the
	// branch (or is its unchanged head).
	Land(tip string, attempt int, created bool)
	// Fail finishes every caller left with err.
	Fail(err error)
}

// OneWork is a Work that can land through a one-write engine: a single
// change set, or a squashed batch through GraphQL.
type OneWork interface {
	// StageOne resolves the work on head without writing (edit functions
	// run here) and returns what to send and the commit it makes.
	// st.Engine is the one-write engine picked, or nil when the attempt
	// goes on through Git Data; st nil: no caller is left. cands and
	// strict are the driver's (engine.Choose). Errors are the whole
	// work's.
	StageOne(ctx context.Context, cands []engine.Writer, strict bool, head, tree string, attempt int) (st *engine.Staged, c *OneCommit, err error)
}

// OneCommit is the message and identity of a one-write commit, and the
// Edit-Id its lost reply is settled by.
type OneCommit struct {
	Message   string
	Author    *object.Signature
	Committer *object.Signature
	EditID    string
}

// Built is what Work.Build made of one attempt.
type Built struct {
	Tip, Tree string // the new tip (head itself when nothing changes) and its tree
	Gone      bool   // no caller is left
	// Moved: the branch moved since it was read, seen before the landing
	// write, which would lose and is not sent (see Contended); Unsent:
	// before any write of the attempt.
	Moved, Unsent bool
	// Head is the head the branch was seen to have moved to, when known
	// (the wait that follows then need not read it again).
	Head string
}

// Head is the head an attempt builds on.
type Head struct {
	Head, Tree string
	Creating   bool // the branch is missing: it is created at Head, CreateBranchFrom's base
	// Reread: the repository turned from empty to not (or back) while it
	// was bootstrapped: read the branch again.
	Reread bool
	// Busy: Head was committed within BusyHead before it was read, as
	// GitHub's reply tells it (its Date header and the commit's committer
	// date, both to the second).
	Busy bool
}

// Failure is an error of the work as the driver knows it; Host.Error makes
// the host's error of it.
type Failure struct {
	Kind     error // one of internal/kind's, or nil: from Err
	Err      error
	Head     string
	Attempts int
	Hint     string // "": the one Err's kind gives
	// RetryAfter, when SetRetryAfter: how long to wait before trying
	// again.
	RetryAfter    time.Duration
	SetRetryAfter bool
}

// Host is what the driver uses of the committer: its errors, events and
// logs, and the empty repository's bootstrap.
type Host interface {
	// Error is the work's error for f.
	Error(f Failure) error
	// Owns reports whether err is already an error of the host's (made
	// by Error).
	Owns(err error) bool
	// Cause is the cause an error of the host's carries; nil for another
	// error.
	Cause(err error) error
	// MissingBranch is the error of a branch that does not exist, when no
	// base to create it from was given; cause may be nil.
	MissingBranch(cause error) error
	// Observe reports e to the work's observers.
	Observe(e Event)
	// ObservesWaits reports whether anyone observes the work's waits.
	ObservesWaits() bool
	// Debug logs msg to the work's loggers.
	Debug(ctx context.Context, msg string, args ...any)
	// Bootstrap starts the empty repository with u.
	Bootstrap(ctx context.Context, u Unit) (Head, error)
	// PlanBootstrap checks, without writing, that u can start the empty
	// repository.
	PlanBootstrap(ctx context.Context, u Unit) error
	// ExplainProtected names the rule behind a protection refusal err.
	ExplainProtected(ctx context.Context, err error)
}

// Config is one work's settings.
type Config struct {
	Repo   string // "owner/name", for logs
	Branch string
	Refs   *refs.Refs
	Env    *engine.Env // the engines' writes, and the landing grace
	Engine engine.Engine
	// Cands and Strict: the one-write engines an attempt may use
	// (engine.Choose).
	Cands      []engine.Writer
	Strict     bool
	ExpectHead string
	CreateFrom string
	Tag        refs.Tag
	Squash     bool
	// DryRun: only read (Plan); an empty repository is not bootstrapped.
	DryRun bool
	// Known returns a head this process made and the tree it has, to skip
	// reading the branch on the first attempt (a Queue's last batch);
	// Forget drops it after a lost race. Both nil when unused.
	Known  func() (head, tree string)
	Forget func()
	// Ours reports whether head is the last commit this process landed
	// on the branch: a fresh head of its own does not make the branch
	// busy (see BusyHead). Nil: none is known.
	Ours func(head string) bool

	MaxAttempts int
	Backoff     func(Contention) time.Duration
	Sleep       func(ctx context.Context, d time.Duration) error
	// PacerWait says how long the write pacer would now hold an attempt
	// of n writes back before its head read (ghclient.WritesWait); nil or
	// 0: not at all. A wait after a lost race covers it (see spread).
	PacerWait      func(n int) time.Duration
	SecondaryFloor time.Duration // the wait after a bare secondary limit
	MaxLimitWait   time.Duration // the longest rate-limit wait sat out

	// Turns: the writers' turns at the branch (committer/turns, nil: none);
	// TurnWait bounds the work's waits for them over all its attempts
	// (DefaultMaxWait when 0).
	Turns    pubturns.Turns
	TurnWait time.Duration
	TurnKey  pubturns.Key
}

// EventKind is the kind of an Event.
type EventKind int

// The events the driver reports (committer.Event's kinds of the same names).
const (
	EventAttempt EventKind = iota
	EventLostRace
	EventLanded
	EventRateLimitWait
	EventWritePaced
)

// Event is one step of the work, for its observers.
type Event struct {
	Kind    EventKind
	Branch  string
	Attempt int
	Head    string
	Commit  string
	Took    time.Duration
	Wait    time.Duration
	Changes int
}

type contendedKey struct{}

// BusyHead is the age under which a head marks its branch busy: writers
// that start together (a workflow's matrix jobs, a controller's shards)
// find each other's commits that fresh, and a first attempt that looks
// before its writes loses a tree, not three writes, to one that landed
// first.
const BusyHead = 10 * time.Second

// contended marks the attempts of a work on a busy branch — one that lost
// a race, or whose head was committed within BusyHead before it was read:
// they read the branch again before their writes, and end before the
// landing write when it moved since it was read (Built.Moved): the
// compare-and-swap would lose, so the write would be spent for nothing. A
// commit to a quiet branch sends no extra read; a GraphQL commit looks
// before its one write.
func contended(ctx context.Context, yield func(context.Context)) context.Context {
	return context.WithValue(ctx, contendedKey{}, &busy{yield: yield})
}

// busy is a contended attempt's: yield, when not nil, runs once before
// its first write (see Yield).
type busy struct {
	once  sync.Once
	yield func(context.Context)
}

// Contended reports whether ctx is an attempt's on a busy branch.
func Contended(ctx context.Context) bool {
	_, ok := ctx.Value(contendedKey{}).(*busy)
	return ok
}

// Yield is called by an attempt just before it looks at the branch ahead
// of its first write. The first attempt of a work on a busy branch (see
// BusyHead) that has not lost a race yet waits there what the Backoff
// says for Contention{Attempt: 1, Lost: what the attempt took so far}
// (the default: a random part of four times that): writers that started
// together (the jobs of a matrix, launched at once) so stop being in
// lockstep, and those that come later see the first one's commit before
// they write instead of after. Other attempts do not wait. waited
// reports whether this call waited: what the attempt read before it is
// then old.
func Yield(ctx context.Context) (waited bool) {
	if b, ok := ctx.Value(contendedKey{}).(*busy); ok && b.yield != nil {
		b.once.Do(func() { b.yield(ctx); waited = true })
	}
	return waited
}
