package cmdutil

import (
	"io"
	"sync"
)

// LockedWriter serialises writes to stderr, which the progress display,
// the --verbose log and --edit commands' output share.
type LockedWriter struct {
	mu sync.Mutex
	W  io.Writer
}

func (l *LockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.W.Write(b)
}
