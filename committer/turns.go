package committer

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/turns"
)

// WithTurnDir names the directory of the lock files through which the
// writers of one machine take turns at a branch; "" keeps the turns within
// the process.
//
// By default every attempt of a commit first waits until no other writer on
// the machine (another goroutine, or another process with the same
// directory) is in an attempt at the same branch of the same repository:
// writers started at once then land one after another instead of racing
// and spending writes on lost attempts. The default directory is
// ghcommitter/turns in the user's cache directory (os.UserCacheDir); it
// holds at most 4,096 empty files whose names are hashes, and is created
// with mode 0700. A turn is an optimization only: writers on other
// machines still race, and the compare-and-swap ref update keeps every
// guarantee. A writer whose turn does not come within a minute (the holder
// is stuck), or whose lock file cannot be used, races as before; a process
// that dies loses its turn at once. Dry runs (Plan) take no turn.
func WithTurnDir(dir string) Option {
	return func(o *options) error {
		if dir != "" && !filepath.IsAbs(dir) {
			abs, err := filepath.Abs(dir)
			if err != nil {
				return fmt.Errorf("turn directory %q: %w", dir, err)
			}
			dir = abs
		}
		o.turnDir = dir
		return nil
	}
}

// WithoutTurns makes every attempt race for the branch without waiting for
// the other writers of the machine (see WithTurnDir).
func WithoutTurns() Option {
	return func(o *options) error {
		o.noTurns = true
		return nil
	}
}

// takeTurn waits until no other writer of the machine is in an attempt at
// the branch (see WithTurnDir). A dry run takes no turn.
func (d *driver) takeTurn(ctx context.Context) *turns.Turn {
	if d.dryRun || d.c.o.noTurns {
		return &turns.Turn{}
	}
	t := turns.Turns{Dir: d.c.o.turnDir}.Take(ctx, d.c.turnKey(d.branch))
	switch {
	case !t.Granted:
		d.debug(ctx, "racing without a turn", "repo", d.c.Repository(), "branch", d.branch, "waited", t.Waited, "error", t.Err)
	case t.Waited > time.Millisecond:
		d.debug(ctx, "waited for a turn", "repo", d.c.Repository(), "branch", d.branch, "waited", t.Waited)
	}
	return t
}

// turnKey names branch of the repository for the machine's turns: the
// API, the repository (GitHub's names are case-insensitive) and the
// branch, and the coordinator registry (tests' "other processes").
func (c *Committer) turnKey(branch string) string {
	return strings.Join([]string{c.api, strings.ToLower(c.Repository()), branch, c.o.process}, "\x00")
}
