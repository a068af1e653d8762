package rest

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/gitobj"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rules"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/sign"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// Contents API writes (PUT and DELETE /repos/{o}/{r}/contents/{path}).
// GitHub builds the commit on the branch's head as it reads it and then moves
// the branch with a compare-and-swap: when the branch moved in between (a
// parallel contents write, or any other writer) it answers 409 "is at <now>
// but expected <read>". The fake has the same window: it reads and builds
// under the repository's lock, lets go of it, and takes it again for the
// compare-and-swap, so parallel writes to one branch conflict as they do on
// GitHub, and MoveBranchDuringNextContentsWrite makes one conflict happen.
// The commits are GitHub's own: committed and signed by GitHub and Verified
// for any token, unless the request names a committer.

type contentsWrite struct {
	Message   *string `json:"message"`
	Content   *string `json:"content"`
	SHA       string  `json:"sha"`
	Branch    string  `json:"branch"`
	Author    *SigIn  `json:"author"`
	Committer *SigIn  `json:"committer"`
}

// contentsOp is one decoded contents write; data is nil for a delete.
type contentsOp struct {
	path, doc string
	data      []byte
	del       bool
	body      contentsWrite
}

// contentsResult is what a write did: a commit, or an error reply.
type contentsResult struct {
	status int
	msg    string
	branch string
	entry  object.TreeEntry
	commit *object.Commit
}

// PutContent answers PUT /repos/{owner}/{repo}/contents/{path}.
func (rh *Handler) PutContent(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var body contentsWrite
	if !wire.DecodeBody(w, r, &body, docContents) {
		return
	}
	op := contentsOp{path: strings.Trim(r.PathValue("path"), "/"), doc: docContents, body: body}
	fail := func(st int, msg string) { wire.WriteError(w, r, st, msg, docContents) }
	switch {
	case body.Message == nil:
		fail(422, "Invalid request.\n\n\"message\" wasn't supplied.")
		return
	case body.Content == nil:
		fail(422, "Invalid request.\n\n\"content\" wasn't supplied.")
		return
	case !gitobj.ValidPath(op.path):
		fail(422, "path contains a malformed path component")
		return
	}
	data, err := base64.StdEncoding.DecodeString(*body.Content)
	if err != nil {
		fail(422, "content is not valid Base64")
		return
	}
	op.data = data
	res := rh.writeContents(r, rp, op)
	if res.commit == nil {
		fail(res.status, res.msg)
		return
	}
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	wire.WriteJSON(w, r, res.status, obj{
		"content": ContentEntry(r, rp, res.branch, op.path, res.entry),
		"commit":  wire.GitCommitJSON(r, rp, res.commit),
	})
}

// DeleteContent answers DELETE /repos/{owner}/{repo}/contents/{path}.
func (rh *Handler) DeleteContent(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var body contentsWrite
	if !wire.DecodeBody(w, r, &body, docDelContent) {
		return
	}
	fail := func(st int, msg string) { wire.WriteError(w, r, st, msg, docDelContent) }
	if body.Message == nil {
		fail(422, "Invalid request.\n\n\"message\" wasn't supplied.")
		return
	}
	if body.SHA == "" {
		fail(422, "Invalid request.\n\n\"sha\" wasn't supplied.")
		return
	}
	op := contentsOp{path: strings.Trim(r.PathValue("path"), "/"), doc: docDelContent, del: true, body: body}
	res := rh.writeContents(r, rp, op)
	if res.commit == nil {
		fail(res.status, res.msg)
		return
	}
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	wire.WriteJSON(w, r, http.StatusOK, obj{"content": nil, "commit": wire.GitCommitJSON(r, rp, res.commit)})
}

// writeContents builds the commit on the head it reads, then moves the
// branch only if it still points there.
func (rh *Handler) writeContents(r *http.Request, rp *state.Repo, op contentsOp) contentsResult {
	rp.Mu.Lock()
	ref, head, res := rh.buildContents(r, rp, op)
	if res.commit == nil || head.IsZero() {
		if res.commit != nil { // the first commit of an empty repository
			if e := state.Refusal(rp, wire.IdentOf(r), rules.Change{Ref: ref, New: res.commit.Hash}); e != nil {
				rp.Mu.Unlock()
				return contentsResult{status: http.StatusConflict, msg: e.RestMessage(true)}
			}
			rp.SetRef(ref, res.commit.Hash, false, rh.Now())
		}
		rp.Mu.Unlock()
		return res
	}
	rp.Mu.Unlock()
	rh.ContentsRaces.Run(rp.FullName(), ref)
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	if now := rp.Refs[ref]; now != head {
		return contentsResult{status: http.StatusConflict, msg: "is at " + now.String() + " but expected " + head.String()}
	}
	if e := state.Refusal(rp, wire.IdentOf(r), rules.Change{Ref: ref, Old: head, New: res.commit.Hash}); e != nil {
		return contentsResult{status: http.StatusConflict, msg: e.RestMessage(true)}
	}
	rp.SetRef(ref, res.commit.Hash, false, rh.Now())
	return res
}

// buildContents checks the write against the head and stores its commit.
// Caller holds rp.mu for writing.
func (rh *Handler) buildContents(r *http.Request, rp *state.Repo, op contentsOp) (string, plumbing.Hash, contentsResult) {
	ref, head, root, ok := rp.ContentsBranch(op.body.Branch)
	branch := strings.TrimPrefix(ref, "refs/heads/")
	if !ok || (op.del && head.IsZero()) {
		return ref, head, contentsResult{status: 404, msg: "Branch " + branch + " not found"}
	}
	res := contentsResult{status: http.StatusCreated, branch: branch}
	e, exists := rp.LookupPath(root, op.path)
	exists = exists && !head.IsZero()
	switch {
	case op.del && (!exists || e.Mode == filemode.Dir):
		return ref, head, contentsResult{status: 404, msg: "Not Found"}
	case exists && e.Mode == filemode.Dir:
		return ref, head, contentsResult{status: 422, msg: "Invalid request.\n\n\"" + op.path + "\" is a directory."}
	case exists && op.body.SHA == "":
		return ref, head, contentsResult{status: 422, msg: "Invalid request.\n\n\"sha\" wasn't supplied."}
	case exists && op.body.SHA != e.Hash.String():
		return ref, head, contentsResult{status: 409, msg: op.path + " does not match " + op.body.SHA}
	case exists:
		res.status = http.StatusOK
	}
	b := gitobj.NewTreeBuilder(&rp.Store, root)
	if op.del {
		_ = b.Del(op.path)
	} else {
		mode := filemode.Regular
		if exists && e.Mode == filemode.Executable {
			mode = filemode.Executable
		}
		res.entry = object.TreeEntry{Name: op.path, Mode: mode, Hash: rp.PutBlob(op.data)}
		b.Set(op.path, mode, res.entry.Hash)
	}
	tree, err := b.Write()
	if err != nil {
		return ref, head, contentsResult{status: 500, msg: err.Error()}
	}
	c, err := rh.contentsCommit(r, rp, head, tree, op.body)
	if err != nil {
		return ref, head, contentsResult{status: 500, msg: err.Error()}
	}
	res.commit = c
	return ref, head, res
}

// contentsCommit stores the commit of a contents write without moving the
// branch: GitHub's own, signed and Verified, unless a committer is named
// (then it is unsigned, as GitHub cannot sign for someone else). Caller
// holds rp.mu for writing.
func (rh *Handler) contentsCommit(r *http.Request, rp *state.Repo, head, tree plumbing.Hash, body contentsWrite) (*object.Commit, error) {
	now := rh.Now()
	id := wire.IdentOf(r)
	author := object.Signature{Name: id.Name, Email: id.Email, When: now}
	if body.Author != nil {
		author, _ = body.Author.ToSig(now)
	}
	c := &object.Commit{Author: author, Committer: sign.WebFlowCommitter(now), Message: *body.Message, TreeHash: tree}
	if !head.IsZero() {
		c.ParentHashes = []plumbing.Hash{head}
	}
	if body.Committer != nil {
		c.Committer, _ = body.Committer.ToSig(now)
		h := rp.PutCommit(c)
		if _, ok := rp.Verif[h]; !ok {
			rp.Verif[h] = wire.UnsignedVerification()
		}
		return rp.Commits[h], nil
	}
	h, err := rp.PutSignedCommit(c, now)
	if err != nil {
		return nil, err
	}
	return rp.Commits[h], nil
}
