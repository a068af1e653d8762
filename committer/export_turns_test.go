package committer

import (
	"time"

	"github.com/ghcommitter/ghcommitter/committer/turns"
)

// WithTurnWait shortens how long a commit may wait for turns in all (a
// minute), for tests.
func WithTurnWait(d time.Duration) Option {
	return func(o *options) error { o.turnWait = d; return nil }
}

// TurnKey is the key of c's turns at branch.
func TurnKey(c *Committer, branch string) turns.Key { return c.turnKey(branch) }
