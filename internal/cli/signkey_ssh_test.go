package cli

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"
	"github.com/ghcommitter/ghcommitter/internal/sshtest"
)

const janeEmail = "jane@example.com"

// sshSignFake is a fake whose main requires signed commits, with public
// registered as an SSH signing key of Jane Doe.
func sshSignFake(t *testing.T, public string) *githubtest.TestServer {
	t.Helper()
	srv := fake(t)
	requireSSHSigned(t, srv, public)
	return srv
}

// requireSSHSigned makes srv's main require signed commits and registers
// public as an SSH signing key of Jane Doe.
func requireSSHSigned(t *testing.T, srv *githubtest.TestServer, public string) {
	t.Helper()
	rs := githubtest.Ruleset{Name: "signed", Include: []string{"~DEFAULT_BRANCH"}, Rules: []githubtest.Rule{githubtest.RequireSignatures()}}
	if _, err := srv.AddRuleset("acme", "mono", rs); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddSSHSigningKey(public, janeEmail); err != nil {
		t.Fatal(err)
	}
}

// TestSignKeySSH: --sign-key takes an OpenSSH private key (told from an
// OpenPGP one by its content), its passphrase from
// $GHCOMMITTER_SIGN_PASSPHRASE: the commit lands on a branch requiring
// signatures, Verified, and its signature passes ssh-keygen -Y verify.
func TestSignKeySSH(t *testing.T) {
	const pass = "s3cret-passphrase"
	for _, kt := range []struct{ typ, bits, pass string }{{"ed25519", "", pass}, {"ecdsa", "256", ""}, {"rsa", "2048", pass}} {
		t.Run(kt.typ, func(t *testing.T) {
			priv, pub := sshtest.Keygen(t, kt.typ, kt.bits, kt.pass)
			srv := sshSignFake(t, pub)
			keyFile := filepath.Join(t.TempDir(), "id_"+kt.typ)
			writeFile(t, keyFile, string(priv), 0o600)
			c := newCLI(t)
			c.env["GHCOMMITTER_SIGN_PASSPHRASE"] = kt.pass
			r := c.run(commitArgs(srv, "-b", "main", "-m", "signed with ssh", "--author", "Jane Doe <"+janeEmail+">",
				"--sign-key", keyFile, "--remove-sign-key",
				"--edit", "seen.txt=test -e "+commitcmd.ShellQuote(keyFile)+" && echo present || echo absent")...)
			r.wantCode(t, 0)
			if _, err := os.Stat(keyFile); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("--remove-sign-key left the key file: %v", err)
			}
			if got, _ := readFile(t, srv, "main", "seen.txt"); got != "absent\n" {
				t.Errorf("the --edit command saw the key file: %q", got)
			}
			gc, _, err := srv.Client.Git.GetCommit(t.Context(), "acme", "mono", head(t, srv, "main"))
			if err != nil {
				t.Fatal(err)
			}
			v := gc.GetVerification()
			if !v.GetVerified() || v.GetReason() != "valid" || !strings.HasPrefix(v.GetSignature(), "-----BEGIN SSH SIGNATURE-----") {
				t.Fatalf("verification %+v, want an SSH signature, verified", v)
			}
			if out, err := sshtest.Verify(t, pub, v.GetPayload(), v.GetSignature()); err != nil {
				t.Errorf("ssh-keygen -Y verify: %v\n%s", err, out)
			}
		})
	}
}

// TestSignKeySSHRefused: a wrong or missing passphrase, or a public key,
// is a usage error (exit 2) that says so and shows neither the key nor the
// passphrase; nothing is sent, and --remove-sign-key still deletes the file.
func TestSignKeySSHRefused(t *testing.T) {
	const pass = "s3cret-passphrase"
	priv, pub := sshtest.Keygen(t, "ed25519", "", pass)
	srv := sshSignFake(t, pub)
	before := head(t, srv, "main")
	for _, tc := range []struct {
		name, key, pass, want string
	}{
		{"wrong passphrase", string(priv), "not-" + pass, "wrong passphrase"},
		{"no passphrase", string(priv), "", "give its passphrase"},
		{"public key", pub + "\n", pass, "public key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keyFile := filepath.Join(t.TempDir(), "id_ed25519")
			writeFile(t, keyFile, tc.key, 0o600)
			c := newCLI(t)
			c.env["GHCOMMITTER_SIGN_PASSPHRASE"] = tc.pass
			srv.ResetRequests()
			r := c.run(commitArgs(srv, "-b", "main", "-m", "m", "--author", "Jane Doe <"+janeEmail+">",
				"--sign-key", keyFile, "--remove-sign-key", "--edit", "a.txt=echo a")...)
			r.wantCode(t, 2)
			if !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, keyFile) {
				t.Errorf("stderr = %q, want it to name the file and say %q", r.stderr, tc.want)
			}
			for _, secret := range append(strings.Split(strings.TrimSpace(string(priv)), "\n")[1:3], pass) {
				if strings.Contains(r.stderr+r.stdout, secret) {
					t.Errorf("the output shows the key or its passphrase: %q", r.stderr)
				}
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d requests sent", n)
			}
			if _, err := os.Stat(keyFile); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("--remove-sign-key left the key file: %v", err)
			}
		})
	}
	if got := head(t, srv, "main"); got != before {
		t.Errorf("main moved to %s", got)
	}
}

// TestFakeGitHubSSHSigningKey: fake-github --ssh-signing-key EMAIL=FILE
// registers the .pub in FILE for EMAIL's user: a commit ghcommitter signs
// with its private key as that committer is Verified, another committer's
// is bad_email. A bad spec, a missing file or a private key is exit 2.
func TestFakeGitHubSSHSigningKey(t *testing.T) {
	priv, pub := sshtest.Keygen(t, "ed25519", "", "")
	dir := t.TempDir()
	pubFile, keyFile := filepath.Join(dir, "id.pub"), filepath.Join(dir, "id")
	writeFile(t, pubFile, pub+"\n", 0o644)
	writeFile(t, keyFile, string(priv), 0o600)
	url, stop := startFake(t, "--repo", "acme/mono", "--ssh-signing-key", janeEmail+"="+pubFile)
	defer stop()
	c := newCLI(t)
	for _, tc := range []struct{ email, reason string }{{janeEmail, "valid"}, {"joe@example.com", "bad_email"}} {
		r := c.run("commit", "--api-url", url, "-R", "acme/mono", "-b", "main", "-m", "signed by "+tc.email,
			"--author", "Jane Doe <"+tc.email+">", "--sign-key", keyFile, "--edit", "a.txt=echo "+tc.email, "--json")
		r.wantCode(t, 0)
		var out struct{ Commit string }
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Commit == "" {
			t.Fatalf("--json stdout %q: %v", r.stdout, err)
		}
		resp, err := http.Get(url + "repos/acme/mono/git/commits/" + out.Commit)
		if err != nil {
			t.Fatal(err)
		}
		var gc struct {
			Verification struct {
				Verified bool
				Reason   string
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&gc)
		resp.Body.Close()
		if err != nil || gc.Verification.Reason != tc.reason || gc.Verification.Verified != (tc.reason == "valid") {
			t.Errorf("committer %s: verification %+v (%v), want %s", tc.email, gc.Verification, err, tc.reason)
		}
	}
	for _, spec := range []string{pubFile, janeEmail + "=" + filepath.Join(dir, "missing.pub"), janeEmail + "=" + keyFile} {
		r := newCLI(t).run("fake-github", "--listen", "127.0.0.1:0", "--repo", "acme/mono", "--ssh-signing-key", spec)
		r.wantCode(t, 2)
		if r.stdout != "" || strings.Contains(r.stderr, "PRIVATE KEY") {
			t.Errorf("--ssh-signing-key %s: stdout %q, stderr %q", spec, r.stdout, r.stderr)
		}
	}
}
