//go:build unix

package machinedir

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Dir is a directory Open accepted, held open: its files are opened
// relative to it.
type Dir struct {
	path string
	fd   int
}

// Open makes dir (mode 0700) when it is missing, opens it and checks that
// the user owns it and that neither group nor others may write into it. A
// symbolic link to such a directory is followed.
func Open(dir string) (*Dir, error) {
	if dir == "" {
		return nil, errors.New("no directory named")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		_ = unix.Close(fd)
		return nil, &os.PathError{Op: "stat", Path: dir, Err: err}
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("directory %s belongs to uid %d, not to this user (uid %d): not used, since its owner could plant files in it", dir, st.Uid, uid)
	}
	if perm := st.Mode & 0o777; perm&0o022 != 0 {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("directory %s has mode %04o: not used, since other users may write into it; make it private (chmod 700 %s)", dir, perm, dir)
	}
	return &Dir{path: dir, fd: fd}, nil
}

// Path is the directory's path.
func (d *Dir) Path() string { return d.path }

// Close closes the directory.
func (d *Dir) Close() error { return unix.Close(d.fd) }

// open opens name with flags (O_CREAT makes it with mode 0600), refusing
// anything but a regular file the user owns.
func (d *Dir) open(name string, flags int) (int, unix.Stat_t, error) {
	var st unix.Stat_t
	path := filepath.Join(d.path, name)
	if name == "" || strings.ContainsRune(name, '/') || name == "." || name == ".." {
		return -1, st, fmt.Errorf("file name %q: must name a file in %s", name, d.path)
	}
	fd, err := unix.Openat(d.fd, name, flags|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o600)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EMLINK) {
			return -1, st, fmt.Errorf("%s is a symbolic link: not followed", path)
		}
		return -1, st, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := unix.Fstat(fd, &st); err != nil {
		_ = unix.Close(fd)
		return -1, st, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		err = fmt.Errorf("%s is not a regular file (a FIFO, a device or a directory?): not used", path)
	case int(st.Uid) != os.Geteuid():
		err = fmt.Errorf("%s belongs to uid %d, not to this user: not used", path, st.Uid)
	}
	if err != nil {
		_ = unix.Close(fd)
		return -1, st, err
	}
	return fd, st, nil
}

// ReadFile reads name, at most MaxRead bytes; a missing file is an error
// that matches os.ErrNotExist.
func (d *Dir) ReadFile(name string) ([]byte, error) {
	fd, _, err := d.open(name, unix.O_RDONLY)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), filepath.Join(d.path, name))
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, MaxRead+1))
	if err == nil && len(data) > MaxRead {
		err = fmt.Errorf("%s: larger than %d bytes", f.Name(), MaxRead)
	}
	return data, err
}

// TempSuffix ends the names of WriteFile's temporary files:
// name.<16 hex digits>.tmp.
const TempSuffix = ".tmp"

// WriteFile replaces name with data (mode 0600) through a temporary file
// renamed over it: a failed write leaves the old content whole.
func (d *Dir) WriteFile(name string, data []byte) error {
	var r [8]byte
	_, _ = rand.Read(r[:])
	tmp := name + "." + hex.EncodeToString(r[:]) + TempSuffix
	fd, _, err := d.open(tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), filepath.Join(d.path, tmp))
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(d.fd, tmp, d.fd, name)
	}
	if err != nil {
		_ = unix.Unlinkat(d.fd, tmp, 0)
		return fmt.Errorf("write %s: %w", filepath.Join(d.path, name), err)
	}
	return nil
}

// Prune deletes the regular files of d whose names match and that were
// last changed more than idle before now. A name ending in ".lock" is
// deleted only while Prune holds its lock (not held by anyone else) and
// the name still names the file it locked. It returns how many it deleted.
func (d *Dir) Prune(match func(name string) bool, idle time.Duration, now time.Time) int {
	fd, err := unix.Openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	f := os.NewFile(uintptr(fd), d.path)
	names, _ := f.Readdirnames(-1)
	_ = f.Close()
	n := 0
	for _, name := range names {
		if !match(name) {
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			continue
		}
		if now.Sub(time.Unix(st.Mtim.Unix())) <= idle {
			continue
		}
		if d.remove(name) {
			n++
		}
	}
	return n
}

func (d *Dir) remove(name string) bool {
	if !strings.HasSuffix(name, ".lock") {
		return unix.Unlinkat(d.fd, name, 0) == nil
	}
	l, ok, err := d.TryLock(name)
	if err != nil || !ok {
		return false
	}
	defer l.Unlock()
	return unix.Unlinkat(d.fd, name, 0) == nil
}

// Ident identifies the file name holds now (its inode and change time): it
// changes whenever WriteFile replaces it. The zero Ident is no file.
func (d *Dir) Ident(name string) Ident {
	var st unix.Stat_t
	if unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return Ident{}
	}
	sec, nsec := st.Ctim.Unix()
	return Ident{ino: uint64(st.Ino), ctime: sec*1e9 + nsec}
}
