//go:build !unix

package machinedir

import (
	"errors"
	"time"
)

// errUnsupported is Open's error where the checks cannot be made.
var errUnsupported = errors.New("directories shared between processes are supported on Unix systems only")

// Dir is a directory Open accepted; see the Unix implementation.
type Dir struct{}

// Lock is a held lock; see the Unix implementation.
type Lock struct{}

// TempSuffix ends the names of WriteFile's temporary files.
const TempSuffix = ".tmp"

// Open fails: the checks need a Unix system.
func Open(string) (*Dir, error) { return nil, errUnsupported }

// Path is the directory's path.
func (d *Dir) Path() string { return "" }

// Close does nothing.
func (d *Dir) Close() error { return nil }

// ReadFile fails.
func (d *Dir) ReadFile(string) ([]byte, error) { return nil, errUnsupported }

// WriteFile fails.
func (d *Dir) WriteFile(string, []byte) error { return errUnsupported }

// Prune deletes nothing.
func (d *Dir) Prune(func(string) bool, time.Duration, time.Time) int { return 0 }

// TryLock fails.
func (d *Dir) TryLock(string) (*Lock, bool, error) { return nil, false, errUnsupported }

func (d *Dir) lockWait(string) (*Lock, error) { return nil, errUnsupported }

// Unlock does nothing.
func (l *Lock) Unlock() {}

// Ident is the zero Ident.
func (d *Dir) Ident(string) Ident { return Ident{} }
