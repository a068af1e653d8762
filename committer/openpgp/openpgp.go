// Package openpgp signs ghcommitter's commits with an OpenPGP key, as
// `git commit -S` does with gpg. It is a package of its own so that programs
// that do not sign do not link an OpenPGP implementation:
//
//	s, err := openpgp.NewSigner(armoredKey, passphrase)
//	...
//	c, err := committer.New(owner, repo, committer.WithSigner(s), ...)
package openpgp

import (
	"errors"
	"fmt"
	"io"
	"time"

	pgp "github.com/ProtonMail/go-crypto/openpgp"
)

// Signer makes ASCII-armored detached OpenPGP signatures of commits. Pass it
// to committer.WithSigner.
type Signer struct {
	entity *pgp.Entity
}

// NewSigner returns a Signer using the first usable signing key of
// armoredKey: an armored private key block, such as `gpg --armor
// --export-secret-keys KEYID` writes. An encrypted key is decrypted with
// passphrase (ignored for a key that is not encrypted).
//
// GitHub shows the commits Verified when the key's public half is added to
// the author's account and the author's email is one of the account's
// verified addresses. Signing needs an author: set ChangeSet.Author.
func NewSigner(armoredKey io.Reader, passphrase []byte) (*Signer, error) {
	keys, err := pgp.ReadArmoredKeyRing(armoredKey)
	if err != nil {
		return nil, fmt.Errorf("openpgp: read key: %w (want an armored private key, as gpg --armor --export-secret-keys writes)", err)
	}
	var lastErr error
	for _, e := range keys {
		if e.PrivateKey == nil {
			continue
		}
		if err := e.DecryptPrivateKeys(passphrase); err != nil {
			if len(passphrase) == 0 {
				lastErr = fmt.Errorf("openpgp: key %s is encrypted: give its passphrase", e.PrimaryKey.KeyIdString())
			} else {
				lastErr = fmt.Errorf("openpgp: decrypt key %s: %w (wrong passphrase?)", e.PrimaryKey.KeyIdString(), err)
			}
			continue
		}
		k, ok := e.SigningKey(time.Now())
		if !ok || k.PrivateKey == nil || k.PrivateKey.Dummy() || k.PrivateKey.Encrypted {
			lastErr = fmt.Errorf("openpgp: key %s has no usable signing key (expired, revoked, or its secret part is not in the file)", e.PrimaryKey.KeyIdString())
			continue
		}
		return &Signer{entity: e}, nil
	}
	if lastErr == nil {
		lastErr = errors.New("openpgp: the key holds no private key (export it with gpg --armor --export-secret-keys, not --export)")
	}
	return nil, lastErr
}

// Sign writes an armored detached signature of the commit payload r to w.
func (s *Signer) Sign(w io.Writer, r io.Reader) error {
	return pgp.ArmoredDetachSign(w, s.entity, r, nil)
}
