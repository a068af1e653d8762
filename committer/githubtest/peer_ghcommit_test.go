package githubtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A real GraphQL committer, @changesets/ghcommit, runs unchanged against the
// fake: npm installs it from the project's own package.json and
// package-lock.json (testdata/npm/ghcommit) into a cache kept between runs,
// and node runs its commitChanges with an Octokit pointed at the fake. It
// uses its own flow: a GraphQL metadata query (with a fragment on Tag),
// REST createRef whose node_id goes to createCommitOnBranch as the branch
// id, and for force the temporary-branch dance (createRef, commit, REST
// updateRef with force, deleteRef).

var peerDir = filepath.Join("..", "..", "testdata", "npm", "ghcommit")

// npmNetworkErrors mark an npm failure as the registry being unreachable.
var npmNetworkErrors = []string{"ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENETUNREACH", "network", "offline", "E403", "E503"}

// peerEnv is the environment for npm and node: no token of any kind.
func peerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.Contains(strings.ToUpper(name), "TOKEN") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// installPeer returns a directory holding run.mjs and its node_modules,
// installed with npm ci once per content of package.json, package-lock.json
// and run.mjs, under the user's cache directory.
func installPeer(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not on PATH: the peer-client test needs node and npm", tool)
		}
	}
	files := []string{"package.json", "package-lock.json", "run.mjs"}
	sum := sha256.New()
	contents := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(peerDir, f))
		if err != nil {
			t.Fatal(err)
		}
		contents[f] = b
		sum.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	parent := filepath.Join(cache, "ghcommitter-test", "npm")
	dir := filepath.Join(parent, "ghcommit-"+hex.EncodeToString(sum.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, ".installed")); err == nil {
		return dir
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Logf("no npm cache (%v): installing into a temporary directory", err)
		parent = t.TempDir()
		dir = filepath.Join(parent, "ghcommit")
	}
	tmp, err := os.MkdirTemp(parent, "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	for f, b := range contents {
		if err := os.WriteFile(filepath.Join(tmp, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error")
	cmd.Dir, cmd.Env = tmp, peerEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		for _, m := range npmNetworkErrors {
			if strings.Contains(string(out), m) {
				t.Skipf("the npm registry is unavailable (npm ci: %v): %s", err, firstLines(out, 5))
			}
		}
		t.Fatalf("npm ci: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".installed"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, ".installed")); statErr != nil {
			t.Fatalf("caching the npm install: %v", err) // not another run that won the race
		}
	}
	return dir
}

func firstLines(b []byte, n int) string {
	lines := strings.SplitN(string(b), "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

type peerResult struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
		Status  any    `json:"status"`
	} `json:"error"`
}

// runPeer runs one commitChanges call; cfg gets baseUrl and token.
func runPeer(t *testing.T, dir string, ts *TestServer, cfg map[string]any) peerResult {
	t.Helper()
	cfg["baseUrl"] = strings.TrimSuffix(ts.URL, "/")
	cfg["token"] = "ghp_peer-test-token-for-the-fake"
	in, _ := json.Marshal(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "run.mjs")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, peerEnv(), bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("node: %v", err)
	}
	var res peerResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("node run.mjs: %v: %s\n%s", err, out, stderr.Bytes())
	}
	return res
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestGhcommitClient(t *testing.T) {
	dir := installPeer(t)
	ts, head := seeded(t)
	files := func(ref string) map[string]File {
		t.Helper()
		fs, err := ts.Files("acme", "mono", ref)
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	mustOK := func(step string, r peerResult) {
		t.Helper()
		if !r.OK {
			t.Fatalf("%s: ghcommit failed: %+v", step, r.Error)
		}
	}

	// 1. A new branch from main: REST createRef, then createCommitOnBranch
	// on the ref's node_id.
	mustOK("new branch", runPeer(t, dir, ts, map[string]any{
		"owner": "acme", "repo": "mono", "branch": "feature", "base": map[string]any{"branch": "main"},
		"message":   "feat: add things\n\nwith a body",
		"additions": []any{map[string]any{"path": "README.md", "contents": b64("changed\n")}, map[string]any{"path": "new/deep/file.txt", "contents": b64("new\n")}},
		"deletions": []any{map[string]any{"path": "dir/a.txt"}},
	}))
	fh, ok := ts.Head("acme", "mono", "feature")
	if !ok {
		t.Fatal("no branch feature")
	}
	c, _ := ts.Commit("acme", "mono", fh)
	fs := files("feature")
	if len(c.Parents) != 1 || c.Parents[0] != head || c.Message != "feat: add things\n\nwith a body" ||
		string(fs["README.md"].Content) != "changed\n" || string(fs["new/deep/file.txt"].Content) != "new\n" || fs["dir/a.txt"].Path != "" ||
		string(fs["dir/sub/b.txt"].Content) != "b\n" {
		t.Fatalf("feature: commit %+v, files %v", c, fs)
	}
	if c.PGPSignature == "" {
		t.Error("createCommitOnBranch's commit is not signed by GitHub")
	}
	if ts.Count("POST /repos/{owner}/{repo}/git/refs") == 0 {
		t.Error("the client did not create the branch over REST")
	}

	// 2. The branch exists at the base: one commit on it through the
	// branch's GraphQL id.
	mustOK("existing branch", runPeer(t, dir, ts, map[string]any{
		"owner": "acme", "repo": "mono", "branch": "feature", "base": map[string]any{"branch": "feature"},
		"message": "second", "additions": []any{map[string]any{"path": "second.txt", "contents": b64("2\n")}},
	}))
	fh2, _ := ts.Head("acme", "mono", "feature")
	if c2, _ := ts.Commit("acme", "mono", fh2); len(c2.Parents) != 1 || c2.Parents[0] != fh || string(files("feature")["second.txt"].Content) != "2\n" {
		t.Fatalf("second commit %+v", c2)
	}

	// 3. Diverged from main without force: the client refuses, nothing moves.
	r := runPeer(t, dir, ts, map[string]any{
		"owner": "acme", "repo": "mono", "branch": "feature", "base": map[string]any{"branch": "main"},
		"message": "x", "additions": []any{map[string]any{"path": "x", "contents": b64("x")}},
	})
	if r.OK {
		t.Fatal("committed over a diverged branch without force")
	}
	if h, _ := ts.Head("acme", "mono", "feature"); h != fh2 {
		t.Fatal("feature moved")
	}

	// 4. force: a temporary branch, a commit on it, a forced REST update of
	// the branch, the temporary branch deleted.
	mustOK("force", runPeer(t, dir, ts, map[string]any{
		"owner": "acme", "repo": "mono", "branch": "feature", "base": map[string]any{"branch": "main"}, "force": true,
		"message": "reset", "additions": []any{map[string]any{"path": "reset.txt", "contents": b64("r\n")}},
	}))
	fh3, _ := ts.Head("acme", "mono", "feature")
	if c3, _ := ts.Commit("acme", "mono", fh3); len(c3.Parents) != 1 || c3.Parents[0] != head || files("feature")["second.txt"].Path != "" {
		t.Fatalf("forced commit %+v", c3)
	}
	if _, ok := ts.Head("acme", "mono", "changesets-ghcommit-temp/feature"); ok {
		t.Error("the temporary branch was not deleted")
	}

	// 5. From an annotated tag: the metadata query's fragment on Tag.
	tag := call(t, ts, "POST", "/repos/acme/mono/git/tags", map[string]any{"tag": "v1", "message": "v1\n", "object": head, "type": "commit"}).str(t, "sha")
	expect(t, call(t, ts, "POST", "/repos/acme/mono/git/refs", map[string]any{"ref": "refs/tags/v1", "sha": tag}), 201, "")
	mustOK("from a tag", runPeer(t, dir, ts, map[string]any{
		"owner": "acme", "repo": "mono", "branch": "hotfix", "base": map[string]any{"tag": "v1"},
		"message": "hotfix", "additions": []any{map[string]any{"path": "fix.txt", "contents": b64("fix\n")}},
	}))
	hh, _ := ts.Head("acme", "mono", "hotfix")
	if c4, _ := ts.Commit("acme", "mono", hh); len(c4.Parents) != 1 || c4.Parents[0] != head {
		t.Fatalf("hotfix %+v, want a child of %s", c4, head)
	}
	if main, _ := ts.Head("acme", "mono", "main"); main != head {
		t.Fatal("main moved")
	}
}
