package ghclient

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"strings"
	"testing"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"golang.org/x/oauth2"
)

// TestWrapReadsTheCallersCredential (issue 42.1): Wrap names the
// credential of the auth transports callers use as NewHTTPClient names its
// own, so that clients built one per caller are one credential; any other
// transport is one of its own unless WithCredential names it.
func TestWrapReadsTheCallersCredential(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	cred := func(hc *http.Client, opts ...Option) string {
		t.Helper()
		w, err := Wrap(hc, "", opts...)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := ConfigOf(w)
		if !ok || c.Credential == "" {
			t.Fatalf("no credential: %+v", c)
		}
		return c.Credential
	}
	oauth := func(token string) *http.Client {
		return oauth2.NewClient(context.Background(), oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}))
	}
	app := func(installation int64) *http.Client {
		itr, err := ghinstallation.New(http.DefaultTransport, 42, installation, pemKey)
		if err != nil {
			t.Fatal(err)
		}
		return &http.Client{Transport: itr}
	}
	own := func() *http.Client { return &http.Client{Transport: &http.Transport{}} }
	made, err := NewHTTPClient(context.Background(), WithToken("tok-a"))
	if err != nil {
		t.Fatal(err)
	}
	madeCfg, _ := ConfigOf(made)
	for _, tc := range []struct {
		name string
		a, b string
		same bool
	}{
		{"oauth2, one token", cred(oauth("tok-a")), cred(oauth("tok-a")), true},
		{"oauth2 and NewHTTPClient, one token", cred(oauth("tok-a")), madeCfg.Credential, true},
		{"oauth2, two tokens", cred(oauth("tok-a")), cred(oauth("tok-b")), false},
		{"App, one installation", cred(app(7)), cred(app(7)), true},
		{"App, two installations", cred(app(7)), cred(app(8)), false},
		{"own transports", cred(own()), cred(own()), false},
		{"own transports, one name", cred(own(), WithCredential("bot")), cred(own(), WithCredential("bot")), true},
		{"own transports, two names", cred(own(), WithCredential("bot")), cred(own(), WithCredential("other")), false},
		{"a name is not a token", cred(own(), WithCredential("tok-a")), cred(oauth("tok-a")), false},
	} {
		if (tc.a == tc.b) != tc.same {
			t.Errorf("%s: same credential %v, want %v", tc.name, tc.a == tc.b, tc.same)
		}
		if strings.Contains(tc.a, "tok-") || strings.Contains(tc.a, "bot") {
			t.Errorf("%s: the credential %q is not hashed", tc.name, tc.a)
		}
	}
	if _, err := NewHTTPClient(context.Background(), WithToken("t"), WithCredential("x")); err == nil || !strings.Contains(err.Error(), "for Wrap") {
		t.Errorf("NewHTTPClient with WithCredential: err = %v", err)
	}
	if _, err := Wrap(own(), "", WithCredential(" ")); err == nil {
		t.Error("an empty credential name was taken")
	}
}
