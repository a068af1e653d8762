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
//
// ambiguous is true when the outcome had to be settled by reading the ref:
// a delayed update could still land later, so the caller must keep checking.
func (c *Committer) moveRef(ctx context.Context, branch, commit, parent string) (won, ambiguous bool, err error) {
	ref := &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(commit)}}
	_, _, err = c.client.Git.UpdateRef(ctx, c.owner, c.repo, ref, false)
	if err == nil {
		return true, false, nil
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode < 500 {
		switch {
		case isProtected(er):
			return false, false, &pathError{kind: ErrProtected, err: fmt.Errorf("update ref: %w", err)}
		case er.Response.StatusCode == http.StatusUnprocessableEntity || er.Response.StatusCode == http.StatusConflict:
			return false, false, nil
		}
		return false, false, fmt.Errorf("update ref: %w", err)
	}
	if err := refused(err); err != nil {
		return false, false, err
	}
	won, err = c.settle(ctx, branch, commit, parent, err)
	return won, true, err
}

// createRef creates the branch pointing at commit. won is false when another
// writer created it first.
func (c *Committer) createRef(ctx context.Context, branch, commit, parent string) (won, ambiguous bool, err error) {
	ref := &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(commit)}}
	_, _, err = c.client.Git.CreateRef(ctx, c.owner, c.repo, ref)
	if err == nil {
		return true, false, nil
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode < 500 {
		if isProtected(er) {
			return false, false, &pathError{kind: ErrProtected, err: fmt.Errorf("create ref: %w", err)}
		}
		if er.Response.StatusCode == http.StatusUnprocessableEntity {
			return false, false, nil // "Reference already exists": build on it next attempt
		}
		return false, false, fmt.Errorf("create ref: %w", err)
	}
	if err := refused(err); err != nil {
		return false, false, err
	}
	won, err = c.settle(ctx, branch, commit, parent, err)
	return won, true, err
}

// refusedError says GitHub refused a ref update for now (a secondary rate
// limit): it did not apply, and the next attempt should wait first.
type refusedError struct {
	wait time.Duration
	err  error
}

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// refused classifies the rate-limit replies to a ref update: GitHub answered,
// so the update certainly did not apply. A secondary limit is a
// *refusedError (wait, then try again); a primary limit is final. It
// returns nil for any other error.
func refused(err error) error {
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) {
		return &refusedError{wait: max(ab.GetRetryAfter(), time.Second), err: err}
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		return fmt.Errorf("update ref: %w", err)
	}
	return nil
}

// maxWalk bounds how far back landedIn looks for a commit.
const maxWalk = 100

// settle reads the ref after an update whose outcome is unknown. It uses a
// context that outlives the caller's cancellation, briefly, so that a
// deadline hit during the update still gets an answer. The update landed if
// the ref holds commit or a descendant of it (another writer may already
// have built on it).
func (c *Committer) settle(ctx context.Context, branch, commit, parent string, cause error) (bool, error) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	c.o.logger.DebugContext(ctx, "ref update outcome unknown; reading the ref", "error", cause)
	got, _, err := c.client.Git.GetRef(rctx, c.owner, c.repo, "heads/"+branch)
	if err != nil {
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
			return false, nil
		}
		return false, c.unknown(cause, err)
	}
	landed, err := c.landedIn(rctx, got.GetObject().GetSHA(), commit, parent)
	if err != nil {
		return false, c.unknown(cause, err)
	}
	if landed {
		return true, nil
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	return false, nil
}

func (c *Committer) unknown(cause, err error) error {
	return &pathError{kind: ErrUnknownOutcome, err: fmt.Errorf("update ref: %v; then reading it back: %w; read the branch before retrying", cause, err)}
}

// landedIn reports whether commit is tip or one of its ancestors. It walks
// back from tip through every parent, not past stop (the commit that commit
// was built on, so never below where commit could be) and at most maxWalk
// commits. Commits are immutable, so their parents are cached.
func (c *Committer) landedIn(ctx context.Context, tip, commit, stop string) (bool, error) {
	seen := map[string]bool{}
	queue := []string{tip}
	for len(queue) > 0 && len(seen) < maxWalk {
		sha := queue[0]
		queue = queue[1:]
		if sha == commit {
			return true, nil
		}
		if seen[sha] || sha == stop {
			continue
		}
		seen[sha] = true
		parents, err := c.parents(ctx, sha)
		if err != nil {
			return false, err
		}
		queue = append(queue, parents...)
	}
	return false, nil
}

func (c *Committer) parents(ctx context.Context, sha string) ([]string, error) {
	if p, ok := c.cache.parentsOf(sha); ok {
		return p, nil
	}
	got, _, err := c.client.Git.GetCommit(ctx, c.owner, c.repo, sha)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", short(sha), err)
	}
	var p []string
	for _, parent := range got.Parents {
		p = append(p, parent.GetSHA())
	}
	c.cache.putParents(sha, p)
	return p, nil
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
				return "", nil, &pathError{path: o.path, err: &editError{err: err}}
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
