package githubtest

import (
	"bytes"
	"strings"
	"sync"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The fake's stand-in for GitHub's web-flow key (https://github.com/web-flow.gpg,
// fingerprint 5DE3 E050 9C47 EA3C F04A 42D3 4AEE 18F8 3AFD EB23): an EdDSA
// OpenPGP key generated once per process, with GitHub's user ID. Commits it
// signs carry a real detached signature that verifies against
// WebFlowPublicKey, not against GitHub's key.
var webFlow struct {
	once sync.Once
	ent  *openpgp.Entity
	pub  string
	err  error
}

func webFlowKey() (*openpgp.Entity, error) {
	webFlow.once.Do(func() {
		// Created in 2008 so that it can sign commits dated by any fake clock.
		born := time.Date(2008, 4, 10, 0, 0, 0, 0, time.UTC)
		cfg := &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA, Time: func() time.Time { return born }}
		webFlow.ent, webFlow.err = openpgp.NewEntity("GitHub", "fake web-flow commit signing", "noreply@github.com", cfg)
		if webFlow.err != nil {
			return
		}
		var buf bytes.Buffer
		w, err := armor.Encode(&buf, openpgp.PublicKeyType, nil)
		if err == nil {
			err = webFlow.ent.Serialize(w)
		}
		if err == nil {
			err = w.Close()
		}
		webFlow.pub, webFlow.err = buf.String(), err
	})
	return webFlow.ent, webFlow.err
}

// WebFlowPublicKey returns the armored public key the fake signs
// GitHub-signed commits with (App commits without author or committer).
func WebFlowPublicKey() (string, error) {
	if _, err := webFlowKey(); err != nil {
		return "", err
	}
	return webFlow.pub, nil
}

// githubCommitter is the committer of commits GitHub signs.
var githubCommitter = object.Signature{Name: "GitHub", Email: "noreply@github.com"}

// signAsGitHub makes c a commit GitHub signed, as it does for commits an App
// creates without author or committer (and for contents-API and GraphQL
// commits): committer "GitHub <noreply@github.com>", a gpgsig header with a
// detached signature over the commit, and a verified verification with that
// signature and payload. It must run before c is stored.
func signAsGitHub(c *object.Commit, at time.Time) (verification, error) {
	ent, err := webFlowKey()
	if err != nil {
		return verification{}, err
	}
	c.Committer = githubCommitter
	c.Committer.When = at
	c.PGPSignature = ""
	payload := commitPayload(c)
	var sig bytes.Buffer
	cfg := &packet.Config{Time: func() time.Time { return at }}
	if err := openpgp.ArmoredDetachSign(&sig, ent, strings.NewReader(payload), cfg); err != nil {
		return verification{}, err
	}
	armored := sig.String()
	if !strings.HasSuffix(armored, "\n") {
		armored += "\n"
	}
	c.PGPSignature = armored
	stamp := at.UTC().Format(time.RFC3339)
	return verification{Verified: true, Reason: "valid", Signature: &armored, Payload: &payload, VerifiedAt: &stamp}, nil
}
