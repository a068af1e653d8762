package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"
)

// manifestN is a manifest that puts apps/NN.yaml, with its own message.
func manifestN(i int) string {
	return fmt.Sprintf("message: change %02d\nput:\n  - path: apps/%02d.yaml\n    text: \"n: %d\\n\"\n", i, i, i)
}

// firstParents is the messages of main's newest n first-parent commits,
// oldest first.
func firstParents(t *testing.T, srv *githubtest.TestServer, n int) []string {
	t.Helper()
	h, err := srv.History("acme", "mono", "main")
	if err != nil || len(h) < n {
		t.Fatalf("main's history: %d commits (%v), want at least %d", len(h), err, n)
	}
	out := make([]string, n)
	for i := range n {
		out[i] = strings.TrimSpace(h[n-1-i].Message)
	}
	return out
}

// TestFanInSixteenManifests: a directory of 16 manifests (beside a file
// that is no manifest and a subdirectory, neither read) lands as 16
// commits, each with its own message, in lexical order on the first-parent
// chain, with at most 2×16+1 writes; --json prints one result per manifest.
func TestFanInSixteenManifests(t *testing.T) {
	srv := fake(t)
	dir := t.TempDir()
	const n = 16
	for i := range n {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("m%02d.yaml", i)), manifestN(i), 0o644)
	}
	writeFile(t, filepath.Join(dir, "README.md"), "not a manifest\n", 0o644)
	writeFile(t, filepath.Join(dir, "nested", "m99.yaml"), manifestN(99), 0o644)
	c := newCLI(t)
	c.env[commitcmd.LimitScaleEnv] = "60" // the write pacer's minute in a second
	r := c.run(commitArgs(srv, "-b", "main", "--manifest", dir, "--json")...)
	r.wantCode(t, 0)
	if w := writes(srv); w > 2*n+1 {
		t.Errorf("%d writes for %d manifests, want at most %d", w, n, 2*n+1)
	}
	got := firstParents(t, srv, n+1)
	if got[0] != "Initial commit" {
		t.Fatalf("the chain holds more than the 16 manifests' commits: %q", got)
	}
	var out []struct {
		Commit string `json:"commit"`
		Error  any    `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out) != n {
		t.Fatalf("--json: %v, %d elements: %s", err, len(out), r.stdout)
	}
	for i := range n {
		if want := fmt.Sprintf("change %02d", i); got[i+1] != want {
			t.Fatalf("commit %d of the chain is %q, want %q", i, got[i+1], want)
		}
		if out[i].Commit == "" || out[i].Error != nil {
			t.Fatalf("element %d: %+v", i, out[i])
		}
	}
	if out[n-1].Commit != head(t, srv, "main") {
		t.Fatal("the last manifest's commit is not the head")
	}
	if _, _, err := srv.ReadFile("acme", "mono", "main", "apps/99.yaml"); err == nil {
		t.Fatal("a manifest of a subdirectory was committed")
	}
}

// TestFanInPartlyDone: a manifest whose precondition fails is taken out;
// the others land; exit 4, and the --json array holds its error object
// (the keys of every error) between the others' results.
func TestFanInPartlyDone(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "taken.txt", Content: []byte("here\n")})
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.json"), filepath.Join(dir, "c.yml")
	writeFile(t, a, manifestN(1), 0o644)
	writeFile(t, b, `{"message": "two", "expect-absent": ["taken.txt"], "put": [{"path": "taken.txt", "text": "2\n"}]}`, 0o644)
	writeFile(t, c, manifestN(3), 0o644)
	r := newCLI(t).run(commitArgs(srv, "-b", "main", "--manifest", a, "--manifest", b, "--manifest", c, "--json")...)
	r.wantCode(t, cmdutil.ExitPartly)
	var out []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out) != 3 {
		t.Fatalf("--json: %v: %s", err, r.stdout)
	}
	var e struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	}
	if _, ok := out[1]["error"]; !ok || out[0]["error"] != nil || out[2]["error"] != nil {
		t.Fatalf("want an error for the second manifest only: %s", r.stdout)
	}
	if err := json.Unmarshal(out[1]["error"], &e); err != nil || e.Kind != "conflict" {
		t.Fatalf("the second manifest's error %s: want kind conflict", out[1]["error"])
	}
	for _, k := range []string{"hint", "head", "attempts", "status", "request_id", "retry_after", "rule"} {
		if !strings.Contains(string(out[1]["error"]), `"`+k+`"`) {
			t.Errorf("the error object lacks %q", k)
		}
	}
	if got := firstParents(t, srv, 2); got[0] != "change 01" || got[1] != "change 03" {
		t.Fatalf("chain %q", got)
	}
	if got, _ := readFile(t, srv, "main", "taken.txt"); got != "here\n" {
		t.Fatal("the failed manifest's content landed")
	}
	r = newCLI(t).run(commitArgs(srv, "-b", "main", "--manifest", b, "--manifest", b)...)
	r.wantCode(t, cmdutil.ExitConflict) // none landed: the failure's own code
}

// TestFanInRefusedBeforeAnyRequest: what is wrong with the manifests or the
// flags beside them is refused (exit 2) before any request.
func TestFanInRefusedBeforeAnyRequest(t *testing.T) {
	dir := t.TempDir()
	good1, good2 := filepath.Join(dir, "ok", "1.yaml"), filepath.Join(dir, "ok", "2.yaml")
	writeFile(t, good1, manifestN(1), 0o644)
	writeFile(t, good2, manifestN(2), 0o644)
	empty, junk := filepath.Join(dir, "empty"), filepath.Join(dir, "junk")
	writeFile(t, filepath.Join(empty, "sub", "x.yaml"), manifestN(3), 0o644)
	writeFile(t, filepath.Join(junk, "notes.txt"), "x\n", 0o644)
	bad := filepath.Join(dir, "bad.yaml")
	writeFile(t, bad, "message: bad\nput:\n  - path: a/../b\n    text: x\n", 0o644)
	other := filepath.Join(dir, "other.yaml")
	writeFile(t, other, "message: m\nbranch: release\nput:\n  - {path: x, text: x}\n", 0o644)
	pr := filepath.Join(dir, "pr.yaml")
	writeFile(t, pr, "message: m\npull-request: {base: main}\nput:\n  - {path: x, text: x}\n", 0o644)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"empty directory", []string{"--manifest", empty}},
		{"no manifest in the directory", []string{"--manifest", junk}},
		{"a manifest fails validation", []string{"--manifest", good1, "--manifest", bad}},
		{"a manifest names another branch", []string{"--manifest", good1, "--manifest", other}},
		{"a pull-request manifest", []string{"--manifest", good1, "--manifest", pr}},
		{"--tag", []string{"--manifest", good1, "--manifest", good2, "--tag", "v1"}},
		{"-m", []string{"--manifest", good1, "--manifest", good2, "-m", "x"}},
		{"--set", []string{"--manifest", good1, "--manifest", good2, "--set", "a.yaml:k=v"}},
		{"stdin among others", []string{"--manifest", good1, "--manifest", "-"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake(t)
			before := head(t, srv, "main")
			r := newCLI(t).run(commitArgs(srv, append([]string{"-b", "main", "--json"}, tc.args...)...)...)
			r.wantCode(t, cmdutil.ExitUsage)
			if n := len(srv.Requests()); n != 0 || head(t, srv, "main") != before {
				t.Fatalf("%d requests sent", n)
			}
			if !strings.Contains(r.stdout, `"kind":"invalid"`) {
				t.Fatalf("--json: %s", r.stdout)
			}
		})
	}
}

// TestFanInSamePathInOrder: manifests that write one path land in order,
// each its own commit: the last one's content stays.
func TestFanInSamePathInOrder(t *testing.T) {
	srv := fake(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "1.yaml"), "message: first\nput:\n  - {path: app.yaml, text: \"v: 1\\n\"}\n", 0o644)
	writeFile(t, filepath.Join(dir, "2.yaml"), "message: second\nput:\n  - {path: app.yaml, text: \"v: 2\\n\"}\n", 0o644)
	newCLI(t).run(commitArgs(srv, "-b", "main", "--manifest", dir)...).wantCode(t, 0)
	if got := firstParents(t, srv, 2); got[0] != "first" || got[1] != "second" {
		t.Fatalf("chain %q", got)
	}
	if got, _ := readFile(t, srv, "main", "app.yaml"); got != "v: 2\n" {
		t.Fatalf("app.yaml holds %q", got)
	}
}

// TestFanInSignalMidBatch: a signal while the batch's first write is held
// never reports the manifests failed while they land: the exit code and
// the branch agree.
func TestFanInSignalMidBatch(t *testing.T) {
	srv := fake(t)
	dir := t.TempDir()
	for i := range 3 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("%d.yaml", i)), manifestN(i), 0o644)
	}
	received, release := srv.HoldNextWrite("POST /repos/{owner}/{repo}/git/trees")
	defer release()
	before := head(t, srv, "main")
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan cliResult, 1)
	go func() { done <- newCLI(t).runCtx(ctx, commitArgs(srv, "-b", "main", "--manifest", dir)...) }()
	select {
	case <-received:
	case r := <-done:
		t.Fatalf("exit %d before its first write\n%s", r.code, r.stderr)
	case <-time.After(30 * time.Second):
		t.Fatal("no tree was written")
	}
	cancel(cmdutil.SignalCause{Sig: syscall.SIGINT})
	release()
	var r cliResult
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the command did not end")
	}
	landed := head(t, srv, "main") != before
	switch {
	case r.code == 0 && landed && len(firstParents(t, srv, 4)) == 4:
	case r.code == 130 && !landed:
	default:
		t.Fatalf("exit %d, branch moved %v\n%s", r.code, landed, r.stderr)
	}
}
