package githubtest

import (
	"fmt"
	"sync"
	"testing"
)

// TestRaceFastForwardOnly: 200 goroutines read the head, commit on it and
// PATCH without force. The branch only ever moves by fast-forward, and
// each commit either lands or gets 422.
func TestRaceFastForwardOnly(t *testing.T) {
	ts, _ := seeded(t)
	const n = 200
	rr := "/repos/acme/mono"
	var wg sync.WaitGroup
	var mu sync.Mutex
	landed := map[string]bool{}
	rejected := 0
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			br := call(t, ts, "GET", rr+"/branches/main", nil)
			head := br.str(t, "commit", "sha")
			tree := br.obj(t)["commit"].(map[string]any)["commit"].(map[string]any)["tree"].(map[string]any)["sha"].(string)
			nt := call(t, ts, "POST", rr+"/git/trees", map[string]any{"base_tree": tree, "tree": []any{
				map[string]any{"path": fmt.Sprintf("w/%d.txt", i), "mode": "100644", "type": "blob", "content": fmt.Sprint(i)}}})
			c := call(t, ts, "POST", rr+"/git/commits", map[string]any{
				"message": fmt.Sprint("w", i), "tree": nt.str(t, "sha"), "parents": []string{head}})
			sha := c.str(t, "sha")
			up := call(t, ts, "PATCH", rr+"/git/refs/heads/main", map[string]any{"sha": sha, "force": false})
			mu.Lock()
			defer mu.Unlock()
			switch up.Status {
			case 200:
				landed[sha] = true
			case 422:
				rejected++
			default:
				t.Errorf("PATCH status %d: %s", up.Status, up.Raw)
			}
		}()
	}
	wg.Wait()
	if len(landed)+rejected != n || len(landed) == 0 {
		t.Fatalf("landed %d rejected %d", len(landed), rejected)
	}
	ups := ts.RefUpdates("acme", "mono")
	for _, u := range ups[1:] {
		if !u.FastForward || u.Forced {
			t.Fatalf("non fast-forward update %+v", u)
		}
	}
	if got := len(ups) - 1; got != len(landed) {
		t.Fatalf("%d ref updates for %d landed commits", got, len(landed))
	}
	hist, _ := ts.History("acme", "mono", "main")
	onBranch := map[string]bool{}
	for _, c := range hist {
		onBranch[c.SHA] = true
	}
	for sha := range landed {
		if !onBranch[sha] {
			t.Fatalf("landed commit %s not in history", sha)
		}
	}
}
