package committer_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/committer/internal/turns"
)

// raceLog keeps why each attempt raced without a turn.
type raceLog struct {
	mu   sync.Mutex
	errs []error
}

func (r *raceLog) Enabled(context.Context, slog.Level) bool { return true }
func (r *raceLog) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *raceLog) WithGroup(string) slog.Handler            { return r }
func (r *raceLog) Handle(_ context.Context, rec slog.Record) error {
	if rec.Message != "racing without a turn" {
		return nil
	}
	rec.Attrs(func(a slog.Attr) bool {
		if err, ok := a.Value.Any().(error); ok && a.Key == "error" {
			r.mu.Lock()
			r.errs = append(r.errs, err)
			r.mu.Unlock()
		}
		return true
	})
	return nil
}

// TestTurnWaitIsBoundedPerCommit: behind a turn holder that never lets go,
// a commit that loses races waits for a turn once (its whole budget), not
// on every attempt: the later attempts race at once.
func TestTurnWaitIsBoundedPerCommit(t *testing.T) {
	log := &raceLog{}
	ts, c := setupClient(t, []ghclient.Option{ghclient.WithLogger(slog.New(log))}, committer.WithTurnDir(t.TempDir()),
		committer.WithTurnWait(100*time.Millisecond), committer.WithFastForwardRefUpdates())
	holder := turns.Turns{}.Take(context.Background(), committer.TurnKey(c, "main"))
	defer holder.Release()
	if !holder.Granted {
		t.Fatal(holder.Err)
	}
	// Another writer moves main before each of our first two ref updates.
	n := 0
	ts.Inject(githubtest.Fault{Method: http.MethodPatch, Route: "PATCH /repos/{owner}/{repo}/git/refs/{ref...}", Times: 2, Before: func(*http.Request) {
		n++
		if _, err := ts.Seed(owner, repo, "main", "another writer", githubtest.File{Path: "other.txt", Content: []byte{byte('0' + n), '\n'}}); err != nil {
			t.Error(err)
		}
	}})
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("ours").Put("ours.txt", []byte("ours\n")), committer.WithEngine(committer.EngineGitData))
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 3 {
		t.Fatalf("landed on attempt %d, want 3 (two lost races)", res.Attempts)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.errs) != 3 || !errors.Is(log.errs[0], context.DeadlineExceeded) || !errors.Is(log.errs[1], turns.ErrWaitSpent) || !errors.Is(log.errs[2], turns.ErrWaitSpent) {
		t.Fatalf("raced without a turn because of %v: want the wait running out once, then no wait", log.errs)
	}
}
