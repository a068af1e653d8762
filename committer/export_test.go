package committer

import (
	"context"
	"fmt"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
)

// ValidateSymlinkPath exposes to tests the rule a symlink's path adds to
// ValidatePath.
func ValidateSymlinkPath(p string) error { return changes.ValidateEntry(p, string(ModeSymlink)) }

// AsOtherProcess makes a committer's commits go through coordinators of
// their own (named by name), as a writer in another process would: tests
// whose second writer runs inside the first one's request, or that need
// writers racing at GitHub's ref update, use it.
func AsOtherProcess(name string) Option {
	return func(o *options) error { o.process = name; return nil }
}

// WithBackoffSleep replaces how the commit loop waits between attempts
// (the backoff after a lost race, and the wait a rate limit asked for
// before the next attempt), for tests that must not sleep. The HTTP
// client's own waits (transport retries, rate-limit resets, the write
// pacer) are not these: they go through testseam.Seams.Sleep on the
// client of WithHTTPClient. sleep must return ctx.Err() when ctx ends
// first.
func WithBackoffSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(o *options) error {
		if sleep == nil {
			return fmt.Errorf("sleep must not be nil")
		}
		o.sleep = sleep
		return nil
	}
}

// Pending is how many change sets wait for a batch at c's coordinator of
// branch: tests queue change sets behind a held one, in order.
func Pending(c *Committer, branch string) int {
	co := c.coordinatorFor(branch)
	defer co.users.Add(-1)
	co.mu.Lock()
	defer co.mu.Unlock()
	return len(co.pending)
}
