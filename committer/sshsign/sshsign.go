// Package sshsign signs ghcommitter's commits with an SSH key, as `git
// commit -S` does with gpg.format=ssh: an armored "SSH SIGNATURE" in
// OpenSSH's sshsig format, namespace "git", hash sha512. GitHub shows such
// commits Verified when the key is one of the committer's "SSH signing
// keys". It is a package of its own so that programs that do not sign do not
// link an SSH implementation:
//
//	s, err := sshsign.NewSigner(privateKey, passphrase)
//	...
//	c, err := committer.New(owner, repo, committer.WithSigner(s), ...)
package sshsign

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
)

// Namespace is the sshsig namespace git signs commits and tags in.
const Namespace = "git"

// armorWidth is the line length of ssh-keygen's armor (sshbuf_dtob64):
// git stores what ssh-keygen -Y sign writes, so the gpgsig header is the
// same bytes as git's.
const armorWidth = 70

// Signer makes armored sshsig signatures of commits. Pass it to
// committer.WithSigner.
type Signer struct {
	signer ssh.Signer
}

// NewSigner returns a Signer for the private key read from key: an OpenSSH
// private key as ssh-keygen writes it ("-----BEGIN OPENSSH PRIVATE KEY-----";
// ed25519, ECDSA or RSA), or a PEM RSA, EC or PKCS #8 key. An encrypted key
// is decrypted with passphrase (ignored for a key that is not encrypted).
// Security-key (sk-*) keys need their device and are refused.
//
// GitHub shows the commits Verified when the key's public half is added to
// the committer's account as an SSH signing key and the committer's email is
// a verified address of that account. Signing needs an author: set
// ChangeSet.Author.
func NewSigner(key io.Reader, passphrase []byte) (*Signer, error) {
	data, err := io.ReadAll(key)
	if err != nil {
		return nil, fmt.Errorf("sshsign: read key: %w", err)
	}
	defer clear(data)
	if _, _, _, _, err := ssh.ParseAuthorizedKey(data); err == nil {
		return nil, errors.New("sshsign: this is a public key: give the private key (the file without .pub)")
	}
	raw, err := ssh.ParseRawPrivateKey(data)
	var missing *ssh.PassphraseMissingError
	switch {
	case errors.As(err, &missing) && len(passphrase) == 0:
		return nil, errors.New("sshsign: the key is encrypted: give its passphrase")
	case errors.As(err, &missing):
		raw, err = ssh.ParseRawPrivateKeyWithPassphrase(data, passphrase)
		if err != nil {
			return nil, fmt.Errorf("sshsign: decrypt key: %w (wrong passphrase?)", err)
		}
	case err != nil:
		return nil, fmt.Errorf("sshsign: read key: %w (want an OpenSSH private key, as ssh-keygen writes)", err)
	}
	s, err := ssh.NewSignerFromKey(raw)
	if err != nil {
		return nil, fmt.Errorf("sshsign: %w", err)
	}
	switch t := s.PublicKey().Type(); t {
	case ssh.KeyAlgoED25519, ssh.KeyAlgoRSA, ssh.KeyAlgoECDSA256, ssh.KeyAlgoECDSA384, ssh.KeyAlgoECDSA521:
	default:
		// DSA: OpenSSH no longer verifies it, nor GitHub.
		return nil, fmt.Errorf("sshsign: a %s key cannot sign commits: use ed25519, ECDSA or RSA", t)
	}
	return &Signer{signer: s}, nil
}

// PublicKey is the key's public half: what to add to GitHub as an SSH
// signing key (ssh.MarshalAuthorizedKey writes it as a .pub file holds it).
func (s *Signer) PublicKey() ssh.PublicKey { return s.signer.PublicKey() }

// Sign writes an armored sshsig signature of the commit payload r to w, as
// ssh-keygen -Y sign -n git writes it for git.
func (s *Signer) Sign(w io.Writer, r io.Reader) error {
	sig, err := sshsig.Sign(r, s.signer, sshsig.HashSHA512, Namespace)
	if err != nil {
		return fmt.Errorf("sshsign: sign: %w", err)
	}
	_, err = w.Write(armor(sig.Marshal()))
	return err
}

// armor wraps an sshsig blob as ssh-keygen does: base64 in lines of 70
// characters between "-----BEGIN SSH SIGNATURE-----" and "-----END SSH
// SIGNATURE-----", each line ended by a newline.
func armor(blob []byte) []byte {
	enc := base64.StdEncoding.EncodeToString(blob)
	var b bytes.Buffer
	b.WriteString("-----BEGIN " + sshsig.PEMType + "-----\n")
	for len(enc) > armorWidth {
		b.WriteString(enc[:armorWidth] + "\n")
		enc = enc[armorWidth:]
	}
	b.WriteString(enc + "\n")
	b.WriteString("-----END " + sshsig.PEMType + "-----\n")
	return b.Bytes()
}
