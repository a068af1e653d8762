package sshsign_test

import (
	"bytes"
	"crypto/dsa" //nolint:staticcheck // SA1019: a DSA key, to see it refused
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/ghcommitter/ghcommitter/committer/sshsign"
	"github.com/ghcommitter/ghcommitter/internal/sshtest"
)

const payload = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n" +
	"author Release Bot <release-bot@example.com> 1700000000 +0000\n" +
	"committer Release Bot <release-bot@example.com> 1700000000 +0000\n\nsigned with ssh\n"

func TestSignVerifiesWithSSHKeygen(t *testing.T) {
	for _, kt := range []struct{ typ, bits string }{{"ed25519", ""}, {"ecdsa", "256"}, {"ecdsa", "384"}, {"rsa", "2048"}} {
		for _, pass := range []string{"", "correct horse"} {
			name := kt.typ + kt.bits
			if pass != "" {
				name += "/encrypted"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				priv, pub := sshtest.Keygen(t, kt.typ, kt.bits, pass)
				s, err := sshsign.NewSigner(bytes.NewReader(priv), []byte(pass))
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(s.PublicKey()))); !strings.HasPrefix(pub, got) {
					t.Errorf("PublicKey() = %q, want the key of %q", got, pub)
				}
				var sig bytes.Buffer
				if err := s.Sign(&sig, strings.NewReader(payload)); err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(sig.String(), "-----BEGIN SSH SIGNATURE-----\n") || !strings.HasSuffix(sig.String(), "\n-----END SSH SIGNATURE-----\n") {
					t.Fatalf("signature is not armored as ssh-keygen does:\n%s", sig.String())
				}
				if out, err := sshtest.Verify(t, pub, payload, sig.String()); err != nil {
					t.Fatalf("ssh-keygen -Y verify -n git refuses the signature: %v\n%s", err, out)
				}
				if out, err := sshtest.Verify(t, pub, payload+"x", sig.String()); err == nil {
					t.Fatalf("ssh-keygen -Y verify accepts the signature over a tampered payload:\n%s", out)
				}
			})
		}
	}
}

// An ed25519 signature is deterministic: the Signer's must be the very bytes
// ssh-keygen -Y sign -n git writes, which git stores in the gpgsig header.
func TestSignIsSSHKeygens(t *testing.T) {
	priv, _ := sshtest.Keygen(t, "ed25519", "", "")
	dir := t.TempDir()
	key, msg := filepath.Join(dir, "key"), filepath.Join(dir, "msg")
	for f, b := range map[string][]byte{key: priv, msg: []byte(payload)} {
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command(sshtest.KeygenPath(t), "-Y", "sign", "-n", "git", "-f", key, msg).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen -Y sign: %v\n%s", err, out)
	}
	want, err := os.ReadFile(msg + ".sig")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sshsign.NewSigner(bytes.NewReader(priv), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := s.Sign(&got, strings.NewReader(payload)); err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("signature differs from ssh-keygen's:\ngot\n%s\nwant\n%s", got.String(), want)
	}
}

func TestNewSignerRefuses(t *testing.T) {
	const pass = "s3cret-passphrase"
	encrypted, pub := sshtest.Keygen(t, "ed25519", "", pass)
	plain, _ := sshtest.Keygen(t, "ed25519", "", "")
	for _, tc := range []struct {
		name, key, pass, want string
	}{
		{"encrypted key, no passphrase", string(encrypted), "", "give its passphrase"},
		{"encrypted key, wrong passphrase", string(encrypted), "wrong-" + pass, "wrong passphrase"},
		{"public key", pub, "", "public key"},
		{"not a key", "hello\n", "", "OpenSSH private key"},
		{"truncated key", string(plain[:len(plain)/2]), "", "OpenSSH private key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sshsign.NewSigner(strings.NewReader(tc.key), []byte(tc.pass))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NewSigner = %v, %v; want an error mentioning %q", s, err, tc.want)
			}
			if strings.Contains(err.Error(), pass) || strings.Contains(err.Error(), "PRIVATE KEY") {
				t.Errorf("the error shows the key or its passphrase: %v", err)
			}
		})
	}
	// A DSA key (PEM, as x/crypto parses it) is refused: OpenSSH and GitHub
	// no longer verify its signatures.
	var dsaKey dsa.PrivateKey
	if err := dsa.GenerateParameters(&dsaKey.Parameters, rand.Reader, dsa.L1024N160); err != nil {
		t.Fatal(err)
	}
	if err := dsa.GenerateKey(&dsaKey, rand.Reader); err != nil {
		t.Fatal(err)
	}
	der, err := asn1.Marshal(struct{ Version, P, Q, G, Y, X *big.Int }{big.NewInt(0), dsaKey.P, dsaKey.Q, dsaKey.G, dsaKey.Y, dsaKey.X})
	if err != nil {
		t.Fatal(err)
	}
	dsaPEM := pem.EncodeToMemory(&pem.Block{Type: "DSA PRIVATE KEY", Bytes: der})
	if _, err := sshsign.NewSigner(bytes.NewReader(dsaPEM), nil); err == nil || !strings.Contains(err.Error(), "ssh-dss key cannot sign") {
		t.Errorf("DSA key: %v, want it refused", err)
	}
	// A passphrase given for a key that is not encrypted is ignored.
	if _, err := sshsign.NewSigner(bytes.NewReader(plain), []byte(pass)); err != nil {
		t.Errorf("plain key with a passphrase: %v", err)
	}
}

// A PKCS #8 PEM key (as openssl and Go write them) signs as well.
func TestSignPKCS8Key(t *testing.T) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sshsign.NewSigner(bytes.NewReader(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), nil)
	if err != nil {
		t.Fatal(err)
	}
	var sig bytes.Buffer
	if err := s.Sign(&sig, strings.NewReader(payload)); err != nil {
		t.Fatal(err)
	}
	pub := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(s.PublicKey())))
	if out, err := sshtest.Verify(t, pub, payload, sig.String()); err != nil {
		t.Fatalf("ssh-keygen -Y verify: %v\n%s", err, out)
	}
}
