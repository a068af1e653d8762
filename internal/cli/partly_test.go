package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
)

// TestPartlyDoneAfterTheCommit: the commit landed, and writing the GitHub
// Actions outputs after it failed: exit 4 (partly done), and --json prints
// the result object with the error object beside its keys.
func TestPartlyDoneAfterTheCommit(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	c.env["GITHUB_OUTPUT"] = filepath.Join(t.TempDir(), "no", "such", "dir", "output")
	r := c.run(commitArgs(srv, "-b", "main", "-m", "m", "--add", "a.txt=-", "--json")...)
	r.wantCode(t, cmdutil.ExitPartly)
	var out struct {
		Commit string `json:"commit"`
		Error  *struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
			Hint    string `json:"hint"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Error == nil || out.Error.Message == "" || out.Error.Hint == "" {
		t.Fatalf("--json: %v: %s", err, r.stdout)
	}
	if out.Commit == "" || out.Commit != head(t, srv, "main") {
		t.Fatalf("the result's commit %q is not the head", out.Commit)
	}
}
