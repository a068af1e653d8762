package commit

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
)

// progress shows what a commit is doing, on stderr (never stdout: --json
// stays clean): the phase and its counts — the files being hashed, blobs
// uploaded n/N with their bytes, trees k/K, the attempt — and what it waits
// for (the write pacer, a rate limit, a retry) with the time left.
//
// On a terminal it is one line, redrawn about once a second and cleared at
// the end; a commit done within the first second shows nothing. Elsewhere
// (CI logs) it prints one line for each phase that lasts over 2 s and one
// for each wait over 2 s, so a short commit prints nothing and a long one
// never looks hung. A nil *progress does nothing.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	now      func() time.Time

	phase     string // what the commit does now, with its counts
	since     time.Time
	printed   bool // plain: this phase's line is out
	attempt   int
	waitWhat  string
	waitUntil time.Time
	drawn     bool // terminal: a line is on screen

	stop chan struct{}
	done sync.Once
}

// plainPhaseAfter is how long a phase lasts before a plain log shows it.
const plainPhaseAfter = 2 * time.Second

func newProgress(w io.Writer, terminal bool, files int, bytes int64) *progress {
	p := &progress{w: w, terminal: terminal, now: time.Now, stop: make(chan struct{})}
	p.setPhase(fmt.Sprintf("hashing %s (%s)", plural(files, "file"), mib(bytes)))
	return p
}

// start redraws (terminal) or checks the phase (plain) on a ticker until
// finish.
func (p *progress) start() {
	if p == nil {
		return
	}
	every := time.Second
	if !p.terminal {
		every = 250 * time.Millisecond
	}
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.tick()
			case <-p.stop:
				return
			}
		}
	}()
}

func (p *progress) setPhase(s string) {
	if p.phase == s {
		return
	}
	p.phase, p.since, p.printed = s, p.now(), false
}

// line is the status: the attempt, the phase, and a wait with its time left.
func (p *progress) line() string {
	s := p.phase
	if p.attempt > 0 {
		s = fmt.Sprintf("attempt %d: %s", p.attempt, s)
	}
	if left := p.waitUntil.Sub(p.now()); left > 0 {
		s += fmt.Sprintf("; waiting for %s, %s left", p.waitWhat, left.Round(time.Second))
	}
	return s
}

func (p *progress) tick() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", p.line())
		p.drawn = true
		return
	}
	if !p.printed && p.now().Sub(p.since) >= plainPhaseAfter {
		p.printed = true
		fmt.Fprintf(p.w, "ghcommitter: %s\n", p.line())
	}
}

// observe is the Committer's observer.
func (p *progress) observe(e committer.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case committer.EventAttempt:
		p.attempt = e.Attempt
		p.setPhase("reading the branch")
	case committer.EventUpload:
		p.setPhase(fmt.Sprintf("uploading blobs %d/%d (%s of %s)", e.Done, e.Total, mib(e.Bytes), mib(e.TotalBytes)))
	case committer.EventTree:
		p.setPhase(fmt.Sprintf("creating trees %d/%d", e.Done, e.Total))
	case committer.EventLostRace:
		p.setPhase("another writer moved the branch first: rebuilding on its head")
	case committer.EventRateLimitWait:
		// The commit loop's wait after a refusal, or the HTTP layer's
		// for a rate-limit window of the credential.
		p.waitLocked("a rate limit", e.Wait)
	case committer.EventWritePaced:
		p.waitLocked("the write pacer", e.Wait)
	case committer.EventLanded:
		p.setPhase("landed")
	}
}

// wait notes a wait of d for what.
func (p *progress) wait(what string, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waitLocked(what, d)
}

func (p *progress) waitLocked(what string, d time.Duration) {
	until := p.now().Add(d)
	if until.Before(p.waitUntil) {
		return // a longer wait is under way
	}
	p.waitWhat, p.waitUntil = what, until
	if !p.terminal && d > plainPhaseAfter {
		fmt.Fprintf(p.w, "ghcommitter: waiting %s for %s\n", d.Round(time.Second), what)
	}
}

// finish stops the display and clears the terminal line.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.done.Do(func() { close(p.stop) })
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

func mib(n int64) string {
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// progressLog is the slog handler the client's request log goes to: it
// hands the wait before a retry the client logs to the progress display, and passes every record on to
// next (the --verbose log), if any.
type progressLog struct {
	p    *progress
	next slog.Handler
}

func (h progressLog) Enabled(_ context.Context, l slog.Level) bool {
	return l >= slog.LevelDebug
}

func (h progressLog) Handle(ctx context.Context, r slog.Record) error {
	var wait time.Duration
	status := int64(0)
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "wait":
			wait = a.Value.Duration()
		case "status":
			status = a.Value.Int64()
		}
		return true
	})
	// The pacer's and the rate-limit gate's waits come as events
	// (EventWritePaced, EventRateLimitWait); a retry's backoff has none.
	if wait > 0 {
		switch r.Message {
		case "github retrying":
			what := "a retry"
			if status != 0 {
				what = fmt.Sprintf("a retry after HTTP %d", status)
			}
			h.p.wait(what, wait)
		}
	}
	if h.next != nil && h.next.Enabled(ctx, r.Level) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

func (h progressLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	if h.next != nil {
		h.next = h.next.WithAttrs(attrs)
	}
	return h
}

func (h progressLog) WithGroup(name string) slog.Handler {
	if h.next != nil {
		h.next = h.next.WithGroup(name)
	}
	return h
}
