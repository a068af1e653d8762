package githubtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// reply is a decoded HTTP reply.
type reply struct {
	Status int
	Header http.Header
	Raw    []byte
	JSON   any
}

func (r reply) obj(t testing.TB) map[string]any {
	t.Helper()
	m, ok := r.JSON.(map[string]any)
	if !ok {
		t.Fatalf("reply is not an object: %s", r.Raw)
	}
	return m
}

func (r reply) str(t testing.TB, path ...string) string {
	t.Helper()
	cur := any(r.JSON)
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("no %v in %s", path, r.Raw)
		}
		cur = m[p]
	}
	s, _ := cur.(string)
	return s
}

// call sends a request with an optional JSON body (a string is sent as is).
func call(t testing.TB, ts *TestServer, method, path string, body any, hdr ...string) reply {
	t.Helper()
	return callWith(t, http.DefaultClient, ts, method, path, body, hdr...)
}

// callWith is call with an HTTP client.
func callWith(t testing.TB, client *http.Client, ts *TestServer, method, path string, body any, hdr ...string) reply {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, strings.TrimSuffix(ts.URL, "/")+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", "githubtest-test")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := reply{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if len(raw) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &out.JSON); err != nil {
			t.Fatalf("%s %s: bad JSON %q: %v", method, path, raw, err)
		}
	}
	return out
}

func expect(t testing.TB, r reply, status int, msgContains string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	if msgContains != "" {
		if m := r.str(t, "message"); !strings.Contains(m, msgContains) {
			t.Fatalf("message %q, want it to contain %q", m, msgContains)
		}
	}
}

// seeded returns a test server with acme/mono seeded on main.
func seeded(t testing.TB, opts ...Option) (*TestServer, string) {
	t.Helper()
	ts := NewServer(t, opts...)
	head, err := ts.Seed("acme", "mono", "main", "seed",
		File{Path: "README.md", Content: []byte("hello\n")},
		File{Path: "dir/a.txt", Content: []byte("a\n")},
		File{Path: "dir/sub/b.txt", Content: []byte("b\n")},
		File{Path: "bin/run", Content: []byte("#!/bin/sh\n"), Mode: "100755"},
		File{Path: "link", Content: []byte("README.md"), Mode: "120000"},
	)
	if err != nil {
		t.Fatal(err)
	}
	return ts, head
}
