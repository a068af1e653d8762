// Package turns lets writers take turns at a branch: the seam through which
// a committer.Committer's attempts wait until no other writer that shares
// the coordination is in an attempt at the same branch.
//
// Writers that race for one branch lose most of their attempts, and on
// github.com each lost attempt spends writes of a budget of about 80 a
// minute. Writers that can see each other can queue instead. A turn is only
// an optimization: the compare-and-swap ref update stays the one guarantee,
// so a turn not granted (the backend cannot be used, the committer's wait
// for turns ran out, the context ended) lets the writer race, as writers
// that share nothing do.
//
// Two implementations are here:
//
//   - InProcess: the writers of one process (the library's default).
//   - Files: the processes of one machine, through advisory lock files in a
//     directory (the ghcommitter command's default, with DefaultDir).
//
// Any other coordination engine a program already runs (a cluster's lease
// objects, a lock service) plugs in by implementing Turns and passing it to
// committer.WithTurns.
package turns

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// Key names what writers take turns at: one branch of one repository of one
// API. Writers with equal keys take turns; writers with different keys never
// wait for each other.
type Key struct {
	// API is the REST API root the writer commits through, such as
	// "https://api.github.com/".
	API string
	// Repository is "owner/name", in lower case (GitHub's names are
	// case-insensitive).
	Repository string
	// Branch is the branch's name, without refs/heads/.
	Branch string
}

// String is the key as one string (its fields joined by NUL bytes), for
// implementations that name their locks by it.
func (k Key) String() string {
	return strings.Join([]string{k.API, k.Repository, k.Branch, ""}, "\x00")
}

// Turns hands out turns. Its methods may be called from many goroutines at
// once.
type Turns interface {
	// Take waits until key's turn is the caller's, or ctx ends (the
	// committer bounds the wait through ctx's deadline). A nil error
	// grants the turn, which the caller releases when its attempt is over;
	// an error (ctx's, or why the turn cannot be had) grants none, and
	// the writer races.
	Take(ctx context.Context, key Key) (Turn, error)
}

// Turn is a granted turn.
type Turn interface {
	// Queued reports whether another writer held the turn when Take
	// began, so that this one waited for it: a committer then takes a
	// branch's fresh head for the previous holder's, not for a sign of
	// writers it cannot see.
	Queued() bool
	// Release ends the turn. It is called once.
	Release()
}

// InProcess returns the turns of the writers of this process: every Turns
// it returns shares one queue per key. It is the default of
// committer.New.
func InProcess() Turns { return engine{} }

// Files returns the turns of the processes of one machine that use the
// same directory: within a process, writers queue in memory; between
// processes, a turn is an advisory lock (flock(2)) on an empty file of dir
// named by the SHA-256 of the key, which the kernel releases when its
// process dies. dir must belong to the user and be closed to the writes of
// others (a missing one is made with mode 0700); a directory or a lock file
// that another user could have planted (a symbolic link, a FIFO, another
// user's file) is refused, and the writer races. Lock files unused for an
// hour are deleted while nobody holds them; no other file is ever deleted.
// Between processes, turns need a Unix system; elsewhere they stay within
// the process. A relative dir is made absolute; "" is InProcess.
func Files(dir string) (Turns, error) {
	if dir == "" {
		return InProcess(), nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return engine{dir: abs}, nil
}

// DefaultDir is the ghcommitter command's directory for Files:
// ghcommitter/turns in the user's cache directory (os.UserCacheDir), or ""
// when the system names none.
func DefaultDir() string {
	d, err := os.UserCacheDir()
	if err != nil || d == "" {
		return ""
	}
	return filepath.Join(d, "ghcommitter", "turns")
}

// Take is the Turns of InProcess and Files (files.go).
func (e engine) Take(ctx context.Context, key Key) (Turn, error) {
	g, err := e.take(ctx, key.String())
	if err != nil {
		return nil, err
	}
	return g, nil
}
