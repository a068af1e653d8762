package ghclient

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"
)

func TestConcurrencyLimitPerRepository(t *testing.T) {
	const limit, perRepo = 2, 12
	var mu sync.Mutex
	inFlight := map[string]int{}
	peak := map[string]int{}
	total, peakTotal := 0, 0
	// The first 2*limit requests wait until 2*limit are in flight at once:
	// that can only happen if the two repositories have separate limits.
	barrier := make(chan struct{})
	arrived := 0
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		repo := strings.ToLower(strings.Split(r.URL.Path, "/")[3])
		mu.Lock()
		inFlight[repo]++
		total++
		peak[repo] = max(peak[repo], inFlight[repo])
		peakTotal = max(peakTotal, total)
		arrived++
		if arrived == 2*limit {
			close(barrier)
		}
		mu.Unlock()
		select {
		case <-barrier:
		case <-time.After(10 * time.Second):
		}
		time.Sleep(time.Millisecond) // let others pile up at the limiter
		mu.Lock()
		inFlight[repo]--
		total--
		mu.Unlock()
		writeJSON(w, 200, `{"sha":"abc","content":"eA==","encoding":"base64"}`)
	})
	gh, _, _ := setup(t, h, WithConcurrency(limit))
	var wg sync.WaitGroup
	errs := make(chan error, 2*perRepo)
	for _, repo := range []string{"a", "b"} {
		for i := 0; i < perRepo; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Mixed case: GitHub names are case-insensitive, so is the key.
				name := repo
				if i%2 == 1 {
					name = strings.ToUpper(repo)
				}
				_, _, err := gh.Git.GetBlob(context.Background(), "o", name, fmt.Sprint(i))
				errs <- err
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for repo, p := range peak {
		if p > limit {
			t.Errorf("repo %s: %d requests in flight, limit %d", repo, p, limit)
		}
	}
	if peakTotal != 2*limit {
		t.Fatalf("peak in flight over both repos = %d, want %d (limit %d each)", peakTotal, 2*limit, limit)
	}
}

func TestConcurrencyLimitNeverExceeded(t *testing.T) {
	const limit = 3
	var mu sync.Mutex
	cur, peak := 0, 0
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		cur++
		peak = max(peak, cur)
		mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		cur--
		mu.Unlock()
		if r.Method == http.MethodPatch {
			writeJSON(w, 422, `{"message":"Update is not a fast forward"}`)
			return
		}
		writeJSON(w, 200, `{"ref":"refs/heads/main","object":{"sha":"abc"}}`)
	})
	gh, _, _ := setup(t, h, WithConcurrency(limit))
	var wg sync.WaitGroup
	for i := 0; i < 30; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			if i%3 == 0 {
				ref := &github.Reference{Ref: github.String("heads/main"), Object: &github.GitObject{SHA: github.String("abc")}}
				_, _, _ = gh.Git.UpdateRef(ctx, "o", "r", ref, false)
				return
			}
			_, _, _ = gh.Git.GetRef(ctx, "o", "r", "heads/main")
		}()
	}
	wg.Wait()
	if peak > limit || peak == 0 {
		t.Fatalf("peak in flight %d, limit %d", peak, limit)
	}
}

func TestLimiterWaitEndsWithContext(t *testing.T) {
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/slow") {
			<-release
		}
		writeJSON(w, 200, `{}`)
	})
	gh, _, srv := setup(t, h, WithConcurrency(1))
	slowDone := make(chan error, 1)
	go func() {
		_, _, err := gh.Repositories.GetBranch(context.Background(), "o", "r", "slow", 0)
		slowDone <- err
	}()
	// Wait until the slow request holds the only slot.
	deadline := time.Now().Add(10 * time.Second)
	for {
		req, _ := http.NewRequest("GET", srv.URL+"/repos/o/r/x", nil)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		resp, err := gh.Client().Do(req.WithContext(ctx))
		cancel()
		if err != nil {
			break // blocked at the limiter until ctx ended: the slot is held
		}
		resp.Body.Close()
		if time.Now().After(deadline) {
			t.Fatal("slow request never took the slot")
		}
	}
	// Other repositories are not blocked.
	if _, _, err := gh.Repositories.Get(context.Background(), "o", "other"); err != nil {
		t.Fatal(err)
	}
	// The abandoned waiters left no slot behind: once the slow request is
	// done, the repository is usable again.
	close(release)
	if err := <-slowDone; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := gh.Repositories.Get(ctx, "o", "r"); err != nil {
		t.Fatal(err)
	}
}
