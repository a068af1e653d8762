package ghgraphql

import (
	"fmt"
	"net/url"
	"strings"
)

// DefaultEndpoint is github.com's GraphQL endpoint.
const DefaultEndpoint = "https://api.github.com/graphql"

// EndpointFor returns the GraphQL endpoint for a REST API base URL. explicit,
// when not empty (GITHUB_GRAPHQL_URL), is returned as it is after a check.
// An empty apiBase is github.com. A base ending in /api/v3 (GitHub
// Enterprise Server) gives /api/graphql on the same host; any other base
// (api.github.com, api.SUBDOMAIN.ghe.com, a test server) gives its own
// /graphql.
func EndpointFor(apiBase, explicit string) (string, error) {
	if explicit != "" {
		u, err := url.Parse(explicit)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return "", fmt.Errorf("GraphQL URL %q: must be an absolute http(s) URL", explicit)
		}
		return explicit, nil
	}
	if apiBase == "" {
		return DefaultEndpoint, nil
	}
	u, err := url.Parse(apiBase)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("API base URL %q: must be an absolute http(s) URL", apiBase)
	}
	p := strings.TrimSuffix(u.Path, "/")
	if strings.HasSuffix(p, "/api/v3") {
		p = strings.TrimSuffix(p, "/v3")
	}
	u.Path = p + "/graphql"
	u.RawPath = ""
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}
