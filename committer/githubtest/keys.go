package githubtest

import (
	"fmt"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"

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

// verifyClientSignature is the verification of a commit a client signed.
func (s *Server) verifyClientSignature(payload, signature, committerEmail string, now time.Time) sign.Verification {
	s.mu.Lock()
	keys := append(openpgp.EntityList(nil), s.gpgKeys...)
	s.mu.Unlock()
	return sign.VerifyClient(keys, payload, signature, committerEmail, now)
}

// WebFlowPublicKey returns the armored public key the fake signs GitHub-made
// commits with (GitHub publishes its own at https://github.com/web-flow.gpg).
func WebFlowPublicKey() (string, error) { return sign.WebFlowPublicKey() }
