package commit

import (
	"bytes"

	"github.com/google/go-github/v66/github"

	pgpsign "github.com/ghcommitter/ghcommitter/committer/openpgp"
	"github.com/ghcommitter/ghcommitter/committer/sshsign"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
)

// newSigner is the signer of the --sign-key file's content, told apart by
// it: an armored OpenPGP key ("-----BEGIN PGP ...") signs as gpg does, an
// SSH private key (an OpenSSH "-----BEGIN OPENSSH PRIVATE KEY-----", or a
// PEM RSA, EC or PKCS #8 key) or its public half (refused with a hint) as
// git with gpg.format=ssh does. The key bytes are cleared once read.
func newSigner(file string, key, passphrase []byte) (github.MessageSigner, error) {
	defer clear(key)
	if isSSHKey(key) {
		s, err := sshsign.NewSigner(bytes.NewReader(key), passphrase)
		if err != nil {
			return nil, cmdutil.UsageErrorf("give the private key file ssh-keygen wrote (not the .pub), its passphrase in $GHCOMMITTER_SIGN_PASSPHRASE",
				"--sign-key %s: %v", file, err)
		}
		return s, nil
	}
	s, err := pgpsign.NewSigner(bytes.NewReader(key), passphrase)
	if err != nil {
		return nil, cmdutil.UsageErrorf("export it with gpg --armor --export-secret-keys KEYID, or give an OpenSSH private key", "--sign-key %s: %v", file, err)
	}
	return s, nil
}

// isSSHKey reports whether key holds an SSH key rather than an OpenPGP one.
func isSSHKey(key []byte) bool {
	k := bytes.TrimSpace(key)
	if bytes.HasPrefix(k, []byte("-----BEGIN PGP ")) {
		return false
	}
	for _, p := range []string{"-----BEGIN OPENSSH PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----",
		"-----BEGIN EC PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----", "-----BEGIN ENCRYPTED PRIVATE KEY-----",
		"ssh-", "ecdsa-sha2-", "sk-"} {
		if bytes.HasPrefix(k, []byte(p)) {
			return true
		}
	}
	return false
}
