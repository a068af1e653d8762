package ghgraphql

import (
	"context"
	"strings"
	"sync"
	"time"
)

// RefLook asks the Paths queries sent under a context (see WithRefLook)
// for a branch's head too, in the same request: an attempt that resolves
// its paths then knows whether the branch moved since it read the head,
// and, when the answer is fresh, needs no read of its own before its
// write (the loop's look before a GraphQL commit).
type RefLook struct {
	Branch string
	// History asks for the head's latest LookHistory commits too (see
	// Since): only a writer that counts the moves since an earlier look
	// needs them, so an uncontended commit's query stays as small.
	History bool

	mu      sync.Mutex
	ok      bool
	head    string        // "" when the branch is not there
	history []string      // head and its latest ancestors, newest first (see LookHistory)
	at      time.Time     // when the answer came
	took    time.Duration // the query's round trip
}

type refLookKey struct{}

// WithRefLook returns ctx whose Paths queries look at l.Branch's head.
func WithRefLook(ctx context.Context, l *RefLook) context.Context {
	return context.WithValue(ctx, refLookKey{}, l)
}

func refLookOf(ctx context.Context) *RefLook {
	l, _ := ctx.Value(refLookKey{}).(*RefLook)
	return l
}

// Head is the head the last Paths query under l's context saw ("" when the
// branch was not there), when its answer came, and how long the query
// took; ok is false when no query looked.
func (l *RefLook) Head() (head string, at time.Time, took time.Duration, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.head, l.at, l.took, l.ok
}

// LookHistory is how many of the head's latest commits (itself first) the
// look lists, so that a writer can count the moves of the branch since a
// head it saw before (see Since) with no request of its own.
const LookHistory = 32

// Since is how many commits the branch's head, as the last look saw it, is
// ahead of oid: 0 when it is oid. ok is false when no look was made, or
// oid is not among the head's LookHistory latest commits (n is then
// LookHistory: at least that many).
func (l *RefLook) Since(oid string) (n int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ok || len(l.history) == 0 {
		return 0, false
	}
	for i, h := range l.history {
		if strings.EqualFold(h, oid) {
			return i, true
		}
	}
	return LookHistory, false
}

func (l *RefLook) record(head string, history []string, sent time.Time) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ok, l.head, l.history, l.at, l.took = true, head, history, now, now.Sub(sent)
}
