package githubtest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

func signJWT(t *testing.T, key *rsa.PrivateKey, appID int64, now time.Time) string {
	t.Helper()
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	head := enc(map[string]string{"alg": "RS256", "typ": "JWT"})
	claims := enc(map[string]any{"iss": strconv.FormatInt(appID, 10), "iat": now.Add(-time.Minute).Unix(), "exp": now.Add(9 * time.Minute).Unix()})
	sum := sha256.Sum256([]byte(head + "." + claims))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return head + "." + claims + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func TestAppInstallationTokenFlow(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return now }
	ts, head := seeded(t, WithToken("pat"), WithNow(clock), WithInstallationTokenTTL(time.Hour))
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	ts.RegisterApp(42, &key.PublicKey)
	ts.InstallApp(42, 777, "acme", "mono")

	jwt := signJWT(t, key, 42, now)
	r := call(t, ts, "GET", "/repos/acme/mono/installation", nil, "Authorization", "Bearer "+jwt)
	expect(t, r, 200, "")
	if r.obj(t)["id"].(float64) != 777 {
		t.Fatalf("installation %s", r.Raw)
	}
	bad := signJWT(t, other, 42, now)
	expect(t, call(t, ts, "POST", "/app/installations/777/access_tokens", nil, "Authorization", "Bearer "+bad), 401, "")
	r = call(t, ts, "POST", "/app/installations/777/access_tokens", nil, "Authorization", "Bearer "+jwt)
	expect(t, r, 201, "")
	tok := r.str(t, "token")
	if tok == "" || r.str(t, "expires_at") != now.Add(time.Hour).UTC().Format(time.RFC3339) {
		t.Fatalf("token reply %s", r.Raw)
	}
	if ts.TokensIssued(777) != 1 {
		t.Fatal("TokensIssued")
	}
	// The installation token works, and bot commits are verified.
	c, _ := ts.Commit("acme", "mono", head)
	r = call(t, ts, "POST", "/repos/acme/mono/git/commits", map[string]any{"message": "bot", "tree": c.Tree, "parents": []string{head}},
		"Authorization", "token "+tok)
	expect(t, r, 201, "")
	v := r.obj(t)["verification"].(map[string]any)
	if v["verified"] != true || v["reason"] != "valid" {
		t.Fatalf("verification %v", v)
	}
	r = call(t, ts, "POST", "/repos/acme/mono/git/commits", map[string]any{"message": "bot", "tree": c.Tree,
		"author": map[string]any{"name": "a", "email": "a@x", "date": "2024-01-01T00:00:00Z"}}, "Authorization", "token "+tok)
	if v := r.obj(t)["verification"].(map[string]any); v["verified"] != false || v["reason"] != "unsigned" {
		t.Fatalf("custom author verification %v", v)
	}
	// Expired token -> 401; a JWT whose exp is past -> 401.
	now = now.Add(2 * time.Hour)
	expect(t, call(t, ts, "GET", "/repos/acme/mono", nil, "Authorization", "token "+tok), 401, "Bad credentials")
	expect(t, call(t, ts, "POST", "/app/installations/777/access_tokens", nil, "Authorization", "Bearer "+jwt), 401, "")
	expect(t, call(t, ts, "POST", "/app/installations/999/access_tokens", nil,
		"Authorization", "Bearer "+signJWT(t, key, 42, now)), 404, "")
}
