package commit

import (
	"context"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v66/github"
)

// readBack reads from GitHub, after a commit, what the output reports
// beyond the library's result; the output itself makes no request.
type readBack struct {
	ctx context.Context
	e   *cmdutil.Env
	gh  *github.Client
}

// newReadBack talks to apiURL through client.
func newReadBack(ctx context.Context, e *cmdutil.Env, apiURL string, client *http.Client) *readBack {
	gh := github.NewClient(client)
	base := apiURL
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	if u, err := url.Parse(base); err == nil {
		gh.BaseURL = u
	}
	return &readBack{ctx: ctx, e: e, gh: gh}
}

// verified reads back whether GitHub shows sha as Verified, for the
// verified output: only in GitHub Actions ($GITHUB_OUTPUT set), the one
// place it is reported, so no other run makes the request.
func (r *readBack) verified(repo, sha string) bool {
	if r.e.Getenv("GITHUB_OUTPUT") == "" || sha == "" {
		return false
	}
	owner, name, _ := strings.Cut(repo, "/")
	c, _, err := r.gh.Git.GetCommit(r.ctx, owner, name, sha)
	return err == nil && c.GetVerification().GetVerified()
}
