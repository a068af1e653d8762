// Package rest is the REST adapter: the only user of go-github inside the
// committer and its internal packages. Its Client sends each request the
// stages need (branch heads, trees, blobs, commits, refs, contents writes,
// pull requests, rules) and returns the object model of internal/object;
// answers.go and classify.go are the one table of what GitHub's answers
// mean (lost race, rate limit, protected, not found, ...), for REST and
// GraphQL replies alike.
package rest

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v66/github"
)

// Client sends the REST requests of one repository.
type Client struct {
	gh    *github.Client
	owner string
	repo  string
}

// New returns a Client of owner/repo at the API base URL, sending through
// hc (which carries the transport layers: retries, rate-limit waits,
// redirects). A branch head read never follows a redirect to another
// branch (see Branch).
func New(hc *http.Client, base *url.URL, owner, repo string) *Client {
	gh := github.NewClient(withBranchRedirectRefusal(hc))
	gh.BaseURL = base
	up := *base
	gh.UploadURL = &up
	return &Client{gh: gh, owner: owner, repo: repo}
}

// BaseURL is the API's base URL.
func (c *Client) BaseURL() string { return c.gh.BaseURL.String() }

// withBranchRedirectRefusal returns a copy of hc that, for a branch head
// read (Branch, under branchRead), never follows a redirect to another
// branch: GitHub answers GET branches/{b} with 301 for a renamed branch and
// for master where there is none. A redirect that keeps the branch name
// (a renamed or transferred repository: /repositories/{id}/branches/{b})
// is left to hc's own policy, as is every other request.
func withBranchRedirectRefusal(hc *http.Client) *http.Client {
	cp := *hc
	prev := hc.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if b, ok := req.Context().Value(branchReadKey{}).(string); ok && RedirectTarget(req.URL.String()) != b {
			return http.ErrUseLastResponse
		}
		if prev != nil {
			return prev(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &cp
}

type branchReadKey struct{}

// branchRead marks ctx as the read of branch's head (see
// withBranchRedirectRefusal).
func branchRead(ctx context.Context, branch string) context.Context {
	return context.WithValue(ctx, branchReadKey{}, branch)
}

// RedirectTarget returns the branch name a branches/{b} URL names.
func RedirectTarget(loc string) string {
	u, err := url.Parse(loc)
	if err != nil {
		return ""
	}
	_, name, ok := strings.Cut(u.Path, "/branches/")
	if !ok {
		return ""
	}
	return name
}

// Names in URLs. GitHub reads a file path or a branch name from the URL
// path, decoding its percent-escapes; a "/" stays a "/" (a directory, or a
// level of refs/heads/feat/x). So every name is sent escaped segment by
// segment: "#" would otherwise start a fragment and "?" a query (both cut
// off), and "%41" would arrive as "A". Everything else that names a file or
// a branch travels in a JSON body (tree entries, POST git/refs, GraphQL
// variables, pull requests) or a query string built by url.Values.
//
// go-github v66 escapes refs this way in git/ref/{ref}, git/refs/{ref} and
// git/matching-refs/{ref} (refURLEscape), and compare escapes its SHAs;
// its CreateFile, UpdateFile and DeleteFile put the path in as it is, and
// GetBranch's branch too. So the contents writes and the branch reads build
// their requests here, with NewRequest on the already-escaped URL: it
// parses the URL and keeps the escapes as sent (a "%25" stays "%25", it
// is not escaped again).

// EscapeSegments escapes each "/"-separated segment of name for a URL path
// and keeps the slashes: "docs/C#.md" becomes "docs/C%23.md".
func EscapeSegments(name string) string {
	segs := strings.Split(name, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// repoURL is the API path of the repository's endpoint under it, with
// name (a file path or a branch) escaped segment by segment:
// repoURL("contents", "docs/C#.md") is
// "repos/OWNER/REPO/contents/docs/C%23.md".
func (c *Client) repoURL(endpoint, name string) string {
	return "repos/" + url.PathEscape(c.owner) + "/" + url.PathEscape(c.repo) + "/" + endpoint + "/" + EscapeSegments(name)
}

// do sends a request built on an already-escaped URL path.
func (c *Client) do(ctx context.Context, method, urlStr string, body, out any) (*github.Response, error) {
	req, err := c.gh.NewRequest(method, urlStr, body)
	if err != nil {
		return nil, err
	}
	return c.gh.Do(ctx, req, out)
}

func str(s string) *string { return github.String(s) }
