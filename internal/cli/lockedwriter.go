package cli

import (
	"io"
	"sync"
)

// lockedWriter serialises writes to stderr, which the progress display,
// the --verbose log and --edit commands' output share.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
