package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readOutputs parses a $GITHUB_OUTPUT file (name=value lines); a later
// value wins, as the runner takes it.
func readOutputs(t *testing.T, file string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
		}
	}
	return out
}

func TestActionsOutputs(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	dir := t.TempDir()
	c.env["GITHUB_OUTPUT"] = filepath.Join(dir, "out")
	c.env["GITHUB_STEP_SUMMARY"] = filepath.Join(dir, "summary")
	c.run(commitArgs(srv, "-m", "m", "--edit", "a.txt=echo a", "--edit", "b c.txt=echo b", "--delete", "README.md")...).wantCode(t, 0)
	o := readOutputs(t, c.env["GITHUB_OUTPUT"])
	var files []string
	if err := json.Unmarshal([]byte(o["changed-files"]), &files); err != nil {
		t.Fatalf("changed-files %q: %v", o["changed-files"], err)
	}
	if o["branch"] != "main" || o["changed-count"] != "3" || len(files) != 3 || o["engine"] != "git-data" || o["verified"] != "false" || o["noop"] != "false" {
		t.Errorf("outputs = %v", o)
	}
	// GraphQL commits are signed by GitHub: verified, read back.
	c.run(commitArgs(srv, "-m", "m", "--engine", "graphql", "--edit", "a.txt=echo a2")...).wantCode(t, 0)
	o = readOutputs(t, c.env["GITHUB_OUTPUT"])
	if o["verified"] != "true" || o["engine"] != "graphql" || o["commit"] != head(t, srv, "main") {
		t.Errorf("graphql outputs = %v", o)
	}
	// A pull request: its outputs, and the summary links it.
	c.run(commitArgs(srv, "-m", "m", "-b", "topic", "--pull-request", "--edit", "t.txt=echo t")...).wantCode(t, 0)
	o = readOutputs(t, c.env["GITHUB_OUTPUT"])
	if o["branch"] != "topic" || o["pull-request-number"] != "1" || o["pull-request-operation"] != "created" || !strings.HasSuffix(o["pull-request-url"], "/acme/mono/pull/1") {
		t.Errorf("pull request outputs = %v", o)
	}
	sum, _ := os.ReadFile(c.env["GITHUB_STEP_SUMMARY"])
	if !strings.Contains(string(sum), "pull request [#1]("+o["pull-request-url"]+") created") || !strings.Contains(string(sum), "/commit/"+o["commit"]+")") {
		t.Errorf("summary:\n%s", sum)
	}
}
