package rest

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// Head is a branch head as GET branches/{b} returns it.
type Head struct {
	Name   string // the branch the reply is about ("" when Redirect)
	Commit string
	Tree   string // "" when the reply has none
	// Redirect is set when GitHub answered with a redirect, which is never
	// followed: Location is where it pointed.
	Redirect bool
	Location string
	// Age is how long before the reply (its Date header) the head commit
	// was committed (its committer date), -1 when the reply does not say.
	Age time.Duration
}

// Branch reads a branch's head in one request (GET branches/{b}), never
// following a redirect to another branch. Not Repositories.GetBranch: in
// go-github v66 it bypasses Client.Do, so its errors are untyped and rate
// limits go unrecorded. See
// https://docs.github.com/rest/branches/branches#get-a-branch.
func (c *Client) Branch(ctx context.Context, branch string) (Head, error) {
	b := new(github.Branch)
	resp, err := c.do(branchRead(ctx, branch), http.MethodGet, c.repoURL("branches", branch), nil, b)
	if resp != nil && resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return Head{Redirect: true, Location: resp.Header.Get("Location")}, nil
	}
	if err != nil {
		return Head{}, err
	}
	h := Head{Name: b.GetName(), Commit: b.GetCommit().GetSHA(), Tree: b.GetCommit().GetCommit().GetTree().GetSHA(), Age: -1}
	if at, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		if when := b.GetCommit().GetCommit().GetCommitter().GetDate(); !when.IsZero() && !when.After(at) {
			h.Age = at.Sub(when.Time)
		}
	}
	return h, nil
}

// BranchProtected reports GET branches/{branch}'s protected (classic
// protection or rules).
func (c *Client) BranchProtected(ctx context.Context, branch string) (bool, error) {
	b := new(github.Branch)
	if _, err := c.do(branchRead(ctx, branch), http.MethodGet, c.repoURL("branches", branch), nil, b); err != nil {
		return false, err
	}
	return b.GetProtected(), nil
}

// ListHeads lists the branches (GET git/matching-refs/heads/): an empty
// repository answers 409 "Git Repository is empty.".
func (c *Client) ListHeads(ctx context.Context) error {
	_, _, err := c.gh.Git.ListMatchingRefs(ctx, c.owner, c.repo, &github.ReferenceListOptions{Ref: "heads/"})
	return err
}

// Commit reads a commit (GET git/commits/{sha}).
func (c *Client) Commit(ctx context.Context, sha string) (object.Commit, error) {
	got, _, err := c.gh.Git.GetCommit(ctx, c.owner, c.repo, sha)
	if err != nil {
		return object.Commit{}, fmt.Errorf("read commit %s: %w", kind.Short(sha), err)
	}
	out := object.Commit{SHA: got.GetSHA(), Tree: got.GetTree().GetSHA(), Message: got.GetMessage()}
	for _, p := range got.Parents {
		out.Parents = append(out.Parents, p.GetSHA())
	}
	return out, nil
}

// Ref reads a ref (GET git/ref/{ref}, ref as "heads/B" or "tags/T"): the
// full name GitHub answered for, and the SHA it points at.
func (c *Client) Ref(ctx context.Context, ref string) (name, sha string, err error) {
	got, _, err := c.gh.Git.GetRef(ctx, c.owner, c.repo, ref)
	if err != nil {
		return "", "", err
	}
	return got.GetRef(), got.GetObject().GetSHA(), nil
}

// UpdateRef moves ref (a full name) to sha (PATCH git/refs/{ref}); without
// force only a fast-forward. See
// https://docs.github.com/rest/git/refs#update-a-reference.
func (c *Client) UpdateRef(ctx context.Context, ref, sha string, force bool) error {
	r := &github.Reference{Ref: str(ref), Object: &github.GitObject{SHA: str(sha)}}
	_, _, err := c.gh.Git.UpdateRef(ctx, c.owner, c.repo, r, force)
	return err
}

// CreateRef creates ref (a full name) at sha (POST git/refs). See
// https://docs.github.com/rest/git/refs#create-a-reference.
func (c *Client) CreateRef(ctx context.Context, ref, sha string) error {
	r := &github.Reference{Ref: str(ref), Object: &github.GitObject{SHA: str(sha)}}
	_, _, err := c.gh.Git.CreateRef(ctx, c.owner, c.repo, r)
	return err
}

// Compare returns the status of head relative to base (GET
// compare/{base}...{head}, one page of one commit): "identical", "behind",
// "ahead" or "diverged". See
// https://docs.github.com/rest/commits/commits#compare-two-commits.
func (c *Client) Compare(ctx context.Context, base, head string) (string, error) {
	cmp, _, err := c.gh.Repositories.CompareCommits(ctx, c.owner, c.repo, base, head, &github.ListOptions{PerPage: 1})
	if err != nil {
		return "", err
	}
	return cmp.GetStatus(), nil
}

// Tree reads a tree (GET git/trees/{sha}), recursively or one level.
func (c *Client) Tree(ctx context.Context, sha string, recursive bool) (*object.Tree, error) {
	t, _, err := c.gh.Git.GetTree(ctx, c.owner, c.repo, sha, recursive)
	if err != nil {
		return nil, err
	}
	return fromTree(t), nil
}

// CreateTree creates a tree of entries on base ("" for none) in one
// request (POST git/trees). See
// https://docs.github.com/rest/git/trees#create-a-tree.
func (c *Client) CreateTree(ctx context.Context, base string, entries []*object.TreeEntry) (*object.Tree, error) {
	in := make([]*github.TreeEntry, len(entries))
	for i, e := range entries {
		te := &github.TreeEntry{Path: str(e.Path), Mode: str(e.Mode), Type: str(e.Type), Content: e.Content}
		if e.SHA != "" {
			te.SHA = str(e.SHA)
		}
		in[i] = te
	}
	t, _, err := c.gh.Git.CreateTree(ctx, c.owner, c.repo, base, in)
	if err != nil {
		return nil, err
	}
	return fromTree(t), nil
}

func fromTree(t *github.Tree) *object.Tree {
	out := &object.Tree{SHA: t.GetSHA(), Truncated: t.GetTruncated(), Entries: make([]object.TreeEntry, len(t.Entries))}
	for i, e := range t.Entries {
		out.Entries[i] = object.TreeEntry{Path: e.GetPath(), Mode: e.GetMode(), Type: e.GetType(), SHA: e.GetSHA()}
	}
	return out
}

// Blob reads a blob's content (GET git/blobs/{sha}).
func (c *Client) Blob(ctx context.Context, sha string) ([]byte, error) {
	blob, _, err := c.gh.Git.GetBlob(ctx, c.owner, c.repo, sha)
	if err != nil {
		return nil, err
	}
	if blob.GetEncoding() != "base64" {
		return []byte(blob.GetContent()), nil
	}
	data, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(blob.GetContent(), "\n", ""))
	if err != nil {
		return nil, fmt.Errorf("decoding base64: %w", err)
	}
	return data, nil
}

// CreateBlob uploads data as a blob (POST git/blobs) and returns its SHA.
func (c *Client) CreateBlob(ctx context.Context, data []byte) (string, error) {
	got, _, err := c.gh.Git.CreateBlob(ctx, c.owner, c.repo, &github.Blob{
		Content:  str(base64.StdEncoding.EncodeToString(data)),
		Encoding: str("base64"),
	})
	if err != nil {
		return "", err
	}
	return got.GetSHA(), nil
}

// StreamBlob uploads a blob of size bytes whose content open returns,
// base64-encoding it on the fly, so the content is never held in memory
// whole. open is called again when a retrying transport resends it.
func (c *Client) StreamBlob(ctx context.Context, size int64, open func() (io.ReadCloser, error)) (string, error) {
	req, err := c.gh.NewRequest(http.MethodPost, fmt.Sprintf("repos/%v/%v/git/blobs", c.owner, c.repo), nil)
	if err != nil {
		return "", err
	}
	const prefix, suffix = `{"encoding":"base64","content":"`, `"}`
	body := func() (io.ReadCloser, error) {
		rc, err := open()
		if err != nil {
			return nil, err
		}
		pr, pw := io.Pipe()
		go encodeBlob(pw, rc, size, prefix, suffix)
		return pr, nil
	}
	rc, err := body()
	if err != nil {
		return "", err
	}
	req.Body = rc
	req.GetBody = body
	req.ContentLength = int64(len(prefix)+len(suffix)) + int64(base64.StdEncoding.EncodedLen(int(size)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Length", strconv.FormatInt(req.ContentLength, 10))
	blob := new(github.Blob)
	if _, err := c.gh.Do(ctx, req, blob); err != nil {
		return "", err
	}
	return blob.GetSHA(), nil
}

// encodeBlob writes the JSON body of a blob upload of rc's first size
// bytes to pw, and closes both.
func encodeBlob(pw *io.PipeWriter, rc io.ReadCloser, size int64, prefix, suffix string) {
	defer rc.Close()
	if _, err := io.WriteString(pw, prefix); err != nil {
		pw.CloseWithError(err)
		return
	}
	enc := base64.NewEncoder(base64.StdEncoding, pw)
	if _, err := io.Copy(enc, io.LimitReader(rc, size)); err != nil {
		pw.CloseWithError(err)
		return
	}
	if err := enc.Close(); err != nil {
		pw.CloseWithError(err)
		return
	}
	_, err := io.WriteString(pw, suffix)
	pw.CloseWithError(err)
}

// NewCommit is a commit to create. Sign, when set, writes the signature of
// the commit's encoding read from r to w (author and committer then need
// dates: the caller sets them).
type NewCommit struct {
	Message string
	Tree    string
	Parent  string // "" for a root commit
	// Also are further parents, after Parent (a merge commit's).
	Also      []string
	Author    *object.Signature
	Committer *object.Signature
	Sign      func(w io.Writer, r io.Reader) error
}

// CreateCommit creates a commit (POST git/commits) and returns its SHA. See
// https://docs.github.com/rest/git/commits#create-a-commit.
func (c *Client) CreateCommit(ctx context.Context, nc NewCommit) (string, error) {
	commit := &github.Commit{Message: str(nc.Message), Tree: &github.Tree{SHA: str(nc.Tree)},
		Author: toAuthor(nc.Author), Committer: toAuthor(nc.Committer)}
	if nc.Parent != "" {
		commit.Parents = []*github.Commit{{SHA: str(nc.Parent)}}
	}
	for _, p := range nc.Also {
		commit.Parents = append(commit.Parents, &github.Commit{SHA: str(p)})
	}
	var opts *github.CreateCommitOptions
	if nc.Sign != nil {
		opts = &github.CreateCommitOptions{Signer: github.MessageSignerFunc(nc.Sign)}
	}
	got, _, err := c.gh.Git.CreateCommit(ctx, c.owner, c.repo, commit, opts)
	if err != nil {
		return "", err
	}
	return got.GetSHA(), nil
}

func toAuthor(s *object.Signature) *github.CommitAuthor {
	if s == nil {
		return nil
	}
	a := &github.CommitAuthor{Name: str(s.Name), Email: str(s.Email)}
	if !s.Date.IsZero() {
		a.Date = &github.Timestamp{Time: s.Date}
	}
	return a
}

// Now is the date a signed commit gets when its author has none: git
// dates have a resolution of a second.
func Now() time.Time { return time.Now().Truncate(time.Second) }

// CreateTag creates an annotated tag object on commit (POST git/tags) and
// returns its SHA. See https://docs.github.com/rest/git/tags#create-a-tag-object.
func (c *Client) CreateTag(ctx context.Context, name, message, commit string) (string, error) {
	got, _, err := c.gh.Git.CreateTag(ctx, c.owner, c.repo, &github.Tag{
		Tag: str(name), Message: str(message),
		Object: &github.GitObject{SHA: str(commit), Type: str("commit")},
	})
	if err != nil {
		return "", err
	}
	return got.GetSHA(), nil
}
