package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"
	"github.com/ghcommitter/ghcommitter/internal/cli/secure"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
)

// testSignKey is a new armored OpenPGP private key for Jane Doe
// <jane@example.com>, encrypted with passphrase unless it is empty.
func testSignKey(t *testing.T, passphrase string) (string, *openpgp.Entity) {
	t.Helper()
	e, err := openpgp.NewEntity("Jane Doe", "", "jane@example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := armor.Encode(&buf, openpgp.PrivateKeyType, nil)
	if err != nil {
		t.Fatal(err)
	}
	if passphrase != "" {
		if err := e.EncryptPrivateKeys([]byte(passphrase), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SerializePrivateWithoutSigning(w, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String(), e
}

// TestEditRefusedWhenCredentialsExposed: when the credentials in the
// initial environment could not be hidden, --edit commands do not run:
// exit 1 before any request, with what to do. Without --edit the commit
// goes ahead (no other process is started).
func TestEditRefusedWhenCredentialsExposed(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	c.exposed = errors.New("GH_TOKEN would stay readable in /proc/1/environ: permission denied")
	r := c.run(commitArgs(srv, "-m", "m", "--json", "--edit", "a.txt=echo a")...)
	r.wantCode(t, 1)
	if !strings.Contains(r.stderr, "GH_TOKEN would stay readable") || !strings.Contains(r.stderr, "--token-file") {
		t.Errorf("stderr = %q, want the reason and the way out", r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
	var out struct{ Error struct{ Kind string } }
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Error.Kind == "" {
		t.Errorf("--json stdout = %q (%v)", r.stdout, err)
	}
	f := filepath.Join(t.TempDir(), "a.txt")
	writeFile(t, f, "a\n", 0o644)
	c.run(commitArgs(srv, "-m", "m", "--add", "a.txt="+f)...).wantCode(t, 0)
}

// TestRemoveSignKey: with --remove-sign-key the key file is gone once
// ghcommitter ran, whether it committed or refused before reading it, and
// before any --edit command runs; without it the file stays.
func TestRemoveSignKey(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	key, _ := testSignKey(t, "")
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key.asc")
	author := []string{"--author", "Jane Doe <jane@example.com>"}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		remove bool
	}{
		{"committed", append(author, "--remove-sign-key", "--edit", "seen.txt=test -e "+commitcmd.ShellQuote(keyFile)+" && echo present || echo absent"), 0, true},
		{"no author", []string{"--remove-sign-key", "--edit", "a.txt=echo a"}, 2, true},
		{"bad max attempts", append(author, "--remove-sign-key", "--max-attempts", "0", "--edit", "a.txt=echo a"), 2, true},
		{"kept without the flag", append(author, "--edit", "b.txt=echo b"), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, keyFile, key, 0o600)
			r := c.run(commitArgs(srv, append([]string{"-b", "main", "-m", "m", "--sign-key", keyFile}, tc.args...)...)...)
			r.wantCode(t, tc.code)
			if _, err := os.Stat(keyFile); tc.remove != errors.Is(err, fs.ErrNotExist) {
				t.Errorf("key file after the run: %v, want removed=%v", err, tc.remove)
			}
		})
	}
	if got, _ := readFile(t, srv, "main", "seen.txt"); got != "absent\n" {
		t.Errorf("the --edit command saw the key file: %q", got)
	}
	// --remove-sign-key alone is refused before any request.
	srv.ResetRequests()
	r := c.run(commitArgs(srv, "-b", "main", "-m", "m", "--remove-sign-key", "--edit", "a.txt=echo a")...)
	r.wantCode(t, 2)
	if len(srv.Requests()) != 0 {
		t.Error("requests were sent")
	}
}

// TestSecretEnvDocumented: docs/cli.md names every variable kept from --edit
// commands.
func TestSecretEnvDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range secure.SecretEnv {
		if !strings.Contains(string(doc), "`"+name+"`") {
			t.Errorf("docs/cli.md does not name %s", name)
		}
	}
}
