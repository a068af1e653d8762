package ghclient

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var testKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

func testKeyPEM(_ testing.TB) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(testKey())})
}

// appServer is a tiny GitHub App backend: it checks JWTs, issues
// installation tokens with a given TTL and accepts only live tokens.
type appServer struct {
	t              *testing.T
	appID, instID  int64
	ttl            time.Duration
	failTokenTimes int // first token requests answer 502

	mu     sync.Mutex
	issued int
	tokens map[string]time.Time
	calls  int
}

func (a *appServer) checkJWT(r *http.Request) bool {
	jwt, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return false
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(&testKey().PublicKey, crypto.SHA256, sum[:], sig) != nil {
		return false
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		Iss string `json:"iss"`
	}
	_ = json.Unmarshal(payload, &claims)
	return claims.Iss == fmt.Sprint(a.appID)
}

func (a *appServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case r.Method == "POST" && r.URL.Path == fmt.Sprintf("/app/installations/%d/access_tokens", a.instID):
		if !a.checkJWT(r) {
			writeJSON(w, 401, `{"message":"A JSON web token could not be decoded"}`)
			return
		}
		if a.failTokenTimes > 0 {
			a.failTokenTimes--
			writeJSON(w, 502, `{"message":"Server Error"}`)
			return
		}
		a.issued++
		tok := fmt.Sprintf("ghs_installationtoken%04d", a.issued)
		if a.tokens == nil {
			a.tokens = map[string]time.Time{}
		}
		exp := time.Now().Add(a.ttl)
		a.tokens[tok] = exp
		writeJSON(w, 201, fmt.Sprintf(`{"token":%q,"expires_at":%q}`, tok, exp.UTC().Format(time.RFC3339)))
	case r.Method == "GET" && r.URL.Path == "/repos/o/r/installation":
		if !a.checkJWT(r) {
			writeJSON(w, 401, `{"message":"A JSON web token could not be decoded"}`)
			return
		}
		writeJSON(w, 200, fmt.Sprintf(`{"id":%d,"app_id":%d}`, a.instID, a.appID))
	case r.Method == "GET" && r.URL.Path == "/repos/o/other/installation":
		writeJSON(w, 404, `{"message":"Not Found"}`)
	default:
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "token ")
		if exp, ok := a.tokens[tok]; !ok || time.Now().After(exp) {
			writeJSON(w, 401, `{"message":"Bad credentials"}`)
			return
		}
		a.calls++
		writeJSON(w, 200, `{"name":"r"}`)
	}
}

func (a *appServer) counts() (issued, calls int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.issued, a.calls
}

func TestAppAuthRefreshesTokens(t *testing.T) {
	// ghinstallation refreshes a token a minute before it expires, so a
	// 30s TTL makes every request fetch a new one.
	a := &appServer{t: t, appID: 12, instID: 34, ttl: 30 * time.Second}
	gh, _, _ := setup(t, a, WithApp(App{ID: 12, PrivateKey: testKeyPEM(t), InstallationID: 34}))
	for i := 0; i < 3; i++ {
		if _, _, err := gh.Repositories.Get(context.Background(), "o", "r"); err != nil {
			t.Fatal(err)
		}
	}
	if issued, calls := a.counts(); issued != 3 || calls != 3 {
		t.Fatalf("issued %d tokens for %d calls, want 3 for 3", issued, calls)
	}
}

func TestAppAuthReusesLiveToken(t *testing.T) {
	a := &appServer{t: t, appID: 12, instID: 34, ttl: time.Hour}
	gh, _, _ := setup(t, a, WithApp(App{ID: 12, PrivateKey: testKeyPEM(t), InstallationID: 34}))
	for i := 0; i < 3; i++ {
		if _, _, err := gh.Repositories.Get(context.Background(), "o", "r"); err != nil {
			t.Fatal(err)
		}
	}
	if issued, calls := a.counts(); issued != 1 || calls != 3 {
		t.Fatalf("issued %d tokens for %d calls, want 1 for 3", issued, calls)
	}
}

func TestAppInstallationLookup(t *testing.T) {
	a := &appServer{t: t, appID: 12, instID: 99, ttl: time.Hour}
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "app.pem")
	if err := os.WriteFile(keyFile, testKeyPEM(t), 0o600); err != nil {
		t.Fatal(err)
	}
	gh, _, _ := setup(t, a, WithApp(App{ID: 12, KeyFile: keyFile, Owner: "o", Repo: "r"}))
	if _, _, err := gh.Repositories.Get(context.Background(), "o", "r"); err != nil {
		t.Fatal(err)
	}
	if issued, _ := a.counts(); issued != 1 {
		t.Fatalf("issued %d", issued)
	}

	srv := newServer(t, a)
	_, err := New(context.Background(), WithBaseURL(srv.URL), WithHTTPClient(srv.Client()),
		WithApp(App{ID: 12, PrivateKey: testKeyPEM(t), InstallationID: 0, Owner: "o", Repo: "other"}))
	if err == nil || !strings.Contains(err.Error(), "o/other") || !strings.Contains(err.Error(), "installed") {
		t.Fatalf("err = %v, want a lookup failure naming o/other", err)
	}
}

func TestAppTokenRequestRetried(t *testing.T) {
	a := &appServer{t: t, appID: 12, instID: 34, ttl: time.Hour, failTokenTimes: 2}
	var buf syncBuffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	gh, clock, _ := setup(t, a, WithApp(App{ID: 12, PrivateKey: testKeyPEM(t), InstallationID: 34}), WithLogger(logger))
	if _, _, err := gh.Repositories.Get(context.Background(), "o", "r"); err != nil {
		t.Fatal(err)
	}
	if issued, calls := a.counts(); issued != 1 || calls != 1 {
		t.Fatalf("issued %d calls %d", issued, calls)
	}
	if len(clock.Sleeps()) != 2 {
		t.Fatalf("sleeps %v", clock.Sleeps())
	}
	for _, l := range buf.Lines() {
		if strings.Contains(l, "ghs_") || strings.Contains(l, "Bearer") || strings.Contains(l, "eyJ") {
			t.Errorf("log leaks a credential: %s", l)
		}
	}
}

func TestAppTokenFailureIsReported(t *testing.T) {
	a := &appServer{t: t, appID: 12, instID: 34, ttl: time.Hour, failTokenTimes: 100}
	gh, _, _ := setup(t, a, WithApp(App{ID: 12, PrivateKey: testKeyPEM(t), InstallationID: 34}), WithMaxRetries(1))
	_, _, err := gh.Repositories.Get(context.Background(), "o", "r")
	if err == nil || !strings.Contains(err.Error(), "installation 34") {
		t.Fatalf("err = %v", err)
	}
	var rle *RateLimitError
	if errors.As(err, &rle) {
		t.Fatal("not a rate limit")
	}
}
