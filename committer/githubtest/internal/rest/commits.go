package rest

import (
	"net/http"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/sign"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// SigIn is the author or committer of a create-commit or create-tag request
// (and of the contents API's writes).
type SigIn struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

// ToSig converts a request signature; ok is false when the date is invalid.
func (in *SigIn) ToSig(now time.Time) (object.Signature, bool) {
	sig := object.Signature{Name: in.Name, Email: in.Email, When: now}
	if in.Date != "" {
		t, err := time.Parse(time.RFC3339, in.Date)
		if err != nil {
			return sig, false
		}
		sig.When = t
	}
	return sig, true
}

// CreateCommit answers POST /repos/{owner}/{repo}/git/commits.
func (rh *Handler) CreateCommit(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var body struct {
		Message   *string  `json:"message"`
		Tree      string   `json:"tree"`
		Parents   []string `json:"parents"`
		Author    *SigIn   `json:"author"`
		Committer *SigIn   `json:"committer"`
		Signature *string  `json:"signature"`
	}
	if !wire.DecodeBody(w, r, &body, docCreateCmt) {
		return
	}
	fail := func(msg string) { wire.WriteError(w, r, http.StatusUnprocessableEntity, msg, docCreateCmt) }
	if body.Message == nil {
		fail("Invalid request.\n\n\"message\" wasn't supplied.")
		return
	}
	if body.Tree == "" {
		fail("Invalid request.\n\n\"tree\" wasn't supplied.")
		return
	}
	now := rh.Now()
	id := wire.IdentOf(r)
	author, committer, msg := commitSigs(id, body.Author, body.Committer, now)
	if msg != "" {
		fail(msg)
		return
	}

	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	if rp.Empty() {
		wire.WriteError(w, r, http.StatusConflict, wire.MsgEmptyRepo, docCreateCmt)
		return
	}
	tree := plumbing.NewHash(body.Tree)
	if _, ok := rp.Trees[tree]; !ok || len(body.Tree) != 40 {
		fail("Tree SHA does not exist")
		return
	}
	c := &object.Commit{Author: author, Committer: committer, Message: *body.Message, TreeHash: tree}
	if c.ParentHashes, msg = rp.Parents(body.Parents); msg != "" {
		fail(msg)
		return
	}
	v := wire.UnsignedVerification()
	switch {
	case body.Signature != nil && *body.Signature != "":
		c.PGPSignature = *body.Signature
		v = rh.VerifySig(sign.CommitPayload(c), *body.Signature, c.Committer.Email, now)
	case id.Installation != 0 && body.Author == nil && body.Committer == nil:
		// GitHub signs what an App commits without author or committer.
		c.Committer = sign.WebFlowCommitter(now)
		if _, err := rp.PutSignedCommit(c, now); err != nil {
			wire.WriteError(w, r, http.StatusInternalServerError, "Server Error", docCreateCmt)
			return
		}
	}
	h := rp.PutCommit(c)
	if _, ok := rp.Verif[h]; !ok {
		rp.Verif[h] = v
	}
	out := wire.GitCommitJSON(r, rp, rp.Commits[h])
	w.Header().Set("Location", out["url"].(string))
	wire.WriteJSON(w, r, http.StatusCreated, out)
}

// commitSigs resolves create-commit's author and committer (the token's
// user by default), or returns GitHub's message for a bad date.
func commitSigs(id state.Identity, a, c *SigIn, now time.Time) (author, committer object.Signature, msg string) {
	author = object.Signature{Name: id.Name, Email: id.Email, When: now}
	if a != nil {
		var ok bool
		if author, ok = a.ToSig(now); !ok {
			return author, committer, "Invalid request.\n\nauthor.date is not a valid date-time."
		}
	}
	committer = author
	if c != nil {
		var ok bool
		if committer, ok = c.ToSig(now); !ok {
			return author, committer, "Invalid request.\n\ncommitter.date is not a valid date-time."
		}
	} else if a == nil {
		committer.When = now
	}
	return author, committer, ""
}

// GetCommit answers GET /repos/{owner}/{repo}/git/commits/{sha}.
func (rh *Handler) GetCommit(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	if rp.Empty() {
		wire.WriteError(w, r, http.StatusConflict, wire.MsgEmptyRepo, docGetCmt)
		return
	}
	sha := r.PathValue("sha")
	c, ok := rp.Commits[plumbing.NewHash(sha)]
	if !ok || len(sha) != 40 {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", wire.DocRoot)
		return
	}
	wire.WriteJSON(w, r, http.StatusOK, wire.GitCommitJSON(r, rp, c))
}
