package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/google/go-github/v66/github"
	"github.com/spf13/cobra"
)

const defaultAPIURL = "https://api.github.com/"

const tokenHint = "set GH_TOKEN or GITHUB_TOKEN, or pass --token-file"

// authFlags say where the API is and how to authenticate. A token is never
// taken from a flag value, so it never shows in process listings.
type authFlags struct {
	apiURL         string
	tokenFile      string
	appID          int64
	appKeyFile     string
	installationID int64
}

func (a *authFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&a.apiURL, "api-url", "", "REST API root `URL` (default $GITHUB_API_URL, else "+defaultAPIURL+")")
	fl.StringVar(&a.tokenFile, "token-file", "", "read the token from `FILE` (default: $GH_TOKEN, else $GITHUB_TOKEN)")
	fl.Int64Var(&a.appID, "app-id", 0, "authenticate as the GitHub App with this `ID` (with --app-key-file)")
	fl.StringVar(&a.appKeyFile, "app-key-file", "", "the GitHub App's private key, a PEM `FILE`")
	fl.Int64Var(&a.installationID, "installation-id", 0, "the App's installation `ID` (default: looked up from the repository)")
}

// client builds the API client. Missing or unusable credentials are usage
// errors: they are found before any request is sent.
func (a *authFlags) client(ctx context.Context, e *env, owner, name, apiURL string, logger *slog.Logger) (*github.Client, error) {
	ghclient.Version = cliVersion()
	opts := []ghclient.Option{ghclient.WithBaseURL(apiURL), ghclient.WithRepository(owner, name)}
	if logger != nil {
		opts = append(opts, ghclient.WithLogger(logger))
	}
	app := a.appID != 0 || a.appKeyFile != "" || a.installationID != 0
	switch {
	case app:
		if a.appID <= 0 || a.appKeyFile == "" {
			return nil, usageErrorf("pass both --app-id and --app-key-file (and optionally --installation-id)", "incomplete GitHub App credentials")
		}
		if a.tokenFile != "" {
			return nil, usageErrorf("", "--token-file and --app-id both given: choose one way to authenticate")
		}
		key, err := os.ReadFile(a.appKeyFile)
		if err != nil {
			return nil, usageErrorf("", "--app-key-file: %v", err)
		}
		// Check the options before New may look the installation up.
		check := append(opts[:len(opts):len(opts)], ghclient.WithApp(a.appID, key, 1))
		if _, err := ghclient.New(ctx, check...); err != nil {
			return nil, usageErrorf("", "%v", err)
		}
		opts = append(opts, ghclient.WithApp(a.appID, key, a.installationID))
		c, err := ghclient.New(ctx, opts...)
		if err != nil {
			return nil, apiError("authenticate as GitHub App for", owner+"/"+name, err)
		}
		return c, nil
	case a.tokenFile != "":
		data, err := os.ReadFile(a.tokenFile)
		if err != nil {
			return nil, usageErrorf(tokenHint, "--token-file: %v", err)
		}
		tok := strings.TrimSpace(string(data))
		if tok == "" {
			return nil, usageErrorf(tokenHint, "--token-file %s is empty", a.tokenFile)
		}
		opts = append(opts, ghclient.WithToken(tok))
	default:
		tok := envToken(e, apiURL)
		if tok == "" {
			return nil, usageErrorf(tokenHint, "no GitHub token")
		}
		opts = append(opts, ghclient.WithToken(tok))
	}
	c, err := ghclient.New(ctx, opts...)
	if err != nil {
		// Options are checked before any request: a bad URL or token.
		return nil, usageErrorf("", "%v", err)
	}
	return c, nil
}

// apiError describes a failed request the CLI made itself, with the same
// kinds and hints as the library's errors.
func apiError(op, repo string, err error) error {
	e := &committer.Error{Op: op, Repo: repo, Err: err}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		switch er.Response.StatusCode {
		case http.StatusUnauthorized:
			e.Kind, e.Hint = committer.ErrUnauthorized, "the token is missing, expired or revoked: "+tokenHint+" with a valid token"
		case http.StatusForbidden:
			e.Kind, e.Hint = committer.ErrPermission, "the token needs the contents: write permission on this repository (repo scope for a classic token)"
		case http.StatusNotFound:
			e.Kind, e.Hint = committer.ErrNotFound, "check the repository name, and that the token can see it and has contents: write (GitHub answers 404 to tokens without access)"
		}
	}
	return e
}
