// Package machinedir opens the directories through which the processes
// of one user on one machine share state (the turns' lock files, the
// rate-limit state), so that nobody else can turn them against that user.
//
// Open accepts a directory only when the user (the effective uid) owns it
// and neither its group nor others may write into it; it creates a missing
// one with mode 0700. Every file is then opened relative to the directory
// opened and checked (openat), so renaming or replacing the path later
// does not redirect it; without following a symbolic link and without
// blocking (O_NOFOLLOW|O_NONBLOCK), and used only when it is a regular
// file the user owns: a symbolic link, a FIFO, a device or another user's
// file is refused with an error, never written through or waited on. A
// file is written whole or not at all: into a new temporary file, then
// renamed over the old one, so a writer that fails (a full disk, a file
// size limit) leaves the old content. Prune deletes only the names its
// caller matches, and a lock file only while it holds its lock and the name
// still names the file it locked.
//
// Only Unix systems are supported: elsewhere Open fails, and its callers
// keep their state within the process.
package machinedir

import (
	"sync"
	"time"
)

// MaxRead is the most ReadFile reads: the files are small.
const MaxRead = 1 << 20

// Locker takes one file's lock again and again, waiting in the kernel
// (flock(2) without LOCK_NB) rather than polling, so that many waiting
// processes do not keep the holder from the CPU: the kernel wakes a waiter
// the moment the lock is free. A wait that runs out leaves its goroutine
// blocked in the kernel; the next Lock waits on that same goroutine, and
// when nobody waits any more the goroutine lets the lock go at once. So a
// process keeps at most one such goroutine per file, ended when the holder
// releases the lock or dies.
type Locker struct {
	d    *Dir
	name string

	mu      sync.Mutex
	pending *acquisition
}

type acquisition struct {
	ch   chan *Lock    // hands the lock to a waiter
	gone chan struct{} // closed when the goroutine ends
	err  error         // why it ended without the lock
}

// Locker returns a Locker of the file name in d.
func (d *Dir) Locker(name string) *Locker { return &Locker{d: d, name: name} }

// Lock waits at most wait for the lock; nil and no error when the wait
// ran out.
func (k *Locker) Lock(wait time.Duration) (*Lock, error) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		k.mu.Lock()
		a := k.pending
		if a == nil {
			a = k.start()
			k.pending = a
		}
		k.mu.Unlock()
		select {
		case l := <-a.ch:
			k.clear(a)
			return l, nil
		case <-a.gone:
			k.clear(a)
			if a.err != nil {
				return nil, a.err
			}
			// It took the lock when nobody waited, and let it go.
		case <-timer.C:
			return nil, nil
		}
	}
}

func (k *Locker) start() *acquisition {
	a := &acquisition{ch: make(chan *Lock), gone: make(chan struct{})}
	go func() {
		defer close(a.gone)
		l, err := k.d.lockWait(k.name)
		if err != nil {
			a.err = err
			return
		}
		select {
		case a.ch <- l:
		default:
			l.Unlock()
		}
	}()
	return a
}

func (k *Locker) clear(a *acquisition) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.pending == a {
		k.pending = nil
	}
}

// Ident is what Dir.Ident returns: comparable.
type Ident struct {
	ino   uint64
	ctime int64
}
