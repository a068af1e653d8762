package cli

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"
)

// TestLimitScaleEnv: GHCOMMITTER_LIMIT_SCALE is read, and a bad value is a
// usage error before any request.
func TestLimitScaleEnv(t *testing.T) {
	for _, bad := range []string{"abc", "0", "-1", "NaN", "1e9", "Inf"} {
		srv := fake(t)
		c := newCLI(t)
		c.env[commitcmd.LimitScaleEnv] = bad
		c.stdin = "x\n"
		r := c.run(commitArgs(srv, "-m", "m", "--add", "a.txt=-")...)
		r.wantCode(t, cmdutil.ExitUsage)
		if !strings.Contains(r.stderr, commitcmd.LimitScaleEnv) || len(srv.Requests()) != 0 {
			t.Errorf("%s=%s: stderr %q, %d requests", commitcmd.LimitScaleEnv, bad, r.stderr, len(srv.Requests()))
		}
	}
	srv := fake(t)
	c := newCLI(t)
	c.env[commitcmd.LimitScaleEnv] = "1000"
	c.stdin = "x\n"
	c.run(commitArgs(srv, "-m", "m", "--add", "a.txt=-")...).wantCode(t, cmdutil.ExitOK)
}

// TestCredentialsStayOnTheAPIHost: an --api-url that redirects to another
// host (a proxy, a GHES front) never gets that host a token, an App JWT or
// an installation token.
func TestCredentialsStayOnTheAPIHost(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if a := r.Header.Get("Authorization"); a != "" {
			leaked = append(leaked, r.Method+" "+r.URL.Path)
		}
		mu.Unlock()
		w.WriteHeader(http.StatusNotFound)
	}))
	defer evil.Close()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	writeFile(t, keyFile, string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})), 0o600)
	for _, tc := range []struct {
		name    string
		args    []string
		noToken bool
		moved   string // path prefix redirected
	}{
		{"token", nil, false, "/repos/"},
		{"app jwt", []string{"--app-id", "42", "--app-key-file", keyFile}, true, "/repos/acme/mono/installation"},
		{"installation token", []string{"--app-id", "42", "--app-key-file", keyFile, "--installation-id", "4242"}, true, "/repos/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			leaked = nil
			mu.Unlock()
			srv := fake(t)
			srv.RegisterApp(42, &key.PublicKey)
			srv.InstallApp(42, 4242, "acme", "mono")
			proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, tc.moved) {
					http.Redirect(w, r, evil.URL+r.URL.Path, http.StatusTemporaryRedirect)
					return
				}
				srv.ServeHTTP(w, r)
			}))
			defer proxy.Close()
			c := newCLI(t)
			if tc.noToken {
				delete(c.env, "GH_TOKEN")
			}
			args := append([]string{"commit", "--api-url", proxy.URL + "/", "-R", "acme/mono", "-m", "m", "--edit", "a.txt=echo a"}, tc.args...)
			r := c.run(args...)
			if r.code == cmdutil.ExitOK {
				t.Fatalf("commit through a foreign redirect succeeded: %s", r.stdout)
			}
			if !strings.Contains(r.stderr, "another host") {
				t.Errorf("stderr does not say why: %q", r.stderr)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(leaked) != 0 {
				t.Fatalf("the other host received credentials with %q", leaked)
			}
		})
	}
}

// TestFakeClientEnv: GHCOMMITTER_FAKE_CLIENT names the process to the fake
// on every request.
func TestFakeClientEnv(t *testing.T) {
	srv := fake(t)
	var mu sync.Mutex
	seen := map[string]int{}
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get("X-Githubtest-Client")]++
		mu.Unlock()
		srv.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	c := newCLI(t)
	c.env[commitcmd.FakeClientEnv] = "writer-3"
	c.run("commit", "--api-url", proxy.URL+"/", "-R", "acme/mono", "-m", "m", "--edit", "a.txt=echo a").wantCode(t, cmdutil.ExitOK)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen["writer-3"] == 0 {
		t.Fatalf("X-Githubtest-Client values seen: %v", seen)
	}
}
