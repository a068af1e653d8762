package cli

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
)

// TestPartlyDoneAfterTheCommit: the commit landed, and writing the GitHub
// Actions outputs after it failed: exit 4 (partly done), and --json prints
// the result object with the error object (every key of every error)
// beside its keys, once.
func TestPartlyDoneAfterTheCommit(t *testing.T) {
	srv := fake(t)
	notDir := filepath.Join(t.TempDir(), "out")
	writeFile(t, filepath.Join(notDir, "GITHUB_OUTPUT", "x"), "", 0o644) // a directory: appending fails
	c := newCLI(t)
	c.env["GITHUB_OUTPUT"] = filepath.Join(notDir, "GITHUB_OUTPUT")
	r := c.run(commitArgs(srv, "-b", "main", "-m", "m", "--edit", "b=echo b", "--json")...)
	r.wantCode(t, cmdutil.ExitPartly)
	obj := oneJSON(t, r.stdout)
	body, _ := obj["error"].(map[string]any)
	var keys []string
	for k := range body {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != strings.Join(jsonErrorKeys, ",") || body["kind"] != "failed" {
		t.Errorf("error keys %v kind %v, want %v, failed", keys, body["kind"], jsonErrorKeys)
	}
	if msg, _ := body["message"].(string); msg == "" || !strings.Contains(r.stderr, msg) {
		t.Errorf("message %q, want stderr's (%q)", msg, r.stderr)
	}
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
