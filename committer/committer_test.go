package committer_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
)

// recordURL is a transport that records the URL of each request and fails
// it, without any network.
type recordURL struct{ urls []string }

func (r *recordURL) RoundTrip(req *http.Request) (*http.Response, error) {
	r.urls = append(r.urls, req.URL.String())
	return nil, errors.New("no network in this test")
}

func TestNewBaseURL(t *testing.T) {
	for _, tc := range []struct{ base, want string }{
		{"", "https://api.github.com/repos/acme/mono"},
		{"https://api.github.com", "https://api.github.com/repos/acme/mono"},
		{"https://ghe.example.com", "https://ghe.example.com/api/v3/repos/acme/mono"},
		{"https://ghe.example.com/api/v3/", "https://ghe.example.com/api/v3/repos/acme/mono"},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080/repos/acme/mono"},
	} {
		rec := &recordURL{}
		hc := &http.Client{Transport: rec}
		if tc.base != "" {
			var err error
			if hc, err = ghclient.Wrap(hc, tc.base); err != nil {
				t.Fatalf("%s: %v", tc.base, err)
			}
		}
		c, err := committer.New(owner, repo, committer.WithHTTPClient(hc))
		if err != nil {
			t.Fatalf("%s: %v", tc.base, err)
		}
		_, _ = c.DefaultBranch(ghclient.WithoutRetries(context.Background()))
		if len(rec.urls) == 0 || rec.urls[0] != tc.want {
			t.Errorf("base %q: requested %v, want %s", tc.base, rec.urls, tc.want)
		}
	}
	for _, bad := range []string{"ftp://x/", "https://user:pw@x/", "https://x/?q=1", "not a url"} {
		if _, err := ghclient.Wrap(&http.Client{}, bad); err == nil {
			t.Errorf("base URL %q accepted", bad)
		}
	}
}

func TestDefaultBranch(t *testing.T) {
	_, c := setup(t)
	b, err := c.DefaultBranch(context.Background())
	if err != nil || b != "main" {
		t.Fatalf("DefaultBranch = %q, %v", b, err)
	}
}
