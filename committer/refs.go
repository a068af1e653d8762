package committer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"
)

var (
	errBranchMissing = errors.New("branch not found")
	errEmptyRepo     = errors.New("repository is empty")
)

// readHead returns the head commit of branch and its tree, in one request.
func (c *Committer) readHead(ctx context.Context, branch string) (commit, tree string, err error) {
	// Not Repositories.GetBranch: in go-github v66 it bypasses Client.Do, so
	// its errors are untyped and rate limits go unrecorded.
	req, err := c.client.NewRequest(http.MethodGet, fmt.Sprintf("repos/%v/%v/branches/%v", c.owner, c.repo, url.PathEscape(branch)), nil)
	if err != nil {
		return "", "", err
	}
	b := new(github.Branch)
	if _, err = c.client.Do(ctx, req, b); err != nil {
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil {
			switch {
			case er.Response.StatusCode == http.StatusNotFound && strings.Contains(strings.ToLower(er.Message), "branch not found"):
				// GitHub also answers this for any branch of an empty
				// repository; tell the two apart.
				if c.isEmpty(ctx) {
					return "", "", errEmptyRepo
				}
				return "", "", errBranchMissing
			case er.Response.StatusCode == http.StatusConflict:
				return "", "", errEmptyRepo
			}
		}
		return "", "", fmt.Errorf("read branch %s: %w", branch, err)
	}
	commit = b.GetCommit().GetSHA()
	tree = b.GetCommit().GetCommit().GetTree().GetSHA()
	if commit == "" {
		return "", "", fmt.Errorf("read branch %s: reply has no head commit", branch)
	}
	if tree == "" {
		return c.commitTree(ctx, commit)
	}
	return commit, tree, nil
}

// isEmpty reports whether the repository has no commits: listing its
// branches then fails with 409 "Git Repository is empty.".
func (c *Committer) isEmpty(ctx context.Context) bool {
	_, _, err := c.client.Git.ListMatchingRefs(ctx, c.owner, c.repo, &github.ReferenceListOptions{Ref: "heads/"})
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusConflict
}

func (c *Committer) commitTree(ctx context.Context, sha string) (string, string, error) {
	got, _, err := c.client.Git.GetCommit(ctx, c.owner, c.repo, sha)
	if err != nil {
		return "", "", fmt.Errorf("read commit %s: %w", short(sha), err)
	}
	return got.GetSHA(), got.GetTree().GetSHA(), nil
}

// resolveBase returns the commit and tree a new branch starts from: ref is
// a commit SHA or a branch name.
func (c *Committer) resolveBase(ctx context.Context, ref string) (string, string, error) {
	if isSHA(ref) {
		return c.commitTree(ctx, ref)
	}
	commit, tree, err := c.readHead(ctx, ref)
	if errors.Is(err, errBranchMissing) {
		return "", "", &pathError{kind: ErrNotFound, err: fmt.Errorf("base branch %q does not exist", ref)}
	}
	return commit, tree, err
}

// moveRef moves the branch to commit by fast-forward. won is false when
// another writer moved the branch first. An ambiguous outcome (no answer, or
// a 5xx) is settled by reading the ref back, never by sending the update
// again.
func (c *Committer) moveRef(ctx context.Context, branch, commit string) (won bool, err error) {
	ref := &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(commit)}}
	_, _, err = c.client.Git.UpdateRef(ctx, c.owner, c.repo, ref, false)
	if err == nil {
		return true, nil
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode < 500 {
		switch {
		case isProtected(er):
			return false, &pathError{kind: ErrProtected, err: fmt.Errorf("update ref: %w", err)}
		case er.Response.StatusCode == http.StatusUnprocessableEntity || er.Response.StatusCode == http.StatusConflict:
			return false, nil
		}
		return false, fmt.Errorf("update ref: %w", err)
	}
	return c.settle(ctx, branch, commit, err)
}

// createRef creates the branch pointing at commit. won is false when another
// writer created it first.
func (c *Committer) createRef(ctx context.Context, branch, commit string) (bool, error) {
	ref := &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(commit)}}
	_, _, err := c.client.Git.CreateRef(ctx, c.owner, c.repo, ref)
	if err == nil {
		return true, nil
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode < 500 {
		if isProtected(er) {
			return false, &pathError{kind: ErrProtected, err: fmt.Errorf("create ref: %w", err)}
		}
		if er.Response.StatusCode == http.StatusUnprocessableEntity {
			return false, nil // "Reference already exists": build on it next attempt
		}
		return false, fmt.Errorf("create ref: %w", err)
	}
	return c.settle(ctx, branch, commit, err)
}

// settle reads the ref after an update whose outcome is unknown. It uses a
// context that outlives the caller's cancellation, briefly, so that a
// deadline hit during the update still gets an answer.
func (c *Committer) settle(ctx context.Context, branch, commit string, cause error) (bool, error) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	c.o.logger.DebugContext(ctx, "ref update outcome unknown; reading the ref", "error", cause)
	got, _, err := c.client.Git.GetRef(rctx, c.owner, c.repo, "heads/"+branch)
	if err != nil {
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
			return false, nil
		}
		return false, &pathError{kind: ErrUnknownOutcome, err: fmt.Errorf("update ref: %v; then reading it back: %w; read the branch before retrying", cause, err)}
	}
	if got.GetObject().GetSHA() == commit {
		return true, nil
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	return false, nil
}

// bootstrap makes the first commit of an empty repository through the
// contents API (the Git Data API refuses to work on an empty repository),
// with the first file the change set writes. It returns "" when the change
// set writes no file.
func (c *Committer) bootstrap(ctx context.Context, branch string, cs *ChangeSet, p *prepared) (string, error) {
	path, data, err := firstFile(p)
	if err != nil || path == "" {
		return "", err
	}
	opts := &github.RepositoryContentFileOptions{
		Message: github.String(cs.Message),
		Content: data,
		Branch:  github.String(branch),
	}
	opts.Author = toAuthor(cs.Author)
	opts.Committer = toAuthor(cs.Committer)
	c.o.logger.DebugContext(ctx, "bootstrapping empty repository", "path", path)
	got, _, err := c.client.Repositories.CreateFile(ctx, c.owner, c.repo, path, opts)
	if err != nil {
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil &&
			(er.Response.StatusCode == http.StatusConflict || er.Response.StatusCode == http.StatusUnprocessableEntity) {
			return "-", nil // another writer bootstrapped it first
		}
		return "", fmt.Errorf("bootstrap empty repository: %w", err)
	}
	return got.Commit.GetSHA(), nil
}

func firstFile(p *prepared) (string, []byte, error) {
	for _, o := range p.ops {
		switch o.kind {
		case opPut:
			rc, err := o.src.reader()
			if err != nil {
				return "", nil, err
			}
			defer rc.Close()
			data, err := io.ReadAll(io.LimitReader(rc, o.src.size))
			return o.path, data, err
		case opEdit:
			data, err := o.edit(nil, false)
			if err != nil {
				return "", nil, &pathError{path: o.path, err: &editError{path: o.path, err: err}}
			}
			return o.path, data, nil
		}
	}
	for _, s := range p.syncs {
		if len(s.files) > 0 {
			f := s.files[0]
			rc, err := f.src.reader()
			if err != nil {
				return "", nil, err
			}
			defer rc.Close()
			data, err := io.ReadAll(io.LimitReader(rc, f.src.size))
			return joinPath(s.dir, f.rel), data, err
		}
	}
	return "", nil, nil
}

func joinPath(dir, rel string) string {
	if dir == "" {
		return rel
	}
	return dir + "/" + rel
}

// isProtected reports whether a refused ref update comes from branch
// protection or a ruleset rather than from a lost race.
func isProtected(er *github.ErrorResponse) bool {
	m := strings.ToLower(er.Message)
	for _, s := range []string{"protected branch", "rule violation", "through a pull request", "required status check", "cannot force-push"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// classify maps a cause to an error kind and a hint about what to do.
func classify(err error) (error, string) {
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		return nil, fmt.Sprintf("the API rate limit is exhausted until %s", rl.Rate.Reset.Time.Format(time.RFC3339))
	}
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) {
		return nil, "hit GitHub's secondary rate limit; slow down and retry later"
	}
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil {
		return nil, ""
	}
	switch code := er.Response.StatusCode; {
	case code == http.StatusUnauthorized:
		return ErrUnauthorized, "the token is missing, expired or revoked: check GH_TOKEN/GITHUB_TOKEN"
	case code == http.StatusForbidden:
		return ErrPermission, "the token needs the contents: write permission on this repository (repo scope for a classic token)"
	case code == http.StatusNotFound:
		return ErrNotFound, "check the repository name, and that the token can see it and has contents: write (GitHub answers 404 to tokens without access)"
	case isProtected(er):
		return ErrProtected, "the branch is protected: commit to another branch and open a pull request (--pull-request)"
	}
	return nil, ""
}
