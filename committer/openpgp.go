package committer

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/google/go-github/v66/github"
)

// OpenPGPSigner returns a signer for WithSigner that makes ASCII-armored
// detached OpenPGP signatures, as `git commit -S` does with gpg, using the
// first usable signing key of armoredKey: an armored private key block, such
// as `gpg --armor --export-secret-keys KEYID` writes. An encrypted key is
// decrypted with passphrase (ignored for a key that is not encrypted).
//
// GitHub shows the commits Verified when the key's public half is added to
// the author's account and the author's email is one of the account's
// verified addresses. Signing needs an author: set ChangeSet.Author.
func OpenPGPSigner(armoredKey io.Reader, passphrase []byte) (Signer, error) {
	keys, err := openpgp.ReadArmoredKeyRing(armoredKey)
	if err != nil {
		return nil, fmt.Errorf("committer: read OpenPGP key: %w (want an armored private key, as gpg --armor --export-secret-keys writes)", err)
	}
	var lastErr error
	for _, e := range keys {
		if e.PrivateKey == nil {
			continue
		}
		if err := e.DecryptPrivateKeys(passphrase); err != nil {
			if len(passphrase) == 0 {
				lastErr = fmt.Errorf("committer: OpenPGP key %s is encrypted: give its passphrase", e.PrimaryKey.KeyIdString())
			} else {
				lastErr = fmt.Errorf("committer: decrypt OpenPGP key %s: %w (wrong passphrase?)", e.PrimaryKey.KeyIdString(), err)
			}
			continue
		}
		k, ok := e.SigningKey(time.Now())
		if !ok || k.PrivateKey == nil || k.PrivateKey.Dummy() || k.PrivateKey.Encrypted {
			lastErr = fmt.Errorf("committer: OpenPGP key %s has no usable signing key (expired, revoked, or its secret part is not in the file)", e.PrimaryKey.KeyIdString())
			continue
		}
		entity := e
		return github.MessageSignerFunc(func(w io.Writer, r io.Reader) error {
			return openpgp.ArmoredDetachSign(w, entity, r, nil)
		}), nil
	}
	if lastErr == nil {
		lastErr = errors.New("committer: the OpenPGP key holds no private key (export it with gpg --armor --export-secret-keys, not --export)")
	}
	return nil, lastErr
}
