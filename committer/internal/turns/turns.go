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
// Between processes a turn is an advisory lock (flock(2)) on an empty file
// of the lock directory named by the full SHA-256 of the key, so two keys
// never share a file and no file names a repository. The directory must
// belong to the user and be closed to the writes of others (see
// internal/machinedir): a directory, or a lock file, that another user could
// have planted (a symbolic link, a FIFO, another user's file) is refused,
// and the writer races. The kernel releases a lock when its process dies,
// so a killed writer never blocks the others. A lock file unused for
// PruneIdle is deleted, while its deleter holds its lock and only if the
// name still names that file (a taker checks the same after locking), so
// the directory holds about as many files as keys were used in that time.
// Within one process, writers of one key queue on a channel first, so one
// of them at a time polls the file. Only Unix systems take turns between
// processes; elsewhere the turns stay within the process.
package turns

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/machinedir"
)

// DefaultMaxWait is how long Take waits for a turn before it lets the
// writer race instead: longer than an attempt takes, even paced at
// github.com's 80 writes a minute, so that a writer stuck in its turn (or
// a waiter never picked: a file lock is not fair) delays the others at most
// that long.
const DefaultMaxWait = time.Minute

// ErrWaitSpent is why a writer races without waiting once its waits for
// turns, over all its attempts, add up to its longest wait.
var ErrWaitSpent = errors.New("waited for turns as long as a writer may: racing")

// Turns hands out turns under one lock directory.
type Turns struct {
	// Dir holds the lock files; "" takes turns within the process only.
	Dir string
	// MaxWait bounds the wait for a turn (DefaultMaxWait when 0; none,
	// beyond ctx's, when negative).
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
	file *machinedir.Lock
	// Waited is how long Take waited; Granted is false when the writer
	// races instead (the wait ran out, ctx ended, or the lock file could
	// not be used: Err says why).
	Waited  time.Duration
	Granted bool
	// Queued: another writer of the machine held the turn when Take
	// began, so this one waited for it.
	Queued bool
	Err    error
}

// Release ends the turn; it may be called more than once, and on a turn
// not granted.
func (t *Turn) Release() {
	if t.file != nil {
		t.file.Unlock()
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
	if wait == 0 {
		wait = DefaultMaxWait
	}
	if wait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	t := &Turn{}
	s := local.join(key)
	select {
	case s.ch <- struct{}{}:
		t.slot = s
	default:
		t.Queued = true
		select {
		case s.ch <- struct{}{}:
			t.slot = s
		case <-ctx.Done():
			local.leave(s)
			t.Waited, t.Err = time.Since(start), ctx.Err()
			return t
		}
	}
	if ts.Dir != "" {
		f, queued, err := lockFile(ctx, ts.Dir, key)
		if err != nil {
			t.Release()
			t.Waited, t.Err = time.Since(start), err
			return t
		}
		t.file, t.Queued = f, t.Queued || queued
	}
	t.Waited, t.Granted = time.Since(start), true
	return t
}

// lockFile takes the exclusive lock of key's file in dir, polling every
// few milliseconds (jittered, so that waiting processes do not wake in
// step) until ctx ends.
// queued is true when another process held it at first.
func lockFile(ctx context.Context, dir, key string) (_ *machinedir.Lock, queued bool, _ error) {
	d, err := machinedir.Open(dir)
	if err != nil {
		return nil, false, err
	}
	defer func() { _ = d.Close() }()
	prune(d)
	for {
		l, ok, err := d.TryLock(File(key))
		if err != nil {
			return nil, queued, err
		}
		if ok {
			return l, queued, nil
		}
		queued = true
		timer := time.NewTimer(time.Duration(2+rand.IntN(8)) * time.Millisecond)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, queued, ctx.Err()
		case <-timer.C:
		}
	}
}

// File is the name of key's lock file: the hex SHA-256 of the key.
func File(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:]) + ".lock"
}

// PruneIdle is how long a lock file may go without being created before
// Prune deletes it (when nobody holds it).
const PruneIdle = time.Hour

// pruned is when each lock directory was last pruned by this process: at
// most once per PruneIdle.
var pruned = struct {
	sync.Mutex
	at map[string]time.Time
}{at: map[string]time.Time{}}

func prune(d *machinedir.Dir) {
	now := time.Now()
	pruned.Lock()
	if last, ok := pruned.at[d.Path()]; ok && now.Sub(last) < PruneIdle {
		pruned.Unlock()
		return
	}
	pruned.at[d.Path()] = now
	pruned.Unlock()
	Prune(d, now)
}

// Prune deletes the lock files of d created more than PruneIdle before now
// that nobody holds; it touches no other file.
func Prune(d *machinedir.Dir, now time.Time) int {
	return d.Prune(isLockName, PruneIdle, now)
}

// isLockName reports whether name is one of File's names.
func isLockName(name string) bool {
	h, ok := strings.CutSuffix(name, ".lock")
	if !ok || len(h) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
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
