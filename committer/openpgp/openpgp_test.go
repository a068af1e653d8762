package openpgp_test

import (
	"bytes"
	"strings"
	"testing"

	pgp "github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/ghcommitter/ghcommitter/committer/openpgp"
)

func armored(t *testing.T, e *pgp.Entity, private bool, passphrase []byte) []byte {
	t.Helper()
	if passphrase != nil {
		if err := e.EncryptPrivateKeys(passphrase, nil); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := e.DecryptPrivateKeys(passphrase); err != nil {
				t.Fatal(err)
			}
		}()
	}
	var buf bytes.Buffer
	typ := pgp.PublicKeyType
	if private {
		typ = pgp.PrivateKeyType
	}
	w, err := armor.Encode(&buf, typ, nil)
	if err != nil {
		t.Fatal(err)
	}
	if private {
		err = e.SerializePrivateWithoutSigning(w, nil)
	} else {
		err = e.Serialize(w)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestNewSigner(t *testing.T) {
	e, err := pgp.NewEntity("Release Bot", "", "release-bot@example.com", &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA})
	if err != nil {
		t.Fatal(err)
	}
	pass := []byte("correct horse")
	encrypted := armored(t, e, true, pass)
	plain := armored(t, e, true, nil)
	public := armored(t, e, false, nil)
	for _, tc := range []struct {
		name       string
		key        []byte
		passphrase []byte
		wantErr    string
	}{
		{"plain key", plain, nil, ""},
		{"plain key, passphrase ignored", plain, []byte("x"), ""},
		{"encrypted key", encrypted, pass, ""},
		{"encrypted key, wrong passphrase", encrypted, []byte("wrong"), "passphrase"},
		{"encrypted key, no passphrase", encrypted, nil, "passphrase"},
		{"public key only", public, nil, "no private key"},
		{"not a key", []byte("hello"), nil, "armored private key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := openpgp.NewSigner(bytes.NewReader(tc.key), tc.passphrase)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			msg := "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@example.com> 0 +0000\ncommitter A <a@example.com> 0 +0000\n\nmsg\n"
			var sig bytes.Buffer
			if err := s.Sign(&sig, strings.NewReader(msg)); err != nil {
				t.Fatal(err)
			}
			ring, err := pgp.ReadArmoredKeyRing(bytes.NewReader(public))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := pgp.CheckArmoredDetachedSignature(ring, strings.NewReader(msg), bytes.NewReader(sig.Bytes()), nil); err != nil {
				t.Errorf("the signature does not verify with the public key: %v", err)
			}
			if _, err := pgp.CheckArmoredDetachedSignature(ring, strings.NewReader(msg+"x"), &sig, nil); err == nil {
				t.Error("the signature verifies a different payload")
			}
		})
	}
}
