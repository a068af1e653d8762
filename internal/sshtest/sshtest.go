// Package sshtest makes SSH keys with ssh-keygen and checks SSH signatures
// with ssh-keygen -Y verify and git verify-commit, for the tests of SSH
// commit signing (committer/sshsign, the fake's verification, the CLI's
// --sign-key). It is not part of the public API: only the repository's own
// tests import it.
package sshtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Principal is the name Verify gives the key in its allowed-signers file.
const Principal = "signer"

// KeygenPath returns ssh-keygen's path. Without one the test is skipped,
// except in CI (CI set), where it fails: CI's machine has OpenSSH.
func KeygenPath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("ssh-keygen")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("ssh-keygen not found: %v", err)
		}
		t.Skipf("ssh-keygen not found: %v", err)
	}
	return p
}

// Keygen makes a key of type typ (ed25519, ecdsa, rsa) with bits ("" for
// the default), encrypted with passphrase unless it is empty (with 2 KDF
// rounds), and returns
// the private key file's bytes and the public key's line.
func Keygen(t testing.TB, typ, bits, passphrase string) (private []byte, public string) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "id_"+typ)
	args := []string{"-q", "-t", typ, "-N", passphrase, "-C", "release-bot@example.com", "-f", f}
	if bits != "" {
		args = append(args, "-b", bits)
	}
	if passphrase != "" {
		// Few KDF rounds (the default is 16): decrypting stays a test of the
		// format, not of bcrypt's speed under -race.
		args = append(args, "-a", "2")
	}
	if out, err := exec.Command(KeygenPath(t), args...).CombinedOutput(); err != nil { //nolint:gosec // G204: ssh-keygen on the test's own temporary files
		t.Fatalf("ssh-keygen -t %s: %v\n%s", typ, err, out)
	}
	private, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := os.ReadFile(f + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return private, strings.TrimSpace(string(pub))
}

// AllowedSigners writes an allowed-signers file (gpg.ssh.allowedSignersFile)
// naming public, as principal, for namespace git, and returns its path.
func AllowedSigners(t testing.TB, principal, public string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.WriteFile(f, []byte(principal+` namespaces="git" `+public+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// Verify runs ssh-keygen -Y verify -n git -f allowed_signers -I signer -s
// sig < payload with public as the allowed signer Principal, and returns
// its output and its error (nil: verified).
func Verify(t testing.TB, public, payload, signature string) ([]byte, error) {
	t.Helper()
	sig := filepath.Join(t.TempDir(), "sig")
	if err := os.WriteFile(sig, []byte(signature), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(KeygenPath(t), "-Y", "verify", "-n", "git", "-f", AllowedSigners(t, Principal, public), "-I", Principal, "-s", sig) //nolint:gosec // G204: ssh-keygen on the test's own temporary files
	cmd.Stdin = strings.NewReader(payload)
	return cmd.CombinedOutput()
}

// VerifyCommit writes the commit object raw (as git stores it, gpgsig header
// and all) into a new local repository with git hash-object -t commit -w and
// runs git verify-commit on it with gpg.format=ssh and an allowed-signers
// file naming public for email. It returns the SHA git computed, its output
// and its error (nil: verified).
func VerifyCommit(t testing.TB, raw []byte, email, public string) (sha string, out []byte, err error) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("git not found: %v", err)
	}
	KeygenPath(t) // git verifies through ssh-keygen
	dir := t.TempDir()
	git := func(stdin []byte, args ...string) ([]byte, error) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "gpg.format=ssh", //nolint:gosec // G204: git on the test's own temporary repository
			"-c", "gpg.ssh.allowedSignersFile=" + AllowedSigners(t, email, public)}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir)
		cmd.Stdin = bytes.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil {
			return append(stdout.Bytes(), stderr.Bytes()...), err
		}
		return stdout.Bytes(), nil
	}
	if out, err := git(nil, "init", "-q"); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	h, err := git(raw, "hash-object", "-t", "commit", "-w", "--stdin")
	if err != nil {
		t.Fatalf("git hash-object: %v\n%s", err, h)
	}
	sha = strings.TrimSpace(string(h))
	out, err = git(nil, "verify-commit", "-v", sha)
	return sha, out, err
}
