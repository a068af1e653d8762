package committer

import (
	"fmt"
	"path/filepath"
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
// holds empty files whose names are hashes. A turn is an optimization
// only: writers on other machines still race, and the compare-and-swap ref
// update keeps every guarantee. A commit waits for turns at most a minute in all, over all
// its attempts (a holder may be stuck): then, or when the lock directory
// or its lock file cannot be used, it races as before; a process that dies
// loses its turn at once. Dry runs (Plan) take no turn.
//
// The directory must belong to the user and must not be writable by group
// or others (an existing one is checked, a missing one is made with mode
// 0700); else it is not used and the writers race, as they do when a lock
// file is a symbolic link, a FIFO or not the user's. Lock files are named
// by the SHA-256 of the API, repository and branch; one created more than
// an hour ago is deleted by the next process to prune (each prunes at most
// once an hour) while it holds the file's lock and nobody else does. No other file is ever deleted.
// Turns between processes need a Unix system; elsewhere they stay within
// the process.
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
