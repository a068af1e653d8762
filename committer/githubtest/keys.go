package githubtest

import (
	"fmt"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

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

// putSignedCommit signs c as GitHub's web flow, stores it with a Verified
// verification and returns its hash. Caller holds rp.mu for writing.
func (rp *repo) PutSignedCommit(c *object.Commit, now time.Time) (plumbing.Hash, error) {
	v, err := sign.WebFlowSign(c, now)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h := rp.PutCommit(c)
	rp.Verif[h] = v
	return h, nil
}

// WebFlowPublicKey returns the armored public key the fake signs GitHub-made
// commits with (GitHub publishes its own at https://github.com/web-flow.gpg).
func WebFlowPublicKey() (string, error) { return sign.WebFlowPublicKey() }
