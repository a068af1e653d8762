package githubtest

import (
	"fmt"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"golang.org/x/crypto/ssh"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/sign"
)

// AddGPGKey registers an armored OpenPGP public key (or key ring).
func (s *Server) AddGPGKey(armoredPublicKey string) error {
	keys, err := openpgp.ReadArmoredKeyRing(strings.NewReader(armoredPublicKey))
	if err != nil {
		return fmt.Errorf("githubtest: AddGPGKey: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gpgKeys = append(s.gpgKeys, keys...)
	return nil
}

// AddSSHSigningKey registers an SSH signing key, as a user adds one to
// their GitHub account: publicKey is the key as a .pub file holds it
// ("ssh-ed25519 AAAA... comment", what POST /user/ssh_signing_keys takes),
// emails the verified addresses of its user (at least one). A commit signed
// with the key (git's gpg.format=ssh) is Verified when its committer's email
// is one of them.
func (s *Server) AddSSHSigningKey(publicKey string, emails ...string) error {
	key, _, _, rest, err := ssh.ParseAuthorizedKey([]byte(publicKey))
	if err != nil {
		return fmt.Errorf("githubtest: AddSSHSigningKey: %w", err)
	}
	if strings.TrimSpace(string(rest)) != "" {
		return fmt.Errorf("githubtest: AddSSHSigningKey: one key, please")
	}
	if len(emails) == 0 {
		return fmt.Errorf("githubtest: AddSSHSigningKey: name the verified emails of the key's user")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sshKeys = append(s.sshKeys, sign.SSHKey{Key: key, Emails: append([]string(nil), emails...)})
	return nil
}

// verifyClientSignature is the verification of a commit a client signed:
// an SSH signature against the AddSSHSigningKey keys, any other against the
// AddGPGKey keys.
func (s *Server) verifyClientSignature(payload, signature, committerEmail string, now time.Time) sign.Verification {
	s.mu.Lock()
	keys := append(openpgp.EntityList(nil), s.gpgKeys...)
	sshKeys := append([]sign.SSHKey(nil), s.sshKeys...)
	s.mu.Unlock()
	if sign.IsSSH(signature) {
		return sign.VerifySSH(sshKeys, payload, signature, committerEmail, now)
	}
	return sign.VerifyClient(keys, payload, signature, committerEmail, now)
}

// WebFlowPublicKey returns the armored public key the fake signs GitHub-made
// commits with (GitHub publishes its own at https://github.com/web-flow.gpg).
func WebFlowPublicKey() (string, error) { return sign.WebFlowPublicKey() }
