package committer

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v66/github"
)

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
// GetBranch's branch too. So the contents writes and readHead build their
// requests here, with client.NewRequest on the already-escaped URL: it
// parses the URL and keeps the escapes as sent (a "%25" stays "%25", it
// is not escaped again).

// escapeSegments escapes each "/"-separated segment of name for a URL path
// and keeps the slashes: "docs/C#.md" becomes "docs/C%23.md".
func escapeSegments(name string) string {
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
func (c *Committer) repoURL(endpoint, name string) string {
	return "repos/" + url.PathEscape(c.owner) + "/" + url.PathEscape(c.repo) + "/" + endpoint + "/" + escapeSegments(name)
}

// putContents creates or updates the file at path through the contents API
// (PUT contents/{path}), as go-github's CreateFile and UpdateFile do but
// with the path escaped. See
// https://docs.github.com/rest/repos/contents#create-or-update-file-contents.
func (c *Committer) putContents(ctx context.Context, path string, opts *github.RepositoryContentFileOptions) (*github.RepositoryContentResponse, *github.Response, error) {
	return c.contentsWrite(ctx, http.MethodPut, path, opts)
}

// deleteContents deletes the file at path through the contents API
// (DELETE contents/{path}), as go-github's DeleteFile does but with the
// path escaped. See https://docs.github.com/rest/repos/contents#delete-a-file.
func (c *Committer) deleteContents(ctx context.Context, path string, opts *github.RepositoryContentFileOptions) (*github.RepositoryContentResponse, *github.Response, error) {
	return c.contentsWrite(ctx, http.MethodDelete, path, opts)
}

func (c *Committer) contentsWrite(ctx context.Context, method, path string, opts *github.RepositoryContentFileOptions) (*github.RepositoryContentResponse, *github.Response, error) {
	req, err := c.client.NewRequest(method, c.repoURL("contents", path), opts)
	if err != nil {
		return nil, nil, err
	}
	out := new(github.RepositoryContentResponse)
	resp, err := c.client.Do(ctx, req, out)
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}
