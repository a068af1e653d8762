package githubtest

import (
	"fmt"
	"io/fs"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func toCommit(c *object.Commit) Commit {
	out := Commit{
		SHA: c.Hash.String(), Tree: c.TreeHash.String(), Message: c.Message,
		Author:       Signature{Name: c.Author.Name, Email: c.Author.Email, Date: c.Author.When},
		Committer:    Signature{Name: c.Committer.Name, Email: c.Committer.Email, Date: c.Committer.When},
		PGPSignature: c.PGPSignature,
		Parents:      []string{},
	}
	for _, p := range c.ParentHashes {
		out.Parents = append(out.Parents, p.String())
	}
	return out
}

// Commit returns the commit with the given SHA.
func (s *Server) Commit(owner, name, sha string) (Commit, error) {
	rp := s.getRepo(owner, name)
	if rp == nil {
		return Commit{}, fmt.Errorf("githubtest: repository %s/%s: %w", owner, name, fs.ErrNotExist)
	}
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	c, ok := rp.Commits[plumbing.NewHash(sha)]
	if !ok {
		return Commit{}, fmt.Errorf("githubtest: %s/%s: commit %s: %w", owner, name, sha, fs.ErrNotExist)
	}
	return toCommit(c), nil
}

// History returns the first-parent chain from ref, newest first.
func (s *Server) History(owner, name, ref string) ([]Commit, error) {
	rp := s.getRepo(owner, name)
	if rp == nil {
		return nil, fmt.Errorf("githubtest: repository %s/%s: %w", owner, name, fs.ErrNotExist)
	}
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	h, ok := rp.Resolve(ref)
	if !ok {
		return nil, fmt.Errorf("githubtest: %s/%s@%s: %w", owner, name, ref, fs.ErrNotExist)
	}
	var out []Commit
	for {
		c, ok := rp.Commits[h]
		if !ok {
			break
		}
		out = append(out, toCommit(c))
		if len(c.ParentHashes) == 0 {
			break
		}
		h = c.ParentHashes[0]
	}
	return out, nil
}

// HasObject reports whether the repository holds an object with that SHA.
func (s *Server) HasObject(owner, name, sha string) bool {
	rp := s.getRepo(owner, name)
	if rp == nil || len(sha) != 40 {
		return false
	}
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	_, ok := rp.Objects[plumbing.NewHash(sha)]
	return ok
}

// RefUpdates returns every change to any ref of the repository, in order.
func (s *Server) RefUpdates(owner, name string) []RefUpdate {
	rp := s.getRepo(owner, name)
	if rp == nil {
		return nil
	}
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	return append([]RefUpdate(nil), rp.Updates...)
}
