package ghclient

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v66/github"
)

// elsewhere is another host: it records every request it receives and the
// Authorization headers among them.
type elsewhere struct {
	*httptest.Server
	mu    sync.Mutex
	hits  int
	auths []string
}

func newElsewhere(t *testing.T) *elsewhere {
	e := &elsewhere{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.hits++
		if a := r.Header.Get("Authorization"); a != "" {
			e.auths = append(e.auths, a)
		}
		e.mu.Unlock()
		writeJSON(w, 200, `{"id":34,"app_id":12,"name":"r","ref":"refs/heads/main","object":{"sha":"abc","type":"commit"}}`)
	}))
	t.Cleanup(e.Close)
	return e
}

func (e *elsewhere) seen() (int, []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.hits, append([]string(nil), e.auths...)
}

// redirecting answers GET requests whose path is in moved with status and a
// Location on another host (same path); everything else goes to next.
func redirecting(next http.Handler, status int, to string, moved ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, p := range moved {
			if r.URL.Path == p {
				w.Header().Set("Location", to+r.URL.Path)
				w.WriteHeader(status)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// TestCredentialsNeverLeaveTheAPIHost: an API that redirects to another
// host (a proxy, a misconfigured --api-url) must not get that host a token,
// an App JWT or an installation token, whichever way the redirect is
// followed (http.Client, or go-github's own GetBranch loop that calls the
// transport directly).
func TestCredentialsNeverLeaveTheAPIHost(t *testing.T) {
	ctx := context.Background()
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusMovedPermanently, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Run("token", func(t *testing.T) {
				evil := newElsewhere(t)
				api := redirecting(http.NotFoundHandler(), status, evil.URL, "/repos/o/r/git/ref/heads/main", "/repos/o/r/branches/main")
				gh, _, _ := setup(t, api, WithToken("ghp_secret"))
				_, _, err := gh.Git.GetRef(ctx, "o", "r", "heads/main")
				assertForeign(t, err, evil)
				_, _, err = gh.Repositories.GetBranch(ctx, "o", "r", "main", 3)
				assertNotFollowed(t, err, status, evil)
			})
			t.Run("app jwt", func(t *testing.T) {
				evil := newElsewhere(t)
				a := &appServer{t: t, appID: 12, instID: 34, ttl: 3600e9}
				api := redirecting(a, status, evil.URL, "/repos/o/r/installation")
				srv := newServer(t, api)
				_, err := New(ctx, WithBaseURL(srv.URL), WithHTTPClient(srv.Client()), WithApp(App{ID: 12, PrivateKey: testKeyPEM(t), InstallationID: 0, Owner: "o", Repo: "r"}))
				if err == nil {
					t.Fatal("installation lookup through a foreign redirect succeeded")
				}
				assertForeign(t, err, evil)
			})
			t.Run("installation token", func(t *testing.T) {
				evil := newElsewhere(t)
				a := &appServer{t: t, appID: 12, instID: 34, ttl: 3600e9}
				api := redirecting(a, status, evil.URL, "/repos/o/r", "/repos/o/r/branches/main")
				gh, _, _ := setup(t, api, WithApp(App{ID: 12, PrivateKey: testKeyPEM(t), InstallationID: 34}))
				_, _, err := gh.Repositories.Get(ctx, "o", "r")
				assertForeign(t, err, evil)
				_, _, err = gh.Repositories.GetBranch(ctx, "o", "r", "main", 3)
				assertNotFollowed(t, err, status, evil)
				if issued, _ := a.counts(); issued != 1 {
					t.Fatalf("tokens issued %d, want 1 (the token was used on the API host)", issued)
				}
			})
		})
	}
}

// assertForeign checks that err is a *ForeignHostError that names no
// credential and that evil received nothing with credentials.
func assertForeign(t *testing.T, err error, evil *elsewhere) {
	t.Helper()
	var fe *ForeignHostError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v (%T), want *ForeignHostError", err, err)
	}
	if !strings.Contains(err.Error(), strings.TrimPrefix(evil.URL, "http://")) {
		t.Errorf("error does not name the other host: %v", err)
	}
	for _, s := range []string{"ghp_", "ghs_", "Bearer", "eyJ"} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("error holds a credential: %v", err)
		}
	}
	if _, auths := evil.seen(); len(auths) != 0 {
		t.Fatalf("the other host received credentials: %q", auths)
	}
}

// assertNotFollowed is for go-github's GetBranch, which follows only 301
// itself (through the transport): a 301 must be refused by the transport,
// any other redirect comes back as an error; either way the other host
// sees nothing.
func assertNotFollowed(t *testing.T, err error, status int, evil *elsewhere) {
	t.Helper()
	if status == http.StatusMovedPermanently {
		assertForeign(t, err, evil)
		return
	}
	if err == nil {
		t.Fatal("GetBranch followed a redirect to another host")
	}
	if hits, _ := evil.seen(); hits != 0 {
		t.Fatalf("the other host got %d requests", hits)
	}
}

// TestWrapNeverFollowsAForeignRedirect: a wrapped client whose own
// transport adds the token (as oauth2.Transport and go-github's
// WithAuthToken do, on every hop) never sends a request elsewhere.
func TestWrapNeverFollowsAForeignRedirect(t *testing.T) {
	evil := newElsewhere(t)
	api := redirecting(http.NotFoundHandler(), http.StatusTemporaryRedirect, evil.URL, "/repos/o/r/git/ref/heads/main", "/repos/o/r/branches/main")
	srv := newServer(t, api)
	base := srv.Client().Transport
	authed := &http.Client{Transport: roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer ghp_users_own")
		return base.RoundTrip(r)
	})}
	hc, err := Wrap(authed, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	gh := github.NewClient(hc)
	gh.BaseURL = mustURL(t, srv.URL+"/")
	_, _, err = gh.Git.GetRef(context.Background(), "o", "r", "heads/main")
	assertForeign(t, err, evil)
	_, _, err = gh.Repositories.GetBranch(context.Background(), "o", "r", "main", 3)
	assertNotFollowed(t, err, http.StatusTemporaryRedirect, evil)
	if hits, _ := evil.seen(); hits != 0 {
		t.Fatalf("the other host got %d requests", hits)
	}
	// A request addressed elsewhere in the first place is refused too.
	if _, err := hc.Get(evil.URL + "/x"); !errors.As(err, new(*ForeignHostError)) {
		t.Fatalf("err = %v", err)
	}
}

// movedRepo serves o/r under its new name o/renamed and answers the old
// name's paths with status, as GitHub does for a renamed or transferred
// repository. Bodies of PATCHes that arrive are recorded.
type movedRepo struct {
	status int
	c      counter
	mu     sync.Mutex
	bodies []string
}

func (m *movedRepo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.c.add(r)
	if rest, ok := strings.CutPrefix(r.URL.Path, "/repos/o/r/"); ok {
		w.Header().Set("Location", "http://"+r.Host+"/repos/o/renamed/"+rest)
		writeJSON(w, m.status, `{"message":"Moved Permanently","url":"x"}`)
		return
	}
	b, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	m.bodies = append(m.bodies, r.Method+" "+string(b))
	m.mu.Unlock()
	writeJSON(w, 200, `{"ref":"refs/heads/main","object":{"sha":"abc","type":"commit"}}`)
}

func TestSameHostRedirects(t *testing.T) {
	ctx := context.Background()
	update := func(gh *github.Client) error {
		_, _, err := gh.Git.UpdateRef(ctx, "o", "r", &github.Reference{Ref: github.String("heads/main"), Object: &github.GitObject{SHA: github.String("abc")}}, false)
		return err
	}
	t.Run("GET follows 301", func(t *testing.T) {
		m := &movedRepo{status: http.StatusMovedPermanently}
		gh, _, _ := setup(t, m, WithToken("t"))
		ref, _, err := gh.Git.GetRef(ctx, "o", "r", "heads/main")
		if err != nil || ref.GetObject().GetSHA() != "abc" {
			t.Fatalf("ref %v err %v", ref, err)
		}
		if m.c.get("GET /repos/o/renamed/git/ref/heads/main") != 1 {
			t.Fatal("redirect not followed")
		}
	})
	t.Run("PATCH follows 307 with its body", func(t *testing.T) {
		for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
			m := &movedRepo{status: status}
			gh, _, _ := setup(t, m, WithToken("t"))
			if err := update(gh); err != nil {
				t.Fatal(err)
			}
			if len(m.bodies) != 1 || !strings.HasPrefix(m.bodies[0], "PATCH ") || !strings.Contains(m.bodies[0], `"sha":"abc"`) {
				t.Fatalf("%d: renamed repository got %q", status, m.bodies)
			}
		}
	})
	t.Run("PATCH never turned into a GET by 301", func(t *testing.T) {
		m := &movedRepo{status: http.StatusMovedPermanently}
		gh, _, _ := setup(t, m, WithToken("t"))
		if err := update(gh); err == nil {
			t.Fatal("a 301 to a PATCH counted as success")
		}
		if len(m.bodies) != 0 {
			t.Fatalf("followed: %q", m.bodies)
		}
	})
	t.Run("NoRedirect returns the 3xx", func(t *testing.T) {
		m := &movedRepo{status: http.StatusMovedPermanently}
		srv := newServer(t, m)
		hc, err := NewHTTPClient(ctx, WithBaseURL(srv.URL), WithHTTPClient(srv.Client()), WithToken("t"))
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequestWithContext(NoRedirect(ctx), "GET", srv.URL+"/repos/o/r/branches/old", nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMovedPermanently || m.c.get("GET /repos/o/renamed/branches/old") != 0 {
			t.Fatalf("status %d, followed %d", resp.StatusCode, m.c.get("GET /repos/o/renamed/branches/old"))
		}
	})
}
