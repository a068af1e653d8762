package githubtest

import (
	"bytes"
	"strings"
	"sync"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
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

const (
	webFlowName  = "GitHub"
	webFlowEmail = "noreply@github.com"
)

var (
	webFlowOnce sync.Once
	webFlowKey  *openpgp.Entity
	webFlowErr  error
)

func webFlowEntity() (*openpgp.Entity, error) {
	webFlowOnce.Do(func() {
		cfg := &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA}
		webFlowKey, webFlowErr = openpgp.NewEntity(webFlowName, "web-flow commit signing, githubtest", webFlowEmail, cfg)
	})
	return webFlowKey, webFlowErr
}

// webFlowCommitter is the committer GitHub writes on commits it signs.
func webFlowCommitter(when time.Time) object.Signature {
	return object.Signature{Name: webFlowName, Email: webFlowEmail, When: when}
}

// putSignedCommit signs c as GitHub's web flow, stores it with a Verified
// verification and returns its hash. Caller holds rp.mu for writing.
func (rp *repo) putSignedCommit(c *object.Commit, now time.Time) (plumbing.Hash, error) {
	key, err := webFlowEntity()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	c.PGPSignature = ""
	payload := commitPayload(c)
	var sig bytes.Buffer
	if err := openpgp.ArmoredDetachSign(&sig, key, strings.NewReader(payload), nil); err != nil {
		return plumbing.ZeroHash, err
	}
	c.PGPSignature = sig.String()
	if !strings.HasSuffix(c.PGPSignature, "\n") {
		c.PGPSignature += "\n"
	}
	h := rp.PutCommit(c)
	signature := c.PGPSignature
	at := now.UTC().Format(time.RFC3339)
	rp.verif[h] = verification{Verified: true, Reason: "valid", Signature: &signature, Payload: &payload, VerifiedAt: &at}
	return h, nil
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
