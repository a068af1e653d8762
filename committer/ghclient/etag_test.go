package ghclient

import (
	"context"
	"crypto/sha1"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v66/github"
)

// etagRefs serves refs with ETags and answers If-None-Match with 304, as
// GitHub does; it counts full replies and 304s per token.
type etagRefs struct {
	mu         sync.Mutex
	head       string
	full, cond map[string]int
	sentINM    []string
}

func (e *etagRefs) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	tok := r.Header.Get("Authorization")
	body := fmt.Sprintf(`{"ref":"refs/heads/main","object":{"sha":%q,"type":"commit"}}`, e.head)
	tag := fmt.Sprintf(`W/"%x"`, sha1.Sum([]byte(tok+body)))
	w.Header().Set("ETag", tag)
	w.Header().Set("X-Ratelimit-Remaining", "4000")
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		e.sentINM = append(e.sentINM, inm)
		if inm == tag {
			e.cond[tok]++
			w.Header().Set("X-GitHub-Request-Id", "304-reply")
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	e.full[tok]++
	writeJSON(w, 200, body)
}

func (e *etagRefs) counts(tok string) (full, cond int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.full["Bearer "+tok], e.cond["Bearer "+tok]
}

func (e *etagRefs) move(sha string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.head = sha
}

func TestETagCacheServesUnchangedReadsFrom304(t *testing.T) {
	e := &etagRefs{head: "aaa", full: map[string]int{}, cond: map[string]int{}}
	srv := newServer(t, e)
	clock := newFakeClock()
	c := clientsOn(t, srv.URL, srv.Client(), clock, []Option{WithToken("one")}, []Option{WithToken("two")}, []Option{WithToken("three"), WithETagCache(0)})
	ctx := context.Background()
	read := func(gh *github.Client) (string, *github.Response) {
		t.Helper()
		ref, resp, err := gh.Git.GetRef(ctx, "o", "r", "heads/main")
		if err != nil {
			t.Fatal(err)
		}
		return ref.GetObject().GetSHA(), resp
	}
	for range 3 {
		if sha, _ := read(c[0]); sha != "aaa" {
			t.Fatalf("head %s", sha)
		}
	}
	if full, cond := e.counts("one"); full != 1 || cond != 2 {
		t.Fatalf("full replies %d, 304s %d; want 1 and 2", full, cond)
	}
	sha, resp := read(c[0])
	if sha != "aaa" || resp.StatusCode != 200 || resp.Header.Get("X-From-Cache") != "1" || resp.Header.Get("X-GitHub-Request-Id") != "304-reply" {
		t.Fatalf("cached reply: sha %s status %d headers %v", sha, resp.StatusCode, resp.Header)
	}
	// A moved head is read in full: the cache never answers by itself.
	e.move("bbb")
	if sha, _ := read(c[0]); sha != "bbb" {
		t.Fatalf("stale head %s served", sha)
	}
	if sha, _ := read(c[0]); sha != "bbb" {
		t.Fatalf("head %s", sha)
	}
	if full, cond := e.counts("one"); full != 2 || cond != 4 {
		t.Fatalf("full replies %d, 304s %d; want 2 and 4", full, cond)
	}
	// Another credential has its own entries; the cache can be turned off.
	read(c[1])
	read(c[2])
	read(c[2])
	if full, cond := e.counts("two"); full != 1 || cond != 0 {
		t.Fatalf("second token: full %d, 304s %d", full, cond)
	}
	if full, cond := e.counts("three"); full != 2 || cond != 0 {
		t.Fatalf("cache off: full %d, 304s %d", full, cond)
	}
	for _, inm := range e.sentINM {
		if !strings.HasPrefix(inm, `W/"`) {
			t.Fatalf("If-None-Match %q", inm)
		}
	}
}

func TestETagCacheLeavesCallersConditionalRequestsAlone(t *testing.T) {
	e := &etagRefs{head: "aaa", full: map[string]int{}, cond: map[string]int{}}
	gh, _, _ := setup(t, e, WithToken("one"))
	ctx := context.Background()
	_, resp, err := gh.Git.GetRef(ctx, "o", "r", "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := gh.NewRequest("GET", "repos/o/r/git/ref/heads/main", nil)
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	r2, err := gh.Client().Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != http.StatusNotModified {
		t.Fatalf("caller's own conditional request got %d, want its 304", r2.StatusCode)
	}
}
