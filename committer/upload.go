package committer

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
)

// upload creates the blobs that are not known to exist yet, at most
// o.concurrency at a time. A blob uploaded once is never uploaded again by
// this Committer; the same blob listed twice is uploaded once.
func (c *Committer) upload(ctx context.Context, srcs []*changes.Source) error {
	seen := map[string]bool{}
	var todo []*changes.Source
	for _, s := range srcs {
		if !seen[s.SHA] && !c.cache.IsUploaded(s.SHA) {
			seen[s.SHA] = true
			todo = append(todo, s)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, c.o.concurrency)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		done  int
		sent  int64
		total int64
	)
	for _, s := range todo {
		total += s.Size
	}
	for _, s := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			err := c.uploadOne(ctx, s)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = err
					cancel()
				}
				return
			}
			done++
			sent += s.Size
			c.observe(Event{Kind: EventUpload, Done: done, Total: len(todo), Bytes: sent, TotalBytes: total})
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

func (c *Committer) uploadOne(ctx context.Context, s *changes.Source) error {
	c.o.logger.DebugContext(ctx, "upload blob", "sha", s.SHA, "size", s.Size)
	var got string
	var err error
	if s.InMemory() {
		got, err = c.rest.CreateBlob(ctx, s.Data)
	} else {
		got, err = c.rest.StreamBlob(ctx, s.Size, sourceOpener(s.Reader))
	}
	if err != nil {
		return fmt.Errorf("upload blob %s (%d bytes): %w", short(s.SHA), s.Size, err)
	}
	if got != s.SHA {
		// The content read now is not what was hashed: it changed.
		return &sourceError{fmt.Errorf("upload blob: GitHub stored %s, expected %s: the content changed since it was hashed", short(got), short(s.SHA))}
	}
	c.cache.MarkUploaded(s.SHA)
	return nil
}

// sourceError is the failure to read a change set's content again (a
// PutReader's open, a local file gone or changed since it was hashed):
// the change set's own.
type sourceError struct{ err error }

func (e *sourceError) Error() string { return "read content: " + e.err.Error() }
func (e *sourceError) Unwrap() error { return e.err }

// sourceOpener wraps open so that its failures, and its reader's, are
// sourceErrors.
func sourceOpener(open func() (io.ReadCloser, error)) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		rc, err := open()
		if err != nil {
			return nil, &sourceError{err}
		}
		return sourceReader{rc}, nil
	}
}

type sourceReader struct{ io.ReadCloser }

func (r sourceReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = &sourceError{err}
	}
	return n, err
}
