package cli

import (
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// TestLimitScaleShortensTheBareSecondaryWait: GHCOMMITTER_LIMIT_SCALE=F
// makes the commit loop's minute after a secondary limit without
// Retry-After F times shorter too (as the client's own windows and the
// fake's --limits-scale), so a scaled benchmark does not wait a real minute.
func TestLimitScaleShortensTheBareSecondaryWait(t *testing.T) {
	srv := fake(t)
	srv.Inject(githubtest.SecondaryLimitFault(githubtest.Fault{Route: githubtest.RouteGraphQL, BodyContains: githubtest.MutationUpdateRefs, Times: 1}, 429, 0)) // the updateRefs, not the path lookup
	c := newCLI(t)
	c.env["GHCOMMITTER_LIMIT_SCALE"] = "600"
	r := c.run(commitArgs(srv, "-v", "-m", "m", "--add", "x.txt=-")...)
	r.wantCode(t, 0)
	if !strings.Contains(r.stderr, "write refused by a rate limit") || !strings.Contains(r.stderr, "wait=100ms") {
		t.Errorf("want the refusal waited out for a minute/600 = 100ms; stderr:\n%s", r.stderr)
	}
}
