package commit

import (
	"bytes"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
)

// clock is a settable time for the progress display.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestProgressTerminalLine(t *testing.T) {
	var b bytes.Buffer
	clk := &clock{t: time.Unix(1000, 0)}
	p := newProgress(&b, true, 12, 3<<20)
	p.now = clk.now
	p.tick()
	if got := b.String(); got != "\r\033[Khashing 12 files (3.0 MiB)" {
		t.Fatalf("first line %q", got)
	}
	b.Reset()
	p.observe(committer.Event{Kind: committer.EventAttempt, Attempt: 2})
	p.observe(committer.Event{Kind: committer.EventUpload, Done: 3, Total: 10, Bytes: 1 << 20, TotalBytes: 4 << 20})
	p.wait("the write pacer", 12*time.Second)
	clk.t = clk.t.Add(2 * time.Second)
	p.tick()
	if got, want := b.String(), "\r\033[Kattempt 2: uploading blobs 3/10 (1.0 MiB of 4.0 MiB); waiting for the write pacer, 10s left"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	b.Reset()
	p.observe(committer.Event{Kind: committer.EventTree, Done: 1, Total: 2})
	clk.t = clk.t.Add(20 * time.Second)
	p.tick()
	if got, want := b.String(), "\r\033[Kattempt 2: creating trees 1/2"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	b.Reset()
	p.finish()
	if b.String() != "\r\033[K" {
		t.Errorf("finish wrote %q, want the line cleared", b.String())
	}
	var nilp *progress
	nilp.finish() // a nil progress does nothing
	nilp.start()
}

func TestProgressPlainLines(t *testing.T) {
	var b bytes.Buffer
	clk := &clock{t: time.Unix(1000, 0)}
	p := newProgress(&b, false, 1, 10)
	p.now = clk.now
	p.since = clk.t
	p.observe(committer.Event{Kind: committer.EventAttempt, Attempt: 1})
	clk.t = clk.t.Add(time.Second)
	p.tick()
	p.observe(committer.Event{Kind: committer.EventUpload, Done: 1, Total: 400, Bytes: 1 << 20, TotalBytes: 400 << 20})
	p.wait("the write pacer", time.Second) // short: not shown
	clk.t = clk.t.Add(1500 * time.Millisecond)
	p.tick()
	if b.Len() != 0 {
		t.Fatalf("phases under 2 s printed %q", b.String())
	}
	clk.t = clk.t.Add(time.Second)
	p.tick()
	p.tick() // once per phase
	p.wait("a secondary rate limit", 61*time.Second)
	want := "ghcommitter: attempt 1: uploading blobs 1/400 (1.0 MiB of 400.0 MiB)\n" +
		"ghcommitter: waiting 1m1s for a secondary rate limit\n"
	if b.String() != want {
		t.Errorf("plain log %q, want %q", b.String(), want)
	}
	p.finish()
}
