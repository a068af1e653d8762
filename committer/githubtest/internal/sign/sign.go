// Package sign is the fake GitHub's commit signing and signature checks:
// the web-flow key it signs GitHub-made commits with, the verification
// GitHub shows, and the check of a commit a client signed against the
// registered GPG keys.
package sign

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	pgperrors "github.com/ProtonMail/go-crypto/openpgp/errors"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// GitHub signs the commits it makes itself (GraphQL createCommitOnBranch,
// contents-API writes, and App commits without a custom author) with its
// "web-flow" key and shows them Verified, whoever the token belongs to; the
// committer is GitHub <noreply@github.com>. The fake signs with a key of its
// own, made once per process: the signature is real OpenPGP over the commit
// as git stores it, so a client that checks it can.

// The web-flow committer GitHub writes on commits it signs.
const (
	webFlowName  = "GitHub"
	WebFlowEmail = "noreply@github.com"
)

var (
	webFlowOnce sync.Once
	webFlowKey  *openpgp.Entity
	webFlowErr  error
)

func webFlowEntity() (*openpgp.Entity, error) {
	webFlowOnce.Do(func() {
		cfg := &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA}
		webFlowKey, webFlowErr = openpgp.NewEntity(webFlowName, "web-flow commit signing, githubtest", WebFlowEmail, cfg)
	})
	return webFlowKey, webFlowErr
}

// WebFlowCommitter is the committer GitHub writes on commits it signs.
func WebFlowCommitter(when time.Time) object.Signature {
	return object.Signature{Name: webFlowName, Email: WebFlowEmail, When: when}
}

// Verification is a commit's "Verification" as GitHub shows it.
type Verification struct {
	Verified   bool    `json:"verified"`
	Reason     string  `json:"reason"`
	Signature  *string `json:"signature"`
	Payload    *string `json:"payload"`
	VerifiedAt *string `json:"verified_at"`
}

// WebFlowSign signs c as GitHub's web flow (setting its PGPSignature) and
// returns its Verified verification.
func WebFlowSign(c *object.Commit, now time.Time) (Verification, error) {
	key, err := webFlowEntity()
	if err != nil {
		return Verification{}, err
	}
	c.PGPSignature = ""
	payload := CommitPayload(c)
	var sig bytes.Buffer
	if err := openpgp.ArmoredDetachSign(&sig, key, strings.NewReader(payload), nil); err != nil {
		return Verification{}, err
	}
	c.PGPSignature = sig.String()
	if !strings.HasSuffix(c.PGPSignature, "\n") {
		c.PGPSignature += "\n"
	}
	signature := c.PGPSignature
	at := now.UTC().Format(time.RFC3339)
	return Verification{Verified: true, Reason: "valid", Signature: &signature, Payload: &payload, VerifiedAt: &at}, nil
}

// WebFlowPublicKey returns the armored public key the fake signs GitHub-made
// commits with (GitHub publishes its own at https://github.com/web-flow.gpg).
func WebFlowPublicKey() (string, error) {
	key, err := webFlowEntity()
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	w, err := armor.Encode(&buf, openpgp.PublicKeyType, nil)
	if err != nil {
		return "", err
	}
	if err := key.Serialize(w); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// CommitPayload is the commit as git writes it, without the signature: what
// a signature signs.
func CommitPayload(c *object.Commit) string {
	o := &plumbing.MemoryObject{}
	if err := c.EncodeWithoutSignature(o); err != nil {
		return ""
	}
	rd, _ := o.Reader()
	defer rd.Close()
	var buf bytes.Buffer
	_, _ = io.Copy(&buf, rd)
	return buf.String()
}

// GPG keys registered with the fake, as a user adds them to their GitHub
// account: a commit sent with a signature (POST git/commits "signature") is
// Verified when the signature checks against a registered key and the
// committer's email is one of that key's identities, as GitHub requires.
// Otherwise its verification says why, with GitHub's reasons: "unknown_key"
// (no registered key made it), "bad_email" (the key does not carry the
// committer's email), "invalid" (it does not check).

// VerifyClient is the verification of a commit a client signed, checked
// against keys.
func VerifyClient(keys openpgp.EntityList, payload, signature, committerEmail string, now time.Time) Verification {
	sig, pl := signature, payload
	v := Verification{Reason: "unknown_key", Signature: &sig, Payload: &pl}
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
