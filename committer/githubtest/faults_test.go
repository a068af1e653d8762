package githubtest

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"
)

const routePatchRef = "PATCH /repos/{owner}/{repo}/git/refs/{ref...}"

func TestFaultStatusSkipTimes(t *testing.T) {
	ts, _ := seeded(t)
	remove := ts.Inject(Fault{Method: "GET", Route: "GET /repos/{owner}/{repo}/branches/{branch...}", Skip: 1, Times: 2, Status: 502})
	want := []int{200, 502, 502, 200}
	for i, w := range want {
		if r := call(t, ts, "GET", "/repos/acme/mono/branches/main", nil); r.Status != w {
			t.Fatalf("request %d: status %d want %d", i, r.Status, w)
		}
	}
	remove()
	ts.Inject(Fault{Repo: "acme/other", Status: 500})
	expect(t, call(t, ts, "GET", "/repos/acme/mono/branches/main", nil), 200, "")
	ts.Inject(Fault{Status: 418, Body: `{"message":"teapot"}`, Header: http.Header{"X-Fault": {"1"}}})
	r := call(t, ts, "GET", "/repos/acme/mono", nil)
	if r.Status != 418 || r.Header.Get("X-Fault") != "1" || r.str(t, "message") != "teapot" {
		t.Fatalf("fault reply %d %v %s", r.Status, r.Header, r.Raw)
	}
	ts.ClearFaults()
	expect(t, call(t, ts, "GET", "/repos/acme/mono", nil), 200, "")
}

func TestFaultDropResponseAppliesWrite(t *testing.T) {
	ts, head := seeded(t)
	c, _ := ts.Commit("acme", "mono", head)
	next := call(t, ts, "POST", "/repos/acme/mono/git/commits", map[string]any{
		"message": "next", "tree": c.Tree, "parents": []string{head}}).str(t, "sha")
	ts.Inject(Fault{Route: routePatchRef, Times: 1, DropResponse: true})
	req, _ := http.NewRequest("PATCH", ts.URL+"repos/acme/mono/git/refs/heads/main", strings.NewReader(`{"sha":"`+next+`"}`))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("dropped response arrived")
	}
	if h, _ := ts.Head("acme", "mono", "main"); h != next {
		t.Fatalf("write not applied: head %s", h)
	}
}

func TestMoveBranchBeforeNextUpdate(t *testing.T) {
	ts, head := seeded(t)
	c, _ := ts.Commit("acme", "mono", head)
	mine := call(t, ts, "POST", "/repos/acme/mono/git/commits", map[string]any{
		"message": "mine", "tree": c.Tree, "parents": []string{head}}).str(t, "sha")
	ts.MoveBranchBeforeNextUpdate("acme", "mono", "main", File{Path: "theirs.txt", Content: []byte("x")})
	expect(t, call(t, ts, "PATCH", "/repos/acme/mono/git/refs/heads/main", map[string]any{"sha": mine}), 422, "Update is not a fast forward")
	if b, _, err := ts.ReadFile("acme", "mono", "main", "theirs.txt"); err != nil || string(b) != "x" {
		t.Fatalf("other writer's file: %q %v", b, err)
	}
	// Only once.
	h, _ := ts.Head("acme", "mono", "main")
	c2, _ := ts.Commit("acme", "mono", h)
	mine2 := call(t, ts, "POST", "/repos/acme/mono/git/commits", map[string]any{
		"message": "mine", "tree": c2.Tree, "parents": []string{h}}).str(t, "sha")
	expect(t, call(t, ts, "PATCH", "/repos/acme/mono/git/refs/heads/main", map[string]any{"sha": mine2}), 200, "")
}

func TestRateLimits(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	ts, _ := seeded(t, WithNow(func() time.Time { return now }))
	r := call(t, ts, "GET", "/repos/acme/mono", nil)
	if r.Header.Get("X-RateLimit-Remaining") != "4999" || r.Header.Get("X-RateLimit-Resource") != "core" {
		t.Fatalf("headers %v", r.Header)
	}
	for _, h := range []string{"X-GitHub-Request-Id", "X-GitHub-Media-Type", "X-RateLimit-Limit", "X-RateLimit-Used", "X-RateLimit-Reset"} {
		if r.Header.Get(h) == "" {
			t.Fatalf("missing %s", h)
		}
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Fatalf("content type %q", ct)
	}
	rm := ts.SecondaryRateLimit("GET /repos/{owner}/{repo}", 7, 1)
	r = call(t, ts, "GET", "/repos/acme/mono", nil)
	expect(t, r, 403, "secondary rate limit")
	if r.Header.Get("Retry-After") != "7" || !strings.HasSuffix(r.str(t, "documentation_url"), "secondary-rate-limits") {
		t.Fatalf("secondary %v %s", r.Header, r.Raw)
	}
	expect(t, call(t, ts, "GET", "/repos/acme/mono", nil), 200, "")
	rm()
	ts.TooManyRequests("", 0, 1)
	r = call(t, ts, "GET", "/repos/acme/mono", nil)
	if r.Status != 429 || r.Header.Get("Retry-After") != "" {
		t.Fatalf("429: %d %v", r.Status, r.Header)
	}
	ts.ExhaustRateLimit(now.Add(time.Minute))
	r = call(t, ts, "GET", "/repos/acme/mono", nil)
	expect(t, r, 403, "API rate limit exceeded for user ID 1.")
	if r.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("remaining %q", r.Header.Get("X-RateLimit-Remaining"))
	}
	expect(t, call(t, ts, "GET", "/rate_limit", nil), 200, "")
	now = now.Add(2 * time.Minute)
	expect(t, call(t, ts, "GET", "/repos/acme/mono", nil), 200, "")
}

func TestRequestLogAndPrefix(t *testing.T) {
	ts, _ := seeded(t)
	expect(t, call(t, ts, "GET", "/api/v3/repos/acme/mono/git/ref/heads/main", nil), 200, "")
	r := call(t, ts, "GET", "/api/v3/repos/acme/mono/git/ref/heads/main", nil)
	if !strings.Contains(r.str(t, "url"), "/api/v3/repos/acme/mono/git/refs/heads/main") {
		t.Fatalf("url %s", r.str(t, "url"))
	}
	call(t, ts, "POST", "/repos/acme/mono/git/blobs", map[string]any{"content": "abc"})
	reqs := ts.Requests()
	if len(reqs) != 3 || reqs[0].Route != "GET /repos/{owner}/{repo}/git/ref/{ref...}" || reqs[0].Repo != "acme/mono" {
		t.Fatalf("log %+v", reqs)
	}
	if reqs[2].RequestBytes == 0 || reqs[2].ResponseBytes == 0 || reqs[2].Status != 201 {
		t.Fatalf("log bytes %+v", reqs[2])
	}
	if ts.Count("GET /repos/{owner}/{repo}/git/ref/{ref...}") != 2 || ts.CountMethod("POST") != 1 {
		t.Fatal("counts")
	}
	ts.ResetRequests()
	if len(ts.Requests()) != 0 {
		t.Fatal("reset")
	}
}

func TestWithToken(t *testing.T) {
	ts, _ := seeded(t, WithToken("s3cret"))
	r := call(t, ts, "GET", "/repos/acme/mono", nil)
	expect(t, r, 401, "Bad credentials")
	if !bytes.Contains(r.Raw, []byte(`"status":"401"`)) {
		t.Fatalf("body %s", r.Raw)
	}
	expect(t, call(t, ts, "GET", "/repos/acme/mono", nil, "Authorization", "token nope"), 401, "Bad credentials")
	expect(t, call(t, ts, "GET", "/repos/acme/mono", nil, "Authorization", "token s3cret"), 200, "")
	expect(t, call(t, ts, "GET", "/repos/acme/mono", nil, "Authorization", "Bearer s3cret"), 200, "")
	if _, _, err := ts.Client.Repositories.Get(t.Context(), "acme", "mono"); err != nil {
		t.Fatalf("Client with token: %v", err)
	}
}

func TestLatency(t *testing.T) {
	ts, _ := seeded(t, WithLatency(20*time.Millisecond))
	start := time.Now()
	call(t, ts, "GET", "/repos/acme/mono", nil)
	if time.Since(start) < 20*time.Millisecond {
		t.Fatal("latency not applied")
	}
	ts.SetLatency(0)
}
