package rest

import (
	"net/http"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// Annotated tags over REST, as GitHub serves them: POST git/tags creates the
// tag object only (a ref under refs/tags/ is a separate POST git/refs, so
// tag plus ref is not atomic over REST), GET git/tags/{sha} reads it. Tags
// made through the API are unsigned ("verification": unsigned).

const (
	docCreateTag = "https://docs.github.com/rest/git/tags#create-a-tag-object"
	docGetTag    = "https://docs.github.com/rest/git/tags#get-a-tag"
)

// CreateTag answers POST /repos/{owner}/{repo}/git/tags.
func (rh *Handler) CreateTag(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var body struct {
		Tag     *string `json:"tag"`
		Message *string `json:"message"`
		Object  *string `json:"object"`
		Type    *string `json:"type"`
		Tagger  *SigIn  `json:"tagger"`
	}
	if !wire.DecodeBody(w, r, &body, docCreateTag) {
		return
	}
	fail := func(msg string) { wire.WriteError(w, r, http.StatusUnprocessableEntity, msg, docCreateTag) }
	for _, f := range []struct {
		name string
		v    *string
	}{{"tag", body.Tag}, {"message", body.Message}, {"object", body.Object}, {"type", body.Type}} {
		if f.v == nil {
			fail("Invalid request.\n\n\"" + f.name + "\" wasn't supplied.")
			return
		}
	}
	want, err := plumbing.ParseObjectType(*body.Type)
	if err != nil || (want != plumbing.CommitObject && want != plumbing.TreeObject && want != plumbing.BlobObject) {
		fail("Invalid request.\n\n" + *body.Type + " is not a member of [\"commit\", \"tree\", \"blob\"].")
		return
	}
	now := rh.Now()
	id := wire.IdentOf(r)
	tagger := object.Signature{Name: id.Name, Email: id.Email, When: now}
	if body.Tagger != nil {
		if body.Tagger.Name == "" || body.Tagger.Email == "" {
			fail("Invalid request.\n\n\"name\" and \"email\" are required in tagger.") // wording a guess
			return
		}
		var ok bool
		if tagger, ok = body.Tagger.ToSig(now); !ok {
			fail("Invalid request.\n\ntagger.date is not a valid date-time.")
			return
		}
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	if rp.Empty() {
		wire.WriteError(w, r, http.StatusConflict, wire.MsgEmptyRepo, docCreateTag)
		return
	}
	target := plumbing.NewHash(*body.Object)
	if len(*body.Object) != 40 || rp.ObjType(target) == plumbing.InvalidObject {
		fail("Object does not exist")
		return
	}
	if got := rp.ObjType(target); got != want {
		// Wording a guess: GitHub's reply to a type that does not match the
		// object is not recorded.
		fail("Object type " + got.String() + " does not match the given type " + want.String())
		return
	}
	h := rp.PutTag(&object.Tag{Name: *body.Tag, Tagger: tagger, Message: *body.Message, TargetType: want, Target: target})
	out := gitTagJSON(r, rp, rp.Tags[h])
	w.Header().Set("Location", out["url"].(string))
	wire.WriteJSON(w, r, http.StatusCreated, out)
}

// GetTag answers GET /repos/{owner}/{repo}/git/tags/{sha}.
func (rh *Handler) GetTag(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	if rp.Empty() {
		wire.WriteError(w, r, http.StatusConflict, wire.MsgEmptyRepo, docGetTag)
		return
	}
	sha := r.PathValue("sha")
	t, ok := rp.Tags[plumbing.NewHash(sha)]
	if len(sha) != 40 || !ok {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docGetTag)
		return
	}
	wire.WriteJSON(w, r, http.StatusOK, gitTagJSON(r, rp, t))
}

// gitTagJSON is the git-tag shape. Caller holds mu.
func gitTagJSON(r *http.Request, rp *state.Repo, t *object.Tag) obj {
	sha := t.Hash.String()
	typ := t.TargetType.String()
	return obj{
		"node_id": wire.ObjNodeID(rp, "TAG", t.Hash), "tag": t.Name, "sha": sha,
		"url": wire.RepoURL(rp, r) + "/git/tags/" + sha, "message": t.Message, "tagger": wire.SigJSON(t.Tagger),
		"object":       obj{"sha": t.Target.String(), "type": typ, "url": wire.RepoURL(rp, r) + "/git/" + typ + "s/" + t.Target.String()},
		"verification": wire.UnsignedVerification(),
	}
}
