package commit

import "testing"

// TestIsSSHKey: --sign-key's content tells the key's kind; anything else
// goes to the OpenPGP reader, whose error says what it wants.
func TestIsSSHKey(t *testing.T) {
	for key, want := range map[string]bool{
		"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nxcA\n-----END PGP PRIVATE KEY BLOCK-----\n":  false,
		"\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbg==\n-----END OPENSSH PRIVATE KEY-----\n": true,
		"-----BEGIN RSA PRIVATE KEY-----\nMII=\n-----END RSA PRIVATE KEY-----\n":               true,
		"-----BEGIN EC PRIVATE KEY-----\nMHc=\n-----END EC PRIVATE KEY-----\n":                 true,
		"-----BEGIN PRIVATE KEY-----\nMC4=\n-----END PRIVATE KEY-----\n":                       true,
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA bot\n":                                           true,
		"ecdsa-sha2-nistp256 AAAA bot\n":                                                       true,
		"hello\n":                                                                              false,
		"":                                                                                     false,
	} {
		if got := isSSHKey([]byte(key)); got != want {
			t.Errorf("isSSHKey(%q) = %v, want %v", key, got, want)
		}
	}
}
