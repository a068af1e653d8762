package ghclient

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v66/github"
	"golang.org/x/oauth2"
)

const defaultBaseURL = "https://api.github.com/"

// Version is this program's version, used in the default User-Agent. The
// CLI sets it (by -ldflags "-X" or by assignment before calling New).
var Version = "dev"

// New returns a go-github client over NewHTTPClient: it authenticates,
// and carries the redirect policy, the conditional-GET cache, the
// per-repository concurrency limit, retries, the shared rate-limit gate
// and the write pacer. ctx is used only for the requests New itself makes
// (the App installation lookup); it is not kept.
func New(ctx context.Context, opts ...Option) (*github.Client, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	baseURL, uploadURL, err := resolveBaseURL(o.baseURL)
	if err != nil {
		return nil, fmt.Errorf("ghclient: %w", err)
	}
	hc, err := NewHTTPClient(ctx, opts...)
	if err != nil {
		return nil, err
	}
	gh := github.NewClient(hc)
	gh.BaseURL = baseURL
	gh.UploadURL = uploadURL
	gh.UserAgent = o.userAgent
	if gh.UserAgent == "" {
		gh.UserAgent = defaultUserAgent()
	}
	return gh, nil
}

func defaultUserAgent() string { return "ghcommitter/" + Version }

// authTransport returns the auth layer over base, the credential it
// sends as (for the rate-limit registry, which keeps only a hash of it)
// and the App installation it looked up, if it did (else 0). inner
// carries the auth layer's own requests.
func authTransport(ctx context.Context, o *options, base, inner http.RoundTripper, baseURL *url.URL) (http.RoundTripper, string, int64, error) {
	switch {
	case o.token != "":
		return &oauth2.Transport{Source: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: o.token}), Base: base}, "token " + o.token, 0, nil
	case o.app != nil:
		key, err := parseRSAKey(o.app.key)
		if err != nil {
			return nil, "", 0, fmt.Errorf("ghclient: app %d: %w", o.app.appID, err)
		}
		root := strings.TrimSuffix(baseURL.String(), "/")
		atr := ghinstallation.NewAppsTransportFromPrivateKey(inner, o.app.appID, key)
		atr.BaseURL = root
		id, found := o.app.installationID, int64(0)
		if id == 0 {
			id, err = findInstallation(ctx, atr, baseURL, o)
			if err != nil {
				return nil, "", 0, err
			}
			found = id
		}
		itr := ghinstallation.NewFromAppsTransport(atr, id)
		itr.BaseURL = root
		// Token requests go through inner; API requests go through the
		// auth layer straight to base, below the caller's retry layer.
		// GitHub's limits are per installation.
		return &ghinstallationOver{itr: itr, base: base}, fmt.Sprintf("app %d installation %d", o.app.appID, id), found, nil
	}
	return base, "", 0, nil
}

// ghinstallationOver adds the installation token to a request and sends it
// on base (ghinstallation.Transport would send it on its token transport).
type ghinstallationOver struct {
	itr  *ghinstallation.Transport
	base http.RoundTripper
}

func (g *ghinstallationOver) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := g.itr.Token(req.Context())
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		var herr *ghinstallation.HTTPError
		if errors.As(err, &herr) && herr.Response != nil {
			drain(herr.Response) // ghinstallation leaves it open
		}
		return nil, fmt.Errorf("app %d installation %d: get installation token: %w", g.itr.AppID(), g.itr.InstallationID(), err)
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "token "+tok)
	return g.base.RoundTrip(r)
}

// findInstallation asks GET /repos/{owner}/{repo}/installation, signed
// with the app's JWT.
func findInstallation(ctx context.Context, atr *ghinstallation.AppsTransport, baseURL *url.URL, o *options) (int64, error) {
	jc := github.NewClient(&http.Client{Transport: atr, CheckRedirect: checkRedirect(newAPIHosts(baseURL, baseURL))})
	jc.BaseURL = baseURL
	jc.UserAgent = o.userAgent
	inst, _, err := jc.Apps.FindRepositoryInstallation(ctx, o.owner, o.repo)
	if err != nil {
		return 0, fmt.Errorf("ghclient: app %d: find its installation on %s/%s (is the app installed there?): %w", o.app.appID, o.owner, o.repo, err)
	}
	if inst.GetID() == 0 {
		return 0, fmt.Errorf("ghclient: app %d: find its installation on %s/%s: reply has no installation id", o.app.appID, o.owner, o.repo)
	}
	return inst.GetID(), nil
}

// resolveBaseURL turns a user's API URL into go-github's BaseURL and
// UploadURL (see WithBaseURL).
func resolveBaseURL(s string) (base, upload *url.URL, err error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return nil, nil, fmt.Errorf("base URL %q: %w", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, nil, fmt.Errorf("base URL %q: scheme must be http or https", s)
	}
	if u.Host == "" {
		return nil, nil, fmt.Errorf("base URL %q: no host", s)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, nil, fmt.Errorf("base URL %q: must not hold credentials, a query or a fragment", s)
	}
	u.RawPath = ""
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "api.github.com":
		up, _ := url.Parse("https://uploads.github.com/")
		return u, up, nil
	case isLoopback(host):
		up := *u
		return u, &up, nil
	}
	if !strings.HasSuffix(u.Path, "/api/v3/") && !strings.HasPrefix(host, "api.") && !strings.Contains(host, ".api.") {
		u.Path += "api/v3/"
	}
	up := *u
	if p, ok := strings.CutSuffix(up.Path, "api/v3/"); ok {
		up.Path = p + "api/uploads/"
	}
	return u, &up, nil
}

func isLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// parseRSAKey reads an RSA private key from PEM (PKCS#1 or PKCS#8).
func parseRSAKey(p []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(p)
	if block == nil {
		return nil, errors.New("private key: no PEM block found (expected the .pem file from the app's settings)")
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, errors.New("private key: not an RSA key in PKCS#1 or PKCS#8 form")
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("private key: %T, want an RSA key", k)
	}
	return rk, nil
}
