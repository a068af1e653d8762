package githubtest

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	pgperrors "github.com/ProtonMail/go-crypto/openpgp/errors"
)

// GPG keys registered with the fake, as a user adds them to their GitHub
// account: a commit sent with a signature (POST git/commits "signature") is
// Verified when the signature checks against a registered key and the
// committer's email is one of that key's identities, as GitHub requires.
// Otherwise its verification says why, with GitHub's reasons: "unknown_key"
// (no registered key made it), "bad_email" (the key does not carry the
// committer's email), "invalid" (it does not check).

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
func (s *Server) verifyClientSignature(payload, signature, committerEmail string, now time.Time) verification {
	sig, pl := signature, payload
	v := verification{Reason: "unknown_key", Signature: &sig, Payload: &pl}
	s.mu.Lock()
	keys := append(openpgp.EntityList(nil), s.gpgKeys...)
	s.mu.Unlock()
	if len(keys) == 0 || !strings.Contains(signature, "BEGIN PGP SIGNATURE") {
		return v
	}
	signer, err := openpgp.CheckArmoredDetachedSignature(keys, strings.NewReader(payload), strings.NewReader(signature), nil)
	switch {
	case errors.Is(err, pgperrors.ErrUnknownIssuer):
		return v
	case err != nil || signer == nil:
		v.Reason = "invalid"
		return v
	}
	for _, id := range signer.Identities {
		if id.UserId != nil && strings.EqualFold(id.UserId.Email, committerEmail) {
			at := now.UTC().Format(time.RFC3339)
			v.Verified, v.Reason, v.VerifiedAt = true, "valid", &at
			return v
		}
	}
	v.Reason = "bad_email"
	return v
}
