package committer

import (
	"fmt"
	"time"
)

// DefaultBatchEditGrace is how long a batch waits for one of its change
// sets' edit functions (see WithBatchEditGrace).
const DefaultBatchEditGrace = 10 * time.Second

// WithBatchEditGrace bounds how long a batch waits for an edit function of
// this Committer's change sets while others share the batch: one that has
// not returned d after it was called takes its change set out of the
// batch, with an error wrapping ErrEditTooSlow, and the others land; its
// result, when it comes, is discarded. A change set alone (a Commit that
// found the branch idle) runs on its caller's context, unbounded. d must
// be positive; the default is DefaultBatchEditGrace.
func WithBatchEditGrace(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("batch edit grace %v: must be positive", d)
		}
		o.editGrace = d
		return nil
	}
}
