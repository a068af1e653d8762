package committer_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/committer/internal/loop"
	pubturns "github.com/ghcommitter/ghcommitter/committer/turns"
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
	holder, err := pubturns.InProcess().Take(context.Background(), committer.TurnKey(c, "main"))
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Release()
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
	if len(log.errs) != 3 || !errors.Is(log.errs[0], context.DeadlineExceeded) || !errors.Is(log.errs[1], loop.ErrWaitSpent) || !errors.Is(log.errs[2], loop.ErrWaitSpent) {
		t.Fatalf("raced without a turn because of %v: want the wait running out once, then no wait", log.errs)
	}
}

// TestLibraryWritesNoFile: a program that embeds the library, with a fresh
// HOME and cache directory, leaves both empty after its commits: turns and
// rate-limit state stay in the process unless it asks for files. The API
// is not on a loopback address (it dials the fake through a resolver of
// its own), which is where the rate-limit state once went to files.
func TestLibraryWritesNoFile(t *testing.T) {
	home, cache := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", cache)
	ts := githubtest.NewServer(t)
	if err := ts.CreateRepo(owner, repo, true); err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(ts.URL, "http://"), "/")
	dial := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
	}}
	hc, err := ghclient.NewHTTPClient(context.Background(), ghclient.WithBaseURL("http://github.example/api/v3/"), ghclient.WithToken("a-token"), ghclient.WithHTTPClient(dial))
	if err != nil {
		t.Fatal(err)
	}
	c, err := committer.New(owner, repo, committer.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := committer.NewChangeSet(fmt.Sprintf("writer %d", i)).Put(fmt.Sprintf("w%d.txt", i), []byte("x\n"))
			if _, err := c.Commit(context.Background(), "main", cs); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i := range 3 {
		if got := readFile(t, ts, "main", fmt.Sprintf("w%d.txt", i)); got != "x\n" {
			t.Fatalf("w%d.txt holds %q", i, got)
		}
	}
	for _, dir := range []string{home, cache} {
		var found []string
		_ = filepath.WalkDir(dir, func(p string, _ fs.DirEntry, _ error) error {
			if p != dir {
				found = append(found, p)
			}
			return nil
		})
		if len(found) > 0 {
			t.Errorf("the library left %v", found)
		}
	}
}

// recordTurns is a Turns of the caller's own: it grants every turn and
// keeps the keys it was asked for and how many turns are held.
type recordTurns struct {
	mu   sync.Mutex
	keys []pubturns.Key
	held int
	// slow is how long Release takes before the turn counts as released
	// (a Lease's release is a round trip to the API server).
	slow time.Duration
}

func (r *recordTurns) Take(_ context.Context, k pubturns.Key) (pubturns.Turn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys = append(r.keys, k)
	r.held++
	return recordTurn{r}, nil
}

type recordTurn struct{ r *recordTurns }

func (recordTurn) Queued() bool { return false }
func (t recordTurn) Release() {
	time.Sleep(t.r.slow)
	t.r.mu.Lock()
	t.r.held--
	t.r.mu.Unlock()
}

// TestWithTurnsTakesTheCallersTurns: an implementation of the caller's
// is asked for the turn of the API, the repository (lower case) and the
// branch on each attempt, and each turn is released.
func TestWithTurnsTakesTheCallersTurns(t *testing.T) {
	rec := &recordTurns{}
	_, c := setup(t, committer.WithTurns(rec))
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("m").Put("a.txt", []byte("a\n"))); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.keys) != 1 || rec.held != 0 {
		t.Fatalf("took %d turns (%v), %d still held: want one, released", len(rec.keys), rec.keys, rec.held)
	}
	if k := rec.keys[0]; k.Repository != strings.ToLower(owner+"/"+repo) || k.Branch != "main" || k.API == "" {
		t.Fatalf("key %+v", k)
	}
	if _, err := committer.New(owner, repo, committer.WithTurns(nil)); err == nil {
		t.Fatal("WithTurns(nil) accepted")
	}
}

// TestTurnReleasedBeforeCommitReturns: the attempt's turn is released
// before the callers learn that their change landed, even when a release
// takes a while: a program that exits as soon as Commit returns (a
// shard, a CI job) must not exit holding the turn, which would keep the
// other writers waiting until it expires (a Lease's duration).
func TestTurnReleasedBeforeCommitReturns(t *testing.T) {
	rec := &recordTurns{slow: 100 * time.Millisecond}
	_, c := setup(t, committer.WithTurns(rec))
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("m").Put("a.txt", []byte("a\n"))); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.keys) != 1 || rec.held != 0 {
		t.Fatalf("took %d turns, %d still held when Commit returned: want one, released", len(rec.keys), rec.held)
	}
}
