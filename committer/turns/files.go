// The two implementations of this package, InProcess and Files: within a
// process, the writers of one key queue on a channel, so that one of them
// at a time polls the lock file. Between processes a turn is an advisory
// lock (flock(2)) on an empty file of the lock directory named by the full
// SHA-256 of the key, so two keys never share a file and no file names a
// repository. The directory must belong to the user and be closed to the
// writes of others (see internal/machinedir): a directory, or a lock file,
// that another user could have planted (a symbolic link, a FIFO, another
// user's file) is refused, and the writer races. The kernel releases a lock
// when its process dies, so a killed writer never blocks the others. A lock
// file unused for pruneIdle is deleted, while its deleter holds its lock
// and only if the name still names that file (a taker checks the same
// after locking), so the directory holds about as many files as keys were
// used in that time. Only Unix systems take turns between processes;
// elsewhere the turns stay within the process.

package turns

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/machinedir"
)

// engine hands out turns under one lock directory: InProcess and Files.
type engine struct {
	// dir holds the lock files; "" takes turns within the process only.
	dir string
	// maxWait bounds the wait for a turn (none, beyond ctx's, when 0).
	maxWait time.Duration
}

// grant is a granted turn of InProcess or Files.
type grant struct {
	slot *slot
	file *machinedir.Lock
	// queued: another writer of the machine held the turn when take
	// began, so this one waited for it.
	queued bool
}

func (t *grant) Queued() bool { return t.queued }

// Release ends the turn; it may be called more than once.
func (t *grant) Release() {
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

// take waits for key's turn. It returns an error, and no turn, when ctx
// ends, the wait runs out or the lock file cannot be used; the caller then
// goes on without a turn.
func (ts engine) take(ctx context.Context, key string) (*grant, error) {
	if ts.maxWait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, ts.maxWait)
		defer cancel()
	}
	t := &grant{}
	s := local.join(key)
	select {
	case s.ch <- struct{}{}:
		t.slot = s
	default:
		t.queued = true
		select {
		case s.ch <- struct{}{}:
			t.slot = s
		case <-ctx.Done():
			local.leave(s)
			return nil, ctx.Err()
		}
	}
	if ts.dir != "" {
		f, queued, err := lockFile(ctx, ts.dir, key)
		if err != nil {
			t.Release()
			return nil, err
		}
		t.file, t.queued = f, t.queued || queued
	}
	return t, nil
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
		l, ok, err := d.TryLock(lockName(key))
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

// lockName is the name of key's lock file: the hex SHA-256 of the key.
func lockName(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:]) + ".lock"
}

// pruneIdle is how long a lock file may go without being created before
// pruneDir deletes it (when nobody holds it).
const pruneIdle = time.Hour

// pruned is when each lock directory was last pruned by this process: at
// most once per pruneIdle.
var pruned = struct {
	sync.Mutex
	at map[string]time.Time
}{at: map[string]time.Time{}}

func prune(d *machinedir.Dir) {
	now := time.Now()
	pruned.Lock()
	if last, ok := pruned.at[d.Path()]; ok && now.Sub(last) < pruneIdle {
		pruned.Unlock()
		return
	}
	pruned.at[d.Path()] = now
	pruned.Unlock()
	pruneDir(d, now)
}

// pruneDir deletes the lock files of d created more than pruneIdle before
// now that nobody holds; it touches no other file.
func pruneDir(d *machinedir.Dir, now time.Time) int {
	return d.Prune(isLockName, pruneIdle, now)
}

// isLockName reports whether name is one of lockName's names.
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
