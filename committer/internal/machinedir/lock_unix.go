//go:build unix

package machinedir

import (
	"errors"
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Lock is a held exclusive lock (flock(2)) of a file of a Dir.
type Lock struct{ fd int }

// Unlock lets the lock go; it may be called more than once.
func (l *Lock) Unlock() {
	if l != nil && l.fd >= 0 {
		_ = unix.Close(l.fd) // closing lets the flock go
		l.fd = -1
	}
}

// TryLock takes name's lock (creating an empty file of mode 0600) when
// nobody holds it; ok is false when somebody does.
func (d *Dir) TryLock(name string) (l *Lock, ok bool, err error) {
	return d.lock(name, unix.LOCK_EX|unix.LOCK_NB)
}

// lockWait takes name's lock, waiting in the kernel as long as it takes.
func (d *Dir) lockWait(name string) (*Lock, error) {
	l, _, err := d.lock(name, unix.LOCK_EX)
	return l, err
}

// lock locks name's file, then checks that the name still names the file
// it locked: Prune may have deleted it in between, and a lock on a deleted
// file holds nobody back.
func (d *Dir) lock(name string, how int) (*Lock, bool, error) {
	for range 100 {
		fd, st, err := d.open(name, unix.O_RDWR|unix.O_CREAT)
		if err != nil {
			return nil, false, err
		}
		for {
			err = unix.Flock(fd, how)
			if !errors.Is(err, unix.EINTR) {
				break
			}
		}
		if err != nil {
			_ = unix.Close(fd)
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, false, nil
			}
			return nil, false, fmt.Errorf("lock %s: %w", filepath.Join(d.path, name), err)
		}
		var now unix.Stat_t
		if unix.Fstatat(d.fd, name, &now, unix.AT_SYMLINK_NOFOLLOW) == nil && now.Dev == st.Dev && now.Ino == st.Ino {
			return &Lock{fd: fd}, true, nil
		}
		_ = unix.Close(fd) // deleted or replaced: lock the file the name names now
	}
	return nil, false, fmt.Errorf("lock %s: the file keeps being replaced", filepath.Join(d.path, name))
}
