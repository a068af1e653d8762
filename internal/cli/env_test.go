package cli

import (
	"testing"
)

// TestGHEnvironmentCommit commits with the repository from GH_REPO and the
// token from GH_TOKEN (the fake is on loopback: no enterprise server, so
// GH_TOKEN comes first), while GH_ENTERPRISE_TOKEN holds a token the fake
// refuses; with GH_TOKEN unset, GH_ENTERPRISE_TOKEN is used.
func TestGHEnvironmentCommit(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	c.env = map[string]string{"GH_REPO": "acme/mono", "GH_TOKEN": testToken, "GH_ENTERPRISE_TOKEN": "wrong"}
	r := c.run("commit", "--api-url", srv.URL, "-b", "main", "-m", "m", "--edit", "b=echo b")
	r.wantCode(t, 0)
	c.env = map[string]string{"GH_REPO": "acme/mono", "GH_ENTERPRISE_TOKEN": testToken}
	r = c.run("commit", "--api-url", srv.URL, "-b", "main", "-m", "m", "--edit", "a=echo a")
	r.wantCode(t, 0)
	if got, _ := readFile(t, srv, "main", "a"); got != "a\n" {
		t.Errorf("a = %q", got)
	}
}
