package githubtest

import (
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// putSignedCommit signs c as GitHub's web flow, stores it with a Verified
// verification and returns its hash. Caller holds rp.mu for writing.
func (rp *repo) putSignedCommit(c *object.Commit, now time.Time) (plumbing.Hash, error) {
	v, err := webFlowSign(c, now)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h := rp.PutCommit(c)
	rp.verif[h] = v
	return h, nil
}

// WebFlowPublicKey returns the armored public key the fake signs GitHub-made
// commits with (GitHub publishes its own at https://github.com/web-flow.gpg).
func WebFlowPublicKey() (string, error) { return webFlowPublicKey() }
