//go:build linux

package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ActEnv names the nektos/act binary TestActionUnderAct runs the action
// in (make test-action installs it); unset, the test is skipped.
const ActEnv = "GHCOMMITTER_ACT"

// actTag is the release the local release server holds.
const actTag = "v0.0.0-acttest"

// TestActionUnderAct runs action.yml as a user would, inside a workflow
// runner no one here wrote (nektos/act, jobs on the host), against the fake
// GitHub: testdata/act/workflows/action.yml's jobs (the release download for
// a local action and for a tag pin, the source build and its cache, a
// failure), with the release served by a local server and the remote
// actions the source build nests mapped to the stand-ins in testdata/act.
// No step reaches the internet: the runner's GITHUB_API_URL and
// GITHUB_GRAPHQL_URL stay github.com's, and api-url: must move both.
func TestActionUnderAct(t *testing.T) {
	act := os.Getenv(ActEnv)
	if act == "" {
		t.Skipf("$%s is not set: make test-action installs act and runs this", ActEnv)
	}
	needTools(t, "bash", "curl", "tar", "git", "go")
	bin := buildSharedCLI(t)
	srv := fake(t)
	root := t.TempDir()
	releaseStandIn(t, root, actTag, bin)
	rel := httptest.NewServer(http.FileServer(http.Dir(root)))
	t.Cleanup(rel.Close)
	ws := actWorkspace(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"push", "-W", ".github/workflows/action.yml", "-P", "ubuntu-latest=-self-hosted",
		"--action-cache-path", filepath.Join(root, "act-cache"), "--no-cache-server", "--action-offline-mode",
		"--local-repository", "ghcommitter/ghcommitter@" + actTag + "=" + ws,
		"--local-repository", "ghcommitter/ghcommitter@main=" + ws,
		"--local-repository", "actions/cache@v4=" + filepath.Join(ws, "testdata/act/cache"),
		"--local-repository", "actions/setup-go@v6=" + filepath.Join(ws, "testdata/act/setup-go"),
		"--env", "FAKE_API=" + srv.URL,
		"--env", "GHCOMMITTER_RELEASES_URL=" + rel.URL + "/ghcommitter/ghcommitter/releases/download",
		"--env", "GHCOMMITTER_STANDIN_CACHE=" + filepath.Join(root, "standin-cache"),
		"--env", "HOST_GO_DIR=" + filepath.Dir(goBin),
		"-s", "GITHUB_TOKEN",
	}
	cmd := exec.Command(act, args...)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "GITHUB_TOKEN="+testToken)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("act %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("act: %v\n%s", err, out)
	}
	for path, want := range map[string]string{"act/one.txt": "one\n", "act/two.txt": "two\n", "act/leak.txt": "done\n", "act/setup-go.json": "{\n  \"go\": \"set-up\"\n}\n"} {
		if got, _ := readFile(t, srv, "main", path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	var values map[string]string
	if got, _ := readFile(t, srv, "main", "act/values.json"); json.Unmarshal([]byte(got), &values) != nil || values["source"] != "built" || values["cached"] != "yes" {
		t.Errorf("act/values.json = %q: want both source jobs' keys", got)
	}
	checkActLog(t, string(out))
}

// checkActLog checks what act printed: one annotation, from the failure
// job, naming the action's input; the second source job took the binary
// from the cache.
func checkActLog(t *testing.T, log string) {
	t.Helper()
	var errs []string
	for _, l := range strings.Split(log, "\n") {
		if i := strings.Index(l, "::error title=ghcommitter"); i >= 0 {
			errs = append(errs, l) // act's job prefix and the command
		}
	}
	want := map[string]string{"act/failure": "create-branch-from:", "act/partly": "exit 4"}
	for _, e := range errs {
		for job, text := range want {
			if strings.Contains(e, job) && strings.Contains(e, text) {
				delete(want, job)
			}
		}
	}
	if len(errs) != 2 || len(want) != 0 {
		t.Errorf("annotations %q: want one of the failure job, naming create-branch-from:, and one of the partly job (exit 4)\n%s", errs, log)
	}
	if !strings.Contains(log, "using the binary built for this source by an earlier job (cache)") {
		t.Errorf("the second source-build job did not take the binary from the cache\n%s", log)
	}
}

// actWorkspace is a git checkout of this tree (its files, committed or
// not, as git ls-files lists them) with the act workflow in
// .github/workflows.
func actWorkspace(t *testing.T) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	list, err := exec.Command("git", "-C", repoRoot, "ls-files", "-z", "-co", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, f := range bytes.Split(bytes.TrimRight(list, "\x00"), []byte{0}) {
		src := filepath.Join(repoRoot, string(f))
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(ws, string(f)), string(data), fi.Mode().Perm())
	}
	wf, err := os.ReadFile(filepath.Join(repoRoot, "testdata/act/workflows/action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, ".github/workflows/action.yml"), string(wf), 0o644)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=act", "-c", "user.email=act@example.com", "commit", "-qm", "act workspace"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return ws
}
