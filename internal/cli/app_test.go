package cli

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommitAsGitHubApp authenticates with --app-id and --app-key-file, with
// the installation looked up from the repository and given explicitly.
func TestCommitAsGitHubApp(t *testing.T) {
	srv := fake(t)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	writeFile(t, keyFile, string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})), 0o600)
	srv.RegisterApp(42, &key.PublicKey)
	srv.InstallApp(42, 4242, "acme", "mono")

	c := newCLI(t)
	delete(c.env, "GH_TOKEN")
	r := c.run(commitArgs(srv, "-m", "m", "--app-id", "42", "--app-key-file", keyFile, "--edit", "a.txt=echo a")...)
	r.wantCode(t, 0)
	r = c.run(commitArgs(srv, "-m", "m", "--app-id", "42", "--app-key-file", keyFile, "--installation-id", "4242", "--edit", "a.txt=echo b")...)
	r.wantCode(t, 0)
	if got, _ := readFile(t, srv, "main", "a.txt"); got != "b\n" {
		t.Errorf("a.txt = %q", got)
	}
	if srv.TokensIssued(4242) != 2 {
		t.Errorf("%d installation tokens issued, want 2", srv.TokensIssued(4242))
	}

	// A key file that is not a key is refused before any request.
	bad := filepath.Join(t.TempDir(), "bad.pem")
	writeFile(t, bad, "not a key\n", 0o600)
	srv.ResetRequests()
	r = c.run(commitArgs(srv, "-m", "m", "--app-id", "42", "--app-key-file", bad, "--edit", "a.txt=echo c")...)
	r.wantCode(t, 2)
	if !strings.Contains(r.stderr, "PEM") || len(srv.Requests()) != 0 {
		t.Errorf("stderr = %q, %d requests", r.stderr, len(srv.Requests()))
	}
	// An app that is not installed on the repository fails with exit 1.
	r = c.run(commitArgs(srv, "-m", "m", "--app-id", "43", "--app-key-file", keyFile, "--edit", "a.txt=echo c")...)
	r.wantCode(t, 1)
	if !strings.Contains(r.stderr, "installed") {
		t.Errorf("stderr = %q, want it to say the app is not installed", r.stderr)
	}
}
