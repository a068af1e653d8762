package committer

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/google/go-github/v66/github"
)

// upload creates the blobs that are not known to exist yet, at most
// o.concurrency at a time. A blob uploaded once is never uploaded again by
// this Committer; the same blob listed twice is uploaded once.
func (c *Committer) upload(ctx context.Context, srcs []*source) error {
	seen := map[string]bool{}
	var todo []*source
	for _, s := range srcs {
		if !seen[s.sha] && !c.cache.isUploaded(s.sha) {
			seen[s.sha] = true
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
		total += s.size
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
			sent += s.size
			c.observe(Event{Kind: EventUpload, Done: done, Total: len(todo), Bytes: sent, TotalBytes: total})
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

func (c *Committer) uploadOne(ctx context.Context, s *source) error {
	c.o.logger.DebugContext(ctx, "upload blob", "sha", s.sha, "size", s.size)
	var got *github.Blob
	var err error
	if s.inMemory() {
		got, _, err = c.client.Git.CreateBlob(ctx, c.owner, c.repo, &github.Blob{
			Content:  github.String(base64.StdEncoding.EncodeToString(s.data)),
			Encoding: github.String("base64"),
		})
	} else {
		got, err = c.streamBlob(ctx, s)
	}
	if err != nil {
		return fmt.Errorf("upload blob %s (%d bytes): %w", short(s.sha), s.size, err)
	}
	if got.GetSHA() != s.sha {
		return fmt.Errorf("upload blob: GitHub stored %s, expected %s", short(got.GetSHA()), short(s.sha))
	}
	c.cache.markUploaded(s.sha)
	if c.o.progress != nil {
		c.o.progress(s.size)
	}
	return nil
}

// streamBlob uploads a blob whose content comes from a file or reader,
// base64-encoding it on the fly, so the file is never held in memory whole.
// GetBody lets a retrying transport send it again.
func (c *Committer) streamBlob(ctx context.Context, s *source) (*github.Blob, error) {
	req, err := c.client.NewRequest(http.MethodPost, fmt.Sprintf("repos/%v/%v/git/blobs", c.owner, c.repo), nil)
	if err != nil {
		return nil, err
	}
	const prefix, suffix = `{"encoding":"base64","content":"`, `"}`
	body := func() (io.ReadCloser, error) {
		rc, err := s.reader()
		if err != nil {
			return nil, err
		}
		pr, pw := io.Pipe()
		go func() {
			defer rc.Close()
			if _, err := io.WriteString(pw, prefix); err != nil {
				pw.CloseWithError(err)
				return
			}
			enc := base64.NewEncoder(base64.StdEncoding, pw)
			if _, err := io.Copy(enc, io.LimitReader(rc, s.size)); err != nil {
				pw.CloseWithError(err)
				return
			}
			if err := enc.Close(); err != nil {
				pw.CloseWithError(err)
				return
			}
			_, err := io.WriteString(pw, suffix)
			pw.CloseWithError(err)
		}()
		return pr, nil
	}
	rc, err := body()
	if err != nil {
		return nil, err
	}
	req.Body = rc
	req.GetBody = body
	req.ContentLength = int64(len(prefix)+len(suffix)) + int64(base64.StdEncoding.EncodedLen(int(s.size)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Length", strconv.FormatInt(req.ContentLength, 10))
	blob := new(github.Blob)
	if _, err := c.client.Do(ctx, req, blob); err != nil {
		return nil, err
	}
	return blob, nil
}
