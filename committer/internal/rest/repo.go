package rest

import (
	"context"
	"net/http"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// Repo is what the library reads of a repository.
type Repo struct {
	DefaultBranch string
	NodeID        string
}

// Repository reads the repository (GET /repos/{owner}/{repo}). See
// https://docs.github.com/rest/repos/repos#get-a-repository.
func (c *Client) Repository(ctx context.Context) (Repo, error) {
	got, _, err := c.gh.Repositories.Get(ctx, c.owner, c.repo)
	if err != nil {
		return Repo{}, err
	}
	return Repo{DefaultBranch: got.GetDefaultBranch(), NodeID: got.GetNodeID()}, nil
}

// ContentsWrite is one contents-API write: the file's new Content (a put)
// or none (a delete), guarded by SHA, the blob it replaces ("" for a file
// that must be absent).
type ContentsWrite struct {
	Path      string
	Content   []byte
	SHA       string
	Message   string
	Branch    string
	Author    *object.Signature
	Committer *object.Signature
}

// ContentsCommit is the commit a contents write made.
type ContentsCommit struct {
	Commit string
	Tree   string
	Parent string // "" when the reply names none
}

// PutContents creates or updates a file (PUT contents/{path}), as
// go-github's CreateFile and UpdateFile do but with the path escaped. See
// https://docs.github.com/rest/repos/contents#create-or-update-file-contents.
func (c *Client) PutContents(ctx context.Context, w ContentsWrite) (ContentsCommit, error) {
	return c.contentsWrite(ctx, http.MethodPut, w)
}

// DeleteContents deletes a file (DELETE contents/{path}), as go-github's
// DeleteFile does but with the path escaped. See
// https://docs.github.com/rest/repos/contents#delete-a-file.
func (c *Client) DeleteContents(ctx context.Context, w ContentsWrite) (ContentsCommit, error) {
	w.Content = nil
	return c.contentsWrite(ctx, http.MethodDelete, w)
}

func (c *Client) contentsWrite(ctx context.Context, method string, w ContentsWrite) (ContentsCommit, error) {
	opts := &github.RepositoryContentFileOptions{Message: str(w.Message), Branch: str(w.Branch), Content: w.Content,
		Author: toAuthor(w.Author), Committer: toAuthor(w.Committer)}
	if w.SHA != "" {
		opts.SHA = str(w.SHA)
	}
	out := new(github.RepositoryContentResponse)
	if _, err := c.do(ctx, method, c.repoURL("contents", w.Path), opts, out); err != nil {
		return ContentsCommit{}, err
	}
	cc := ContentsCommit{Commit: out.Commit.GetSHA(), Tree: out.Commit.GetTree().GetSHA()}
	if len(out.Commit.Parents) > 0 {
		cc.Parent = out.Commit.Parents[0].GetSHA()
	}
	return cc, nil
}

// BranchRuleTypes lists the types of the rules active on branch (GET
// rules/branches/{branch}), each once. See
// https://docs.github.com/rest/repos/rules#get-rules-for-a-branch.
func (c *Client) BranchRuleTypes(ctx context.Context, branch string) ([]string, error) {
	var rules []struct {
		Type string `json:"type"`
	}
	if _, err := c.do(ctx, http.MethodGet, c.repoURL("rules/branches", branch), nil, &rules); err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range rules {
		if r.Type != "" && !seen[r.Type] {
			seen[r.Type] = true
			out = append(out, r.Type)
		}
	}
	return out, nil
}
