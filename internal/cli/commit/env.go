package commit

import (
	"context"
	"errors"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"github.com/ghcommitter/ghcommitter/internal/cli/input"

	"github.com/ghcommitter/ghcommitter/committer"
)

// Classify turns any error a command returns into an exitError.
func Classify(err error) *cmdutil.ExitError {
	return withHint(classify(err)) // usererrors.go
}

func classify(err error) *cmdutil.ExitError {
	var ee *cmdutil.ExitError
	if errors.As(err, &ee) {
		return ee
	}
	ee = &cmdutil.ExitError{Code: cmdutil.ExitFailed, Err: err}
	var ce *committer.Error
	if errors.As(err, &ce) {
		// Print the hint on its own line, not glued to the message.
		c := *ce
		c.Hint = ""
		// The library's hints name its API; say the flags instead.
		ee.Err, ee.Hint = &c, flagHint(ce.Hint)
	}
	var ed *input.EditFailure
	if errors.As(err, &ed) {
		ee.Detail = ed.Stderr
		ee.Hint = "nothing was committed"
		if strings.TrimSpace(ed.Stderr) != "" {
			ee.Hint += "; the --edit command's stderr is shown above"
		}
	}
	switch {
	case errors.Is(err, committer.ErrInvalid):
		ee.Code = cmdutil.ExitUsage
	case errors.Is(err, committer.ErrConflict):
		ee.Code = cmdutil.ExitConflict // its hint, when none: withHint
	case errors.Is(err, committer.ErrUnauthorized):
		ee.Hint = "the token is missing, expired or revoked: " + TokenHint + " with a valid token"
	case errors.Is(err, committer.ErrProtected):
		// The library's hint names its API; say the flags instead.
		ee.Hint = protectedHint(err) // protected.go
	case errors.Is(err, context.Canceled):
		ee.Code = cmdutil.ExitFailed
	}
	return ee
}

// The environment variables gh users already set (gh help environment):
//
//	GH_REPO              [HOST/]OWNER/REPO, when -R is not given
//	GH_HOST              the host, when neither --api-url nor GH_REPO names one
//	GH_TOKEN, GITHUB_TOKEN
//	                     the token for github.com and *.ghe.com
//	GH_ENTERPRISE_TOKEN, GITHUB_ENTERPRISE_TOKEN
//	                     the token for a GitHub Enterprise Server host (GH_TOKEN
//	                     and GITHUB_TOKEN are still tried after them, as the
//	                     Actions runner on a server sets GITHUB_TOKEN)
//
// and, in Actions, GITHUB_REPOSITORY and GITHUB_API_URL after them.

// envRepo is the repository to use when -R is not given: GH_REPO's
// OWNER/REPO, else $GITHUB_REPOSITORY.
func envRepo(e *cmdutil.Env) string {
	if r := strings.TrimSpace(e.Getenv("GH_REPO")); r != "" {
		_, repo := splitHostRepo(r)
		return repo
	}
	return e.Getenv("GITHUB_REPOSITORY")
}

// splitHostRepo splits "[HOST/]OWNER/REPO".
func splitHostRepo(s string) (host, repo string) {
	if strings.Count(s, "/") == 2 {
		host, repo, _ = strings.Cut(s, "/")
		return host, repo
	}
	return "", s
}

// APIURLFor is the REST API root: --api-url; else the host in GH_REPO when
// -R (repoFlag) is not given; else GH_HOST; else $GITHUB_API_URL; else
// api.github.com.
func APIURLFor(flag, repoFlag string, e *cmdutil.Env) string {
	u, _ := apiURLFrom(flag, repoFlag, e)
	return u
}

// apiURLFrom is APIURLFor, and whether the user named the API (--api-url,
// a host in -R or GH_REPO, GH_HOST) rather than the runner
// ($GITHUB_API_URL) or the default.
func apiURLFrom(flag, repoFlag string, e *cmdutil.Env) (u string, given bool) {
	if flag != "" {
		return flag, true
	}
	if repoFlag == "" {
		if host, _ := splitHostRepo(strings.TrimSpace(e.Getenv("GH_REPO"))); host != "" {
			return hostAPIURL(host), true
		}
	} else if host := repoHost(repoFlag); host != "" {
		return hostAPIURL(host), true // -R https://HOST/OWNER/REPO or HOST/OWNER/REPO
	}
	if host := strings.TrimSpace(e.Getenv("GH_HOST")); host != "" {
		return hostAPIURL(host), true
	}
	if u := e.Getenv("GITHUB_API_URL"); u != "" {
		return u, false
	}
	return DefaultAPIURL, false
}

// GraphQLURLFor is the GraphQL endpoint, "" for the one derived from the
// REST API root (api.github.com/graphql; HOST/api/graphql for a server's
// HOST/api/v3): --graphql-url; else, when the user named the API (see
// apiURLFrom), the derived one; else $GITHUB_GRAPHQL_URL, which the runner
// sets beside $GITHUB_API_URL.
func GraphQLURLFor(flag, apiFlag, repoFlag string, e *cmdutil.Env) string {
	if flag != "" {
		return flag
	}
	if _, given := apiURLFrom(apiFlag, repoFlag, e); given {
		return ""
	}
	return e.Getenv("GITHUB_GRAPHQL_URL")
}

// hostAPIURL is the REST API root of a GitHub host, as gh computes it.
func hostAPIURL(host string) string {
	host = strings.ToLower(strings.TrimSuffix(host, "/"))
	switch {
	case host == "github.com" || host == "api.github.com":
		return DefaultAPIURL
	case strings.HasSuffix(host, ".ghe.com") && !strings.HasPrefix(host, "api."):
		return "https://api." + host + "/"
	case strings.HasSuffix(host, ".ghe.com"):
		return "https://" + host + "/"
	}
	return "https://" + host + "/api/v3/"
}

// IsEnterpriseAPI reports whether apiURL is a GitHub Enterprise Server's,
// where gh takes the token from GH_ENTERPRISE_TOKEN.
func IsEnterpriseAPI(apiURL string) bool {
	u, err := url.Parse(apiURL)
	if err != nil {
		return true
	}
	h := strings.ToLower(u.Hostname())
	if isLoopback(h) {
		// A local stand-in (fake-github, a test server) is no server of
		// an enterprise: GH_TOKEN, as the README's examples set it.
		return false
	}
	return h != "api.github.com" && h != "github.com" && !strings.HasSuffix(h, ".ghe.com")
}

// isLoopbackAPI reports whether apiURL is on this machine.
func isLoopbackAPI(apiURL string) bool {
	u, err := url.Parse(apiURL)
	return err == nil && isLoopback(strings.ToLower(u.Hostname()))
}

// isLoopback reports whether host names this machine.
func isLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// envToken is the token from the environment for apiURL, "" when none is
// set.
func envToken(e *cmdutil.Env, apiURL string) string {
	names := []string{"GH_TOKEN", "GITHUB_TOKEN"}
	switch {
	case IsEnterpriseAPI(apiURL):
		names = append([]string{"GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"}, names...)
	case isLoopbackAPI(apiURL):
		// A local stand-in: GH_TOKEN first, an enterprise token after it.
		names = append(names, "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN")
	}
	for _, n := range names {
		if t := strings.TrimSpace(e.Getenv(n)); t != "" {
			return t
		}
	}
	return ""
}

// replaceHint matches the library's advice for replacing a file with a
// directory or back: Delete("p") and Put in one change set.
var replaceHint = regexp.MustCompile(`Delete\("((?:[^"\\]|\\.)*)"\) and Put in one change set`)

// flagHint says a library hint in the CLI's flags instead of its API.
func flagHint(h string) string {
	h = replaceHint.ReplaceAllStringFunc(h, func(m string) string {
		p, err := strconv.Unquote(`"` + replaceHint.FindStringSubmatch(m)[1] + `"`)
		if err != nil {
			return m
		}
		return "pass --delete " + ShellQuote(p) + " with the --add in one command"
	})
	return strings.NewReplacer("CreateBranchFrom", "--create-branch-from", "WithRetries", "--max-attempts",
		"WithBaseURL", "--api-url", "WithGraphQLURL", "--graphql-url", "TagSpec.Force", "--tag-force").Replace(h)
}

// ShellQuote quotes s for a POSIX shell when it needs quoting.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
