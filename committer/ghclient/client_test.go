package ghclient

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v66/github"
)

func TestResolveBaseURL(t *testing.T) {
	for _, tc := range []struct{ in, base, upload string }{
		{"https://api.github.com/", "https://api.github.com/", "https://uploads.github.com/"},
		{"https://api.github.com", "https://api.github.com/", "https://uploads.github.com/"},
		{"https://ghe.example.com/", "https://ghe.example.com/api/v3/", "https://ghe.example.com/api/uploads/"},
		{"https://ghe.example.com", "https://ghe.example.com/api/v3/", "https://ghe.example.com/api/uploads/"},
		{"https://ghe.example.com/api/v3/", "https://ghe.example.com/api/v3/", "https://ghe.example.com/api/uploads/"},
		{"https://ghe.example.com/api/v3", "https://ghe.example.com/api/v3/", "https://ghe.example.com/api/uploads/"},
		{"https://api.acme.ghe.com/", "https://api.acme.ghe.com/", "https://api.acme.ghe.com/"},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080/", "http://127.0.0.1:8080/"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080/", "http://127.0.0.1:8080/"},
		{"http://127.0.0.1:8080/api/v3/", "http://127.0.0.1:8080/api/v3/", "http://127.0.0.1:8080/api/v3/"},
		{"http://localhost:9/", "http://localhost:9/", "http://localhost:9/"},
		{"http://[::1]:9/", "http://[::1]:9/", "http://[::1]:9/"},
	} {
		base, upload, err := resolveBaseURL(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if base.String() != tc.base || upload.String() != tc.upload {
			t.Errorf("%s: got %s %s, want %s %s", tc.in, base, upload, tc.base, tc.upload)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"empty token", []Option{WithToken(" ")}},
		{"token with newline", []Option{WithToken("a\nb")}},
		{"token and app", []Option{WithToken("t"), WithApp(App{ID: 1, PrivateKey: testKeyPEM(t), InstallationID: 2})}},
		{"app id", []Option{WithApp(App{ID: 0, PrivateKey: testKeyPEM(t), InstallationID: 2})}},
		{"bad key", []Option{WithApp(App{ID: 1, PrivateKey: []byte("not a key"), InstallationID: 2})}},
		{"negative installation", []Option{WithApp(App{ID: 1, PrivateKey: testKeyPEM(t), InstallationID: -1})}},
		{"lookup without repository", []Option{WithApp(App{ID: 1, PrivateKey: testKeyPEM(t), InstallationID: 0})}},
		{"missing key file", []Option{WithApp(App{ID: 1, KeyFile: "/nonexistent/key.pem", InstallationID: 2})}},
		{"key and key file", []Option{WithApp(App{ID: 1, PrivateKey: testKeyPEM(t), KeyFile: "/nonexistent/key.pem", InstallationID: 2})}},
		{"owner", []Option{WithApp(App{ID: 1, PrivateKey: testKeyPEM(t), Owner: "", Repo: "r"})}},
		{"repo slash", []Option{WithApp(App{ID: 1, PrivateKey: testKeyPEM(t), Owner: "o", Repo: "r/x"})}},
		{"scheme", []Option{WithBaseURL("ftp://x/")}},
		{"no host", []Option{WithBaseURL("https:///api/v3")}},
		{"query", []Option{WithBaseURL("https://ghe.example.com/?token=x")}},
		{"credentials", []Option{WithBaseURL("https://u:p@ghe.example.com/")}},
		{"user agent", []Option{WithHeader("User-Agent", "")}},
		{"user agent newline", []Option{WithHeader("User-Agent", "a\r\nX-Evil: 1")}},
		{"logger", []Option{WithLogger(nil)}},
		{"retries", []Option{WithMaxRetries(-1)}},
		{"pacing", []Option{WithRateLimits(RateLimits{Pacing: &Pacing{PerMinute: -1}})}},
		{"state dir and process state", []Option{WithRateLimits(RateLimits{StateDir: "/tmp/x", ProcessState: true})}},
		{"graphql url", []Option{WithGraphQLURL("graphql")}},
		{"concurrency", []Option{WithConcurrency(0)}},
		{"http client", []Option{WithHTTPClient(nil)}},
		{"sleep", []Option{withSleep(nil)}},
		{"now", []Option{withNow(nil)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New(ctx, tc.opts...); err == nil {
				t.Fatal("New accepted bad options")
			} else if !strings.HasPrefix(err.Error(), "ghclient: ") {
				t.Fatalf("error lacks context: %v", err)
			}
		})
	}
	gh, err := New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if gh.BaseURL.String() != "https://api.github.com/" {
		t.Fatalf("default base URL %s", gh.BaseURL)
	}
}

func TestUserAgent(t *testing.T) {
	var mu sync.Mutex
	var got []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.UserAgent())
		mu.Unlock()
		writeJSON(w, 200, `{}`)
	})
	old := Version
	Version = "1.2.3"
	defer func() { Version = old }()
	gh, _, _ := setup(t, h)
	if _, _, err := gh.Repositories.Get(context.Background(), "o", "r"); err != nil {
		t.Fatal(err)
	}
	gh2, _, _ := setup(t, h, WithHeader("User-Agent", "deploybot/7"))
	if _, _, err := gh2.Repositories.Get(context.Background(), "o", "r"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "ghcommitter/1.2.3" || got[1] != "deploybot/7" {
		t.Fatalf("user agents %q", got)
	}
}

func TestTokenAuth(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer ghp_test" {
			writeJSON(w, 401, `{"message":"Bad credentials"}`)
			return
		}
		writeJSON(w, 200, `{"name":"r"}`)
	})
	gh, _, _ := setup(t, h, WithToken("ghp_test"))
	if _, _, err := gh.Repositories.Get(context.Background(), "o", "r"); err != nil {
		t.Fatal(err)
	}
	gh2, _, _ := setup(t, h, WithToken("wrong"))
	_, _, err := gh2.Repositories.Get(context.Background(), "o", "r")
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 401 {
		t.Fatalf("err = %v", err)
	}
}

// TestEnterpriseURLs sends requests to "https"-less GHES-style hosts that
// all dial the test server, and checks the paths that arrive.
func TestEnterpriseURLs(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Host+r.URL.Path)
		mu.Unlock()
		writeJSON(w, 200, `{"name":"r"}`)
	})
	srv := newServer(t, h)
	addr := srv.Listener.Addr().String()
	dialAll := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
	}}
	for _, tc := range []struct{ base, want string }{
		{"http://ghe.example.com/", "ghe.example.com/api/v3/repos/o/r"},
		{"http://ghe.example.com/api/v3/", "ghe.example.com/api/v3/repos/o/r"},
		{srv.URL + "/", addr + "/repos/o/r"},
		{srv.URL + "/api/v3/", addr + "/api/v3/repos/o/r"},
	} {
		gh, err := New(context.Background(), WithBaseURL(tc.base), WithHTTPClient(dialAll), WithToken("t"))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := gh.Repositories.Get(context.Background(), "o", "r"); err != nil {
			t.Fatalf("%s: %v", tc.base, err)
		}
		mu.Lock()
		got := paths[len(paths)-1]
		mu.Unlock()
		if got != tc.want {
			t.Errorf("%s: request went to %s, want %s", tc.base, got, tc.want)
		}
	}
}

// TestRetriesAndLimitUnderAPIPrefix checks that route matching works below
// a GHES /api/v3/ prefix: trees POSTs are retried, ref PATCHes are not.
func TestRetriesAndLimitUnderAPIPrefix(t *testing.T) {
	var c counter
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.add(r)
		writeJSON(w, 502, `{}`)
	})
	srv := newServer(t, h)
	clock := newFakeClock()
	gh, err := New(context.Background(), WithBaseURL(srv.URL+"/api/v3/"), WithHTTPClient(srv.Client()), withSleep(clock.Sleep), WithMaxRetries(2))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, _, _ = gh.Git.CreateTree(ctx, "o", "r", "", []*github.TreeEntry{{Path: github.String("a"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("x")}})
	_, _, _ = gh.Git.UpdateRef(ctx, "o", "r", &github.Reference{Ref: github.String("heads/main"), Object: &github.GitObject{SHA: github.String("abc")}}, false)
	if n := c.get("POST /api/v3/repos/o/r/git/trees"); n != 3 {
		t.Errorf("trees sent %d times, want 3", n)
	}
	if n := c.get("PATCH /api/v3/repos/o/r/git/refs/heads/main"); n != 1 {
		t.Errorf("ref update sent %d times, want 1", n)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent log writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Split(strings.TrimSpace(s.b.String()), "\n")
}

func TestLogsNeverContainToken(t *testing.T) {
	const token = "ghp_S3cr3tT0k3nV4lu3"
	var c counter
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := c.add(r)
		switch {
		case r.Header.Get("Authorization") != "Bearer "+token:
			writeJSON(w, 401, `{"message":"Bad credentials"}`)
		case strings.HasSuffix(r.URL.Path, "/trees") && n == 1:
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 403, secondaryBody)
		case strings.HasSuffix(r.URL.Path, "/trees"):
			writeJSON(w, 201, `{"sha":"abc"}`)
		case r.Method == http.MethodPatch:
			writeJSON(w, 422, `{"message":"Update is not a fast forward"}`)
		default:
			writeJSON(w, 502, `{"message":"Server Error"}`)
		}
	})
	var buf syncBuffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	gh, _, _ := setup(t, h, WithToken(token), WithLogger(logger))
	ctx := context.Background()
	var errs []error
	_, _, err := gh.Git.CreateTree(ctx, "o", "r", "", []*github.TreeEntry{{Path: github.String("a"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("x")}})
	errs = append(errs, err)
	_, _, err = gh.Git.GetRef(ctx, "o", "r", "heads/main")
	errs = append(errs, err)
	_, _, err = gh.Git.UpdateRef(ctx, "o", "r", &github.Reference{Ref: github.String("heads/main"), Object: &github.GitObject{SHA: github.String("abc")}}, false)
	errs = append(errs, err)
	_, err = gh.Client().Get("http://127.0.0.1:1/repos/o/r?access_token=" + token) // connection refused
	errs = append(errs, err)

	lines := buf.Lines()
	if len(lines) < 5 {
		t.Fatalf("too few log lines: %q", lines)
	}
	for _, l := range lines {
		if strings.Contains(l, token) || strings.Contains(strings.ToLower(l), "authorization") || strings.Contains(l, "Bearer") {
			t.Errorf("log line leaks credentials: %s", l)
		}
	}
	for _, want := range []string{"method=POST", "route=/repos/o/r/git/trees", "status=403", "attempt=1", "wait=1s", "status=201", "status=422"} {
		if !strings.Contains(strings.Join(lines, "\n"), want) {
			t.Errorf("logs lack %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	for _, err := range errs[:3] {
		if err != nil && strings.Contains(err.Error(), token) {
			t.Errorf("error leaks token: %v", err)
		}
	}
}

func TestAppKeyFormats(t *testing.T) {
	pkcs8, err := x509.MarshalPKCS8PrivateKey(testKey())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(context.Background(), WithApp(App{ID: 1, PrivateKey: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), InstallationID: 2})); err != nil {
		t.Fatalf("PKCS#8 key rejected: %v", err)
	}
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecDER, _ := x509.MarshalPKCS8PrivateKey(ec)
	_, err = New(context.Background(), WithApp(App{ID: 1, PrivateKey: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ecDER}), InstallationID: 2}))
	if err == nil || !strings.Contains(err.Error(), "RSA") {
		t.Fatalf("EC key: err = %v", err)
	}
}
