package rest

import (
	"net/http"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/gitobj"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// MaxTreeEntries is where GitHub truncates recursive tree listings.
const MaxTreeEntries = 100000

type treeEntryIn struct {
	Path    string         `json:"path"`
	Mode    string         `json:"mode"`
	Type    string         `json:"type"`
	SHA     wire.OptString `json:"sha"`
	Content *string        `json:"content"`
}

type treeEntryOut struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Type string `json:"type"`
	SHA  string `json:"sha"`
	Size *int64 `json:"size,omitempty"`
	URL  string `json:"url,omitempty"`
}

func modeFor(mode, typ string) (filemode.FileMode, bool) {
	switch mode {
	case "100644":
		return filemode.Regular, true
	case "100755":
		return filemode.Executable, true
	case "040000", "40000":
		return filemode.Dir, true
	case "120000":
		return filemode.Symlink, true
	case "160000":
		return filemode.Submodule, true
	case "":
		switch typ {
		case "blob":
			return filemode.Regular, true
		case "tree":
			return filemode.Dir, true
		case "commit":
			return filemode.Submodule, true
		}
	}
	return 0, false
}

// CreateTree answers POST /repos/{owner}/{repo}/git/trees.
func (rh *Handler) CreateTree(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var body struct {
		Tree     *[]treeEntryIn `json:"tree"`
		BaseTree wire.OptString `json:"base_tree"`
	}
	if !wire.DecodeBody(w, r, &body, docCreateTree) {
		return
	}
	if body.Tree == nil {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Invalid request.\n\n\"tree\" wasn't supplied.", docCreateTree)
		return
	}
	fail := func(msg string) { wire.WriteError(w, r, http.StatusUnprocessableEntity, msg, docCreateTree) }
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	if rp.Empty() {
		wire.WriteError(w, r, http.StatusConflict, wire.MsgEmptyRepo, docCreateTree)
		return
	}
	if rh.TreeMax.TimesOut(*body.Tree) {
		fail(msgTreeTimeout)
		return
	}
	var base plumbing.Hash
	if body.BaseTree.Set && !body.BaseTree.Null {
		var ok bool
		if base, ok = rp.BaseTree(body.BaseTree.Val); !ok {
			fail("base_tree is not a valid tree oid")
			return
		}
	}
	rh.buildTree(w, r, rp, base, *body.Tree)
}

// buildTree applies the entries on base and writes the new tree. Caller
// holds rp.mu.
func (rh *Handler) buildTree(w http.ResponseWriter, r *http.Request, rp *state.Repo, base plumbing.Hash, tree []treeEntryIn) {
	fail := func(msg string) { wire.WriteError(w, r, http.StatusUnprocessableEntity, msg, docCreateTree) }
	b := gitobj.NewTreeBuilder(&rp.Store, base)
	for _, e := range tree {
		if !gitobj.ValidPath(e.Path) {
			fail("tree.path contains a malformed path component")
			return
		}
		hasSHA := e.SHA.Set
		if hasSHA == (e.Content != nil) {
			fail("Must supply either tree.sha or tree.content. Request will be rejected if both are present.")
			return
		}
		if e.SHA.Null {
			if err := b.Del(e.Path); err != nil {
				fail("GitRPC::BadObjectState")
				return
			}
			continue
		}
		mode, ok := modeFor(e.Mode, e.Type)
		if !ok {
			fail("Invalid request.\n\nFor 'properties/mode', \"" + e.Mode + "\" is not a valid tree mode.")
			return
		}
		if e.Content != nil {
			if mode == filemode.Dir || mode == filemode.Submodule {
				fail("tree.content is only valid for blobs")
				return
			}
			b.Set(e.Path, mode, rp.PutBlob([]byte(*e.Content)))
			continue
		}
		h := plumbing.NewHash(e.SHA.Val)
		switch {
		case mode == filemode.Submodule:
			if len(e.SHA.Val) != 40 {
				fail("tree.sha " + e.SHA.Val + " is not a valid commit")
				return
			}
		case mode == filemode.Dir:
			if _, ok := rp.Trees[h]; !ok || len(e.SHA.Val) != 40 {
				fail("tree.sha " + e.SHA.Val + " is not a valid tree")
				return
			}
		default:
			if rp.ObjType(h) != plumbing.BlobObject || len(e.SHA.Val) != 40 {
				fail("tree.sha " + e.SHA.Val + " is not a valid blob")
				return
			}
		}
		b.Set(e.Path, mode, h)
	}
	h, err := b.Write()
	if err != nil {
		wire.WriteError(w, r, http.StatusInternalServerError, err.Error(), docCreateTree)
		return
	}
	out := treeJSON(rp, r, h, false)
	w.Header().Set("Location", out["url"].(string))
	wire.WriteJSON(w, r, http.StatusCreated, out)
}

// treeJSON is the git-tree shape. Caller holds rp.mu.
func treeJSON(rp *state.Repo, r *http.Request, h plumbing.Hash, recursive bool) obj {
	base := wire.RepoURL(rp, r)
	entries := make([]treeEntryOut, 0, len(rp.Trees[h]))
	truncated := false
	size := 0
	add := func(p string, e object.TreeEntry) bool {
		if len(entries) >= MaxTreeEntries {
			truncated = true
			return false
		}
		out := treeEntryOut{Path: p, Mode: gitobj.ModeString(e.Mode), Type: gitobj.TypeOfMode(e.Mode), SHA: e.Hash.String()}
		switch e.Mode {
		case filemode.Dir:
			out.URL = base + "/git/trees/" + out.SHA
		case filemode.Submodule:
		default:
			if o, ok := rp.Objects[e.Hash]; ok {
				sz := o.Size()
				out.Size = &sz
			}
			out.URL = base + "/git/blobs/" + out.SHA
		}
		if size += entryJSONSize(out); recursive && size > maxTreeBytes {
			truncated = true
			return false
		}
		entries = append(entries, out)
		return true
	}
	if recursive {
		rp.WalkTree(h, "", add)
	} else {
		for _, e := range rp.Trees[h] {
			add(e.Name, e)
		}
	}
	return obj{"sha": h.String(), "url": base + "/git/trees/" + h.String(), "tree": entries, "truncated": truncated}
}

// GetTree answers GET /repos/{owner}/{repo}/git/trees/{sha} (recursive with ?recursive).
func (rh *Handler) GetTree(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	if rp.Empty() {
		wire.WriteError(w, r, http.StatusConflict, wire.MsgEmptyRepo, docGetTree)
		return
	}
	h, ok := rp.ResolveTree(r.PathValue("sha"))
	if !ok {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", wire.DocRoot)
		return
	}
	wire.WriteJSON(w, r, http.StatusOK, treeJSON(rp, r, h, r.URL.Query().Has("recursive")))
}
