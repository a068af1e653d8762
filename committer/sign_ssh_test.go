package committer_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"
	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/committer/sshsign"
	"github.com/ghcommitter/ghcommitter/internal/sshtest"
)

const sshEmail = "release-bot@example.com"

// sshSigned sets up a fake whose main requires signed commits (unless
// free), and returns it and a committer signing with signer.
func sshSigned(t *testing.T, signer committer.Signer, free ...bool) (*githubtest.TestServer, *committer.Committer) {
	t.Helper()
	ts, c := setup(t, committer.WithSigner(signer))
	if len(free) > 0 && free[0] {
		return ts, c
	}
	rs := githubtest.Ruleset{Name: "signed", Include: []string{"~DEFAULT_BRANCH"}, Rules: []githubtest.Rule{githubtest.RequireSignatures()}}
	if _, err := ts.AddRuleset(owner, repo, rs); err != nil {
		t.Fatal(err)
	}
	return ts, c
}

// sshSigner is the ssh.Signer of an unencrypted private key.
func sshSigner(t *testing.T, priv []byte) ssh.Signer {
	t.Helper()
	s, err := ssh.ParsePrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sshCommit(t *testing.T, c *committer.Committer, msg string) (*committer.Result, error) {
	t.Helper()
	cs := committer.NewChangeSet(msg).Put("envs/api.txt", []byte(msg+"\n"))
	cs.Author = &committer.Signature{Name: "Release Bot", Email: sshEmail}
	return c.Commit(context.Background(), "main", cs)
}

// verification is the commit's verification as GET git/commits/{sha}
// reports it.
func verification(t *testing.T, ts *githubtest.TestServer, sha string) *github.SignatureVerification {
	t.Helper()
	gc, _, err := ts.Client.Git.GetCommit(context.Background(), owner, repo, sha)
	if err != nil {
		t.Fatal(err)
	}
	return gc.GetVerification()
}

// verifiedSSH is verification, failing t unless it is verified/valid.
func verifiedSSH(t *testing.T, ts *githubtest.TestServer, sha string) *github.SignatureVerification {
	t.Helper()
	v := verification(t, ts, sha)
	if !v.GetVerified() || v.GetReason() != "valid" {
		t.Fatalf("verification %+v, want verified/valid", v)
	}
	return v
}

// An ed25519-signed commit lands on a branch that requires signatures; GET
// git/commits reports it Verified, and its signature and payload pass
// ssh-keygen -Y verify -n git (a tampered payload does not) and git
// verify-commit with gpg.format=ssh, on the same object SHA.
func TestSSHSignedCommitVerifies(t *testing.T) {
	priv, pub := sshtest.Keygen(t, "ed25519", "", "correct horse")
	signer, err := sshsign.NewSigner(bytes.NewReader(priv), []byte("correct horse"))
	if err != nil {
		t.Fatal(err)
	}
	ts, c := sshSigned(t, signer)
	if err := ts.AddSSHSigningKey(pub, "someone-else@example.com", strings.ToUpper(sshEmail)); err != nil {
		t.Fatal(err)
	}
	res, err := sshCommit(t, c, "signed with ssh")
	if err != nil {
		t.Fatalf("the ruleset refused an SSH-signed commit: %v", err)
	}
	v := verifiedSSH(t, ts, res.Commit)
	stored, err := ts.Commit(owner, repo, res.Commit)
	if err != nil {
		t.Fatal(err)
	}
	if v.GetSignature() != stored.PGPSignature || !strings.HasPrefix(v.GetSignature(), "-----BEGIN SSH SIGNATURE-----\n") {
		t.Errorf("verification.signature %q, want the gpgsig header %q", v.GetSignature(), stored.PGPSignature)
	}
	if want := gitPayload(t, stored); v.GetPayload() != want {
		t.Errorf("verification.payload %q, want the commit without its gpgsig %q", v.GetPayload(), want)
	}
	if out, err := sshtest.Verify(t, pub, v.GetPayload(), v.GetSignature()); err != nil {
		t.Errorf("ssh-keygen -Y verify -n git refuses the API's signature and payload: %v\n%s", err, out)
	}
	if out, err := sshtest.Verify(t, pub, strings.Replace(v.GetPayload(), "signed with", "signed without", 1), v.GetSignature()); err == nil {
		t.Errorf("ssh-keygen -Y verify accepts a tampered payload:\n%s", out)
	}
	sha, out, err := sshtest.VerifyCommit(t, rawCommit(stored), sshEmail, pub)
	if err != nil {
		t.Errorf("git verify-commit refuses the commit: %v\n%s", err, out)
	}
	if sha != res.Commit {
		t.Errorf("git hashes the commit object as %s, GitHub (the fake) as %s", sha, res.Commit)
	}
}

// ECDSA and RSA keys sign too, and GitHub (the fake) verifies them.
func TestSSHSignedCommitKeyTypes(t *testing.T) {
	for _, kt := range []struct{ typ, bits string }{{"ecdsa", "256"}, {"ecdsa", "521"}, {"rsa", "2048"}} {
		t.Run(kt.typ+kt.bits, func(t *testing.T) {
			priv, pub := sshtest.Keygen(t, kt.typ, kt.bits, "")
			signer, err := sshsign.NewSigner(bytes.NewReader(priv), nil)
			if err != nil {
				t.Fatal(err)
			}
			ts, c := sshSigned(t, signer)
			if err := ts.AddSSHSigningKey(pub, sshEmail); err != nil {
				t.Fatal(err)
			}
			res, err := sshCommit(t, c, "signed with "+kt.typ)
			if err != nil {
				t.Fatal(err)
			}
			v := verifiedSSH(t, ts, res.Commit)
			if out, err := sshtest.Verify(t, pub, v.GetPayload(), v.GetSignature()); err != nil {
				t.Errorf("ssh-keygen -Y verify: %v\n%s", err, out)
			}
		})
	}
}

// A commit whose SSH signature GitHub does not verify is refused by a
// ruleset requiring signatures, and unguarded it is stored with GitHub's
// reason.
func TestSSHSignatureUnverified(t *testing.T) {
	priv, pub := sshtest.Keygen(t, "ed25519", "", "")
	signer, err := sshsign.NewSigner(bytes.NewReader(priv), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, other := sshtest.Keygen(t, "ed25519", "", "")
	with := func(ns string, msg func(string) string) committer.Signer {
		return github.MessageSignerFunc(func(w io.Writer, r io.Reader) error {
			b, _ := io.ReadAll(r)
			s, err := sshsig.Sign(strings.NewReader(msg(string(b))), sshSigner(t, priv), sshsig.HashSHA512, ns)
			if err != nil {
				return err
			}
			_, err = w.Write(sshsig.Armor(s))
			return err
		})
	}
	same := func(s string) string { return s }
	garbage := github.MessageSignerFunc(func(w io.Writer, _ io.Reader) error {
		_, err := io.WriteString(w, "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n")
		return err
	})
	for _, tc := range []struct {
		name, reason string
		signer       committer.Signer
		key, email   string
	}{
		{"no key registered", "unknown_key", signer, "", ""},
		{"another key registered", "unknown_key", signer, other, sshEmail},
		{"key of another user", "bad_email", signer, pub, "someone-else@example.com"},
		{"namespace file", "invalid", with("file", same), pub, sshEmail},
		{"other payload", "invalid", with("git", func(s string) string { return s + "x" }), pub, sshEmail},
		{"malformed", "malformed_signature", garbage, pub, sshEmail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, c := sshSigned(t, tc.signer)
			free, fc := sshSigned(t, tc.signer, true)
			if tc.key != "" {
				for _, s := range []*githubtest.TestServer{ts, free} {
					if err := s.AddSSHSigningKey(tc.key, tc.email); err != nil {
						t.Fatal(err)
					}
				}
			}
			before := head(t, ts, "main")
			if _, err := sshCommit(t, c, "refused"); !errors.Is(err, committer.ErrProtected) {
				t.Fatalf("err = %v, want ErrProtected (required_signatures)", err)
			}
			if got := head(t, ts, "main"); got != before {
				t.Errorf("main moved to %s", got)
			}
			ts = free
			res, err := sshCommit(t, fc, "stored")
			if err != nil {
				t.Fatal(err)
			}
			if v := verification(t, ts, res.Commit); v.GetVerified() || v.GetReason() != tc.reason || v.GetSignature() == "" {
				t.Errorf("verification %+v, want unverified, reason %s, with its signature", v, tc.reason)
			}
		})
	}
}
