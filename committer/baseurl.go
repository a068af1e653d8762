package committer

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// resolveBaseURL turns the HTTP client's API URL (ghclient.ConfigOf) into
// go-github's base URL: https://api.github.com/ as it is; a GitHub Enterprise Server URL
// with or without its /api/v3/ suffix; a loopback URL (a local fake) as it
// is.
func resolveBaseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("base URL %q: %w", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("base URL %q: want http(s)://HOST/", s)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("base URL %q: must not hold credentials, a query or a fragment", s)
	}
	u.RawPath = ""
	if len(u.Path) == 0 || u.Path[len(u.Path)-1] != '/' {
		u.Path += "/"
	}
	host := strings.ToLower(u.Hostname())
	if host == "api.github.com" || isLoopbackHost(host) || strings.HasSuffix(u.Path, "/api/v3/") ||
		strings.HasPrefix(host, "api.") || strings.Contains(host, ".api.") {
		return u, nil
	}
	u.Path += "api/v3/"
	return u, nil
}

func isLoopbackHost(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
