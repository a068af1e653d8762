// Package turns lets the writers of one machine take turns at a branch.
//
// Writers that race for one branch lose most of their attempts, and on
// github.com each lost attempt spends writes of a budget of about 80 a
// minute. Writers on one machine (goroutines of one process, or separate
// processes started by one controller or CI runner) can instead queue:
// Take waits until no other writer on the machine is in an attempt at the
// same branch. A turn is only an optimization: the compare-and-swap ref
// update stays the one guarantee, so writers on other machines, a lock
// directory that cannot be written, or a turn not granted within the
// longest wait all fall back to racing.
//
// Between processes a turn is an advisory lock (flock(2), LockFileEx on
// Windows) on one of 4,096 empty files in the lock directory, chosen by a
// hash of the key, so the directory never holds more than that many files
// and no file names a repository; two keys that share a file only take
// turns needlessly. The kernel releases a lock when its process dies, so a
// killed writer never blocks the others. Within one process, writers of one
// key queue on a channel first, so one of them at a time polls the file.
package turns

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// DefaultMaxWait is how long Take waits for a turn before it lets the
// writer race instead: longer than an attempt takes, even paced at
// github.com's 80 writes a minute, so that a writer stuck in its turn (or
// a waiter never picked: a file lock is not fair) delays the others at most
// that long.
const DefaultMaxWait = time.Minute

// Turns hands out turns under one lock directory.
type Turns struct {
	// Dir holds the lock files; "" takes turns within the process only.
	Dir string
	// MaxWait bounds the wait for a turn (DefaultMaxWait when 0).
	MaxWait time.Duration
}

// DefaultDir is the default lock directory: ghcommitter/turns in the
// user's cache directory, or "" when the system names none.
func DefaultDir() string {
	d, err := os.UserCacheDir()
	if err != nil || d == "" {
		return ""
	}
	return filepath.Join(d, "ghcommitter", "turns")
}

// Turn is a granted turn, or none (a writer that races).
type Turn struct {
	slot *slot
	file *flock.Flock
	// Waited is how long Take waited; Granted is false when the writer
	// races instead (the wait ran out, ctx ended, or the lock file could
	// not be used: Err says why).
	Waited  time.Duration
	Granted bool
	Err     error
}

// Release ends the turn; it may be called more than once, and on a turn
// not granted.
func (t *Turn) Release() {
	if t.file != nil {
		_ = t.file.Unlock() // closes the file too
		t.file = nil
	}
	if t.slot != nil {
		<-t.slot.ch
		local.leave(t.slot)
		t.slot = nil
	}
}

// Take waits for key's turn. It returns with Granted false when ctx ends or
// the wait runs out; the caller then goes on without a turn.
func (ts Turns) Take(ctx context.Context, key string) *Turn {
	start := time.Now()
	wait := ts.MaxWait
	if wait <= 0 {
		wait = DefaultMaxWait
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	t := &Turn{}
	s := local.join(key)
	select {
	case s.ch <- struct{}{}:
		t.slot = s
	case <-ctx.Done():
		local.leave(s)
		t.Waited, t.Err = time.Since(start), ctx.Err()
		return t
	}
	if ts.Dir != "" {
		f, err := lockFile(ctx, ts.Dir, key)
		if err != nil {
			t.Release()
			t.Waited, t.Err = time.Since(start), err
			return t
		}
		t.file = f
	}
	t.Waited, t.Granted = time.Since(start), true
	return t
}

// lockFile takes the exclusive lock of key's file in dir, polling every
// few milliseconds (jittered, so that waiting processes do not wake in
// step) until ctx ends.
func lockFile(ctx context.Context, dir, key string) (*flock.Flock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f := flock.New(filepath.Join(dir, File(key)), flock.SetPermissions(0o600))
	for {
		ok, err := f.TryLock()
		if err != nil {
			return nil, err
		}
		if ok {
			return f, nil
		}
		timer := time.NewTimer(time.Duration(2+rand.IntN(8)) * time.Millisecond)
		select {
		case <-ctx.Done():
			timer.Stop()
			_ = f.Close()
			return nil, ctx.Err()
		case <-timer.C:
		}
	}
}

// File is the name of key's lock file: 3 hex digits of its SHA-256.
func File(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])[:3] + ".lock"
}

// local queues the writers of one process by key.
var local = registry{m: map[string]*slot{}}

type registry struct {
	mu sync.Mutex
	m  map[string]*slot
}

// slot is one key's queue: holding a value in ch is holding the turn.
type slot struct {
	key   string
	ch    chan struct{}
	users int
}

func (r *registry) join(key string) *slot {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.m[key]
	if s == nil {
		s = &slot{key: key, ch: make(chan struct{}, 1)}
		r.m[key] = s
	}
	s.users++
	return s
}

func (r *registry) leave(s *slot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.users--; s.users == 0 {
		delete(r.m, s.key)
	}
}
