package githubtest

import (
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/gitobj"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// File is one file for Seed and the result of Files.
type File struct {
	Path    string
	Content []byte
	Mode    string // "" = "100644"; "100755"; "120000" symlink (Content is the target)
}

// Signature is a commit author or committer.
type Signature struct {
	Name, Email string
	Date        time.Time
}

// Commit is a decoded commit object.
type Commit struct {
	SHA, Tree, Message string
	Parents            []string
	Author, Committer  Signature
	PGPSignature       string
}

// RefUpdate is one change to a ref. Old is "" for a create, New is "" for a
// delete.
type RefUpdate = state.RefUpdate

func repoKey(owner, name string) string { return strings.ToLower(owner + "/" + name) }

func (s *Server) getRepo(owner, name string) *state.Repo {
	s.mu.Lock()
	rp := s.repos[repoKey(owner, name)]
	s.mu.Unlock()
	settle(rp) // checks.go
	return rp
}

func (s *Server) addRepo(owner, name string, private bool) (*state.Repo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := repoKey(owner, name)
	if rp, ok := s.repos[k]; ok {
		return rp, false
	}
	s.nextID++
	rp := state.NewRepo(owner, name, s.nextID, s.now())
	rp.Private = private
	if s.mergeDefaults != nil {
		rp.Merge = *s.mergeDefaults
	}
	rp.MergeLag, rp.Clock = s.mergeLag, s.now
	rp.Checks.Auto = append(rp.Checks.Auto, s.autoChecks...)
	s.repos[k] = rp
	return rp, true
}

var seedSig = Signature{Name: "githubtest", Email: "githubtest@example.com"}

// CreateRepo creates a repository whose default branch is "main". With
// autoInit it gets a root commit holding README.md; otherwise it is empty
// (no commits, no refs). It fails if the repository exists.
func (s *Server) CreateRepo(owner, name string, autoInit bool) error {
	_, created := s.addRepo(owner, name, false)
	if !created {
		return fmt.Errorf("githubtest: repository %s/%s already exists", owner, name)
	}
	if autoInit {
		_, err := s.Seed(owner, name, "main", "Initial commit",
			File{Path: "README.md", Content: []byte("# " + name + "\n")})
		return err
	}
	return nil
}

func parseMode(m string) (filemode.FileMode, error) {
	switch m {
	case "", "100644":
		return filemode.Regular, nil
	case "100755":
		return filemode.Executable, nil
	case "120000":
		return filemode.Symlink, nil
	}
	return 0, fmt.Errorf("githubtest: unsupported file mode %q", m)
}

// Seed commits files on top of branch (a root commit if the branch does not
// exist) and fast-forwards the branch. It creates the repository if needed;
// a repository created by Seed has branch as its default branch.
func (s *Server) Seed(owner, name, branch, message string, files ...File) (string, error) {
	rp, created := s.addRepo(owner, name, false)
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	if created {
		rp.DefaultBranch = branch
	}
	ref := "refs/heads/" + branch
	old, hasOld := rp.Refs[ref]
	var base plumbing.Hash
	if hasOld {
		base = rp.Commits[old].TreeHash
	}
	b := gitobj.NewTreeBuilder(&rp.Store, base)
	for _, f := range files {
		if !gitobj.ValidPath(f.Path) {
			return "", fmt.Errorf("githubtest: seed %s/%s: invalid path %q", owner, name, f.Path)
		}
		m, err := parseMode(f.Mode)
		if err != nil {
			return "", err
		}
		b.Set(f.Path, m, rp.PutBlob(f.Content))
	}
	tree, err := b.Write()
	if err != nil {
		return "", err
	}
	now := s.now()
	sig := object.Signature{Name: seedSig.Name, Email: seedSig.Email, When: now}
	c := &object.Commit{Author: sig, Committer: sig, Message: message, TreeHash: tree}
	if hasOld {
		c.ParentHashes = []plumbing.Hash{old}
	}
	h := rp.PutCommit(c)
	rp.Verif[h] = wire.UnsignedVerification()
	rp.SetRef(ref, h, false, now)
	return h.String(), nil
}

// Head returns the commit a branch points at.
func (s *Server) Head(owner, name, branch string) (string, bool) {
	rp := s.getRepo(owner, name)
	if rp == nil {
		return "", false
	}
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	h, ok := rp.Refs["refs/heads/"+branch]
	if !ok {
		return "", false
	}
	return h.String(), true
}

func (s *Server) rootAt(owner, name, ref string) (*state.Repo, plumbing.Hash, error) {
	rp := s.getRepo(owner, name)
	if rp == nil {
		return nil, plumbing.ZeroHash, fmt.Errorf("githubtest: repository %s/%s: %w", owner, name, fs.ErrNotExist)
	}
	rp.Mu.RLock()
	t, ok := rp.ResolveTree(ref)
	rp.Mu.RUnlock()
	if !ok {
		return nil, plumbing.ZeroHash, fmt.Errorf("githubtest: %s/%s@%s: %w", owner, name, ref, fs.ErrNotExist)
	}
	return rp, t, nil
}

// ReadFile returns the content and mode of path at ref (a branch or a SHA).
func (s *Server) ReadFile(owner, name, ref, path string) ([]byte, string, error) {
	rp, root, err := s.rootAt(owner, name, ref)
	if err != nil {
		return nil, "", err
	}
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	e, ok := rp.LookupPath(root, path)
	if !ok || e.Mode == filemode.Dir || e.Mode == filemode.Submodule {
		return nil, "", fmt.Errorf("githubtest: %s/%s@%s: %s: %w", owner, name, ref, path, fs.ErrNotExist)
	}
	b, _ := rp.Blob(e.Hash)
	return b, gitobj.ModeString(e.Mode), nil
}

// Files returns every file (recursively) at ref.
func (s *Server) Files(owner, name, ref string) (map[string]File, error) {
	rp, root, err := s.rootAt(owner, name, ref)
	if err != nil {
		return nil, err
	}
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	out := map[string]File{}
	rp.WalkTree(root, "", func(p string, e object.TreeEntry) bool {
		if e.Mode != filemode.Dir && e.Mode != filemode.Submodule {
			b, _ := rp.Blob(e.Hash)
			out[p] = File{Path: p, Content: b, Mode: gitobj.ModeString(e.Mode)}
		}
		return true
	})
	return out, nil
}
