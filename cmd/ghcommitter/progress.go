package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress shows uploaded bytes on one terminal line, at most ten times a
// second. A nil *progress does nothing.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	total int64 // bytes of local content; uploads are usually fewer
	sent  int64
	last  time.Time
	shown bool
}

func newProgress(w io.Writer, total int64) *progress {
	return &progress{w: w, total: total}
}

func (p *progress) add(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sent += n
	if now := time.Now(); now.Sub(p.last) >= 100*time.Millisecond {
		p.last = now
		p.shown = true
		fmt.Fprintf(p.w, "\r\033[Kuploading: %s of up to %s", mib(p.sent), mib(p.total))
	}
}

func (p *progress) done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func mib(n int64) string {
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
