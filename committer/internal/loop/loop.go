// Package loop holds the commit loop's states: what one attempt ended in
// (an Outcome), and which attempt, if any, follows from it (Count). The
// attempt driver (package committer's driver) makes the attempts; Count
// alone decides whether an attempt counts against the limit, so no code
// path adjusts the attempt number itself.
package loop

import "errors"

// Kind is how one attempt ended.
type Kind int

const (
	// Landed means the work is finished: its change sets landed (or are on the
	// branch already), or no caller is left.
	Landed Kind = iota
	// LostUnsent means another writer moved the branch, seen before any write
	// of the attempt. Made again without counting, up to the attempt limit
	// times; then counted.
	LostUnsent
	// Lost means another writer moved the branch after some writes of the
	// attempt (its ref update lost, or a move seen between its writes), or
	// the branch's creation had no clear answer. Made again, counted.
	Lost
	// Wait means a rate limit refused the attempt. Made again after the wait,
	// counted.
	Wait
	// Reread means the repository turned from empty to not (or back) while
	// the attempt bootstrapped it. Made again without counting, up to the
	// attempt limit times; then the work fails.
	Reread
	// Stale means the attempt built on a head this process remembered (not
	// read), and failed: that head may be gone. Made again on the head
	// read, without counting.
	Stale
	// Failed means the work cannot go on (Outcome.Err).
	Failed
)

var kindNames = [...]string{"landed", "lost before any write", "lost after writes", "wait", "reread", "stale", "failed"}

// String names the kind.
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "Kind(?)"
	}
	return kindNames[k]
}

// Outcome is how one attempt ended.
type Outcome struct {
	Kind Kind
	Err  error // Failed's error
}

// Fail is the Failed outcome with err.
func Fail(err error) Outcome { return Outcome{Kind: Failed, Err: err} }

// ErrKeptChanging ends a work whose attempts kept finding the repository
// turning between empty and not empty (Reread, past the limit).
var ErrKeptChanging = errors.New("the repository kept changing between empty and not empty")

// Count numbers a work's attempts: Attempt is the number of the one to
// make, After moves past one attempt's outcome.
type Count struct {
	Max     int // the attempt limit (committer.WithRetries)
	attempt int
	unsent  int // LostUnsent attempts made again without counting
	rereads int // Reread attempts made again without counting
}

// Attempt is the number of the attempt to make: 1 first, and the same
// number again after an attempt that does not count.
func (c *Count) Attempt() int { return max(c.attempt, 1) }

// After moves past an attempt that ended in o. next is false when the
// work stops: it landed, failed (err is o.Err, or ErrKeptChanging), or its
// attempts ran out (err nil: the caller says why).
func (c *Count) After(o Outcome) (next bool, err error) {
	at := c.Attempt()
	switch o.Kind {
	case Landed:
		return false, nil
	case Failed:
		return false, o.Err
	case Stale:
		return true, nil
	case LostUnsent:
		if c.unsent < c.Max {
			c.unsent++
			return true, nil
		}
	case Reread:
		if c.rereads >= c.Max {
			return false, ErrKeptChanging
		}
		c.rereads++
		return true, nil
	}
	// Lost, Wait, and LostUnsent past the limit: counted.
	if at >= c.Max {
		return false, nil
	}
	c.attempt = at + 1
	return true, nil
}
