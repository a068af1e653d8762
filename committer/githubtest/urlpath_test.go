package githubtest

import (
	"net/url"
	"strings"
	"testing"
)

// TestRouteNamesDecoded: the fake reads a name from the path as it was
// sent, decoding each escape once, as GitHub does: a file path of the
// contents API, a branch of branches/{b} and a ref of git/ref/{ref} and
// git/refs/{ref}; the request log keeps the path as sent.
func TestRouteNamesDecoded(t *testing.T) {
	for _, tc := range []struct{ sent, name string }{
		{"C%23.md", "C#.md"},
		{"a%3Fb", "a?b"},
		{"%2541", "%41"},
		{"%41", "A"},
		{"a+b", "a+b"}, // "+" is a space only in a query
		{"a%2Bb", "a+b"},
		{"a%20b", "a b"},
		{"%E2%82%AC", "€"},
		{"line%0Abreak", "line\nbreak"},
		{"a%3Bb", "a;b"},
		{"d/e%2Ff", "d/e/f"}, // an escaped slash is a slash, in a ref (heads%2Fmain) and a path
		{"%25", "%"},
	} {
		t.Run(tc.sent, func(t *testing.T) {
			ts, _ := seeded(t)
			ts.ResetRequests()
			r := call(t, ts, "PUT", "/repos/acme/mono/contents/n/"+tc.sent, putBody("x\n", ""))
			expect(t, r, 201, "")
			if got := r.str(t, "content", "path"); got != "n/"+tc.name {
				t.Errorf("content.path = %q, want %q", got, "n/"+tc.name)
			}
			if data, _, err := ts.ReadFile("acme", "mono", "main", "n/"+tc.name); err != nil || string(data) != "x\n" {
				t.Errorf("n/%q: %q, %v", tc.name, data, err)
			}
			// The reply's URLs name the file escaped: they read back as its name.
			if u, err := url.Parse(r.str(t, "content", "url")); err != nil || !strings.HasSuffix(u.Path, "/contents/n/"+tc.name) || u.Query().Get("ref") != "main" {
				t.Errorf("content.url = %q (%v)", r.str(t, "content", "url"), err)
			}
			if log := ts.Requests(); len(log) != 1 || log[0].RawPath != "/repos/acme/mono/contents/n/"+tc.sent || log[0].Path != "/repos/acme/mono/contents/n/"+tc.name {
				t.Errorf("request log %+v", log)
			}
			if strings.Contains(tc.name, "\n") || strings.Contains(tc.name, " ") {
				return // git refuses it in a branch name
			}
			if _, err := ts.Seed("acme", "mono", "b/"+tc.name, "branch", File{Path: "f", Content: []byte("f")}); err != nil {
				t.Fatal(err)
			}
			r = call(t, ts, "GET", "/repos/acme/mono/branches/b/"+tc.sent, nil)
			expect(t, r, 200, "")
			if got := r.str(t, "name"); got != "b/"+tc.name {
				t.Errorf("branch name %q, want %q", got, "b/"+tc.name)
			}
			if u, err := url.Parse(r.str(t, "_links", "self")); err != nil || !strings.HasSuffix(u.Path, "/branches/b/"+tc.name) {
				t.Errorf("_links.self = %q (%v)", r.str(t, "_links", "self"), err)
			}
			for _, p := range []string{"/git/ref/heads/b/" + tc.sent, "/git/refs/heads/b/" + tc.sent} {
				r = call(t, ts, "GET", "/repos/acme/mono"+p, nil)
				expect(t, r, 200, "")
				if got := r.str(t, "ref"); got != "refs/heads/b/"+tc.name {
					t.Errorf("GET %s: ref %q", p, got)
				}
				if u, err := url.Parse(r.str(t, "url")); err != nil || !strings.HasSuffix(u.Path, "/git/refs/heads/b/"+tc.name) {
					t.Errorf("GET %s: url %q (%v)", p, r.str(t, "url"), err)
				}
			}
		})
	}
}
