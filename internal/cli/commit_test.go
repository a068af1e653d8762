package cli

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

func TestCommitLocalPathsKeepModesAndSymlinks(t *testing.T) {
	srv := fake(t)
	t.Chdir(t.TempDir())
	writeFile(t, "conf/app.yaml", "a: 1\n", 0o644)
	writeFile(t, "conf/db.yaml", "b: 2\n", 0o644)
	writeFile(t, "bin/run.sh", "#!/bin/sh\necho hi\n", 0o755)
	if err := os.Symlink("conf/app.yaml", "current"); err != nil {
		t.Fatal(err)
	}
	r := newCLI(t).run(commitArgs(srv, "-m", "Add config", "conf", "bin/run.sh", "current")...)
	r.wantCode(t, 0)
	sha := head(t, srv, "main")
	want := "committed 4 files to acme/mono@main: " + sha[:12] + " (1 attempt) " + srv.URL + "acme/mono/commit/" + sha + "\n"
	if r.stdout != want {
		t.Errorf("stdout = %q, want %q", r.stdout, want)
	}
	for path, wantMode := range map[string]string{"conf/app.yaml": "100644", "conf/db.yaml": "100644", "bin/run.sh": "100755", "current": "120000"} {
		if _, mode := readFile(t, srv, "main", path); mode != wantMode {
			t.Errorf("%s: mode %s, want %s", path, mode, wantMode)
		}
	}
	if target, _ := readFile(t, srv, "main", "current"); target != "conf/app.yaml" {
		t.Errorf("symlink target = %q", target)
	}
	hist, err := srv.History("acme", "mono", "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2 || hist[0].Message != "Add config" {
		t.Errorf("history = %+v, want the new commit on the initial one", hist)
	}
}

func TestCommitNoFileModeAndPrefix(t *testing.T) {
	srv := fake(t)
	t.Chdir(t.TempDir())
	writeFile(t, "run.sh", "#!/bin/sh\n", 0o755)
	if err := os.Symlink("run.sh", "link"); err != nil {
		t.Fatal(err)
	}
	newCLI(t).run(commitArgs(srv, "-m", "m", "--no-file-mode", "--prefix", "tools/", "run.sh", "link")...).wantCode(t, 0)
	for _, p := range []string{"tools/run.sh", "tools/link"} {
		data, mode := readFile(t, srv, "main", p)
		if mode != "100644" || data != "#!/bin/sh\n" {
			t.Errorf("%s: mode %s content %q, want a plain 100644 copy", p, mode, data)
		}
	}
}

func TestCommitNoOp(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "a.txt", Content: []byte("same\n")})
	before := head(t, srv, "main")
	local := filepath.Join(t.TempDir(), "a.txt")
	writeFile(t, local, "same\n", 0o644)
	c := newCLI(t)
	outFile := filepath.Join(t.TempDir(), "out")
	c.env["GITHUB_OUTPUT"] = outFile
	r := c.run(commitArgs(srv, "-m", "m", "--add", "a.txt="+local)...)
	r.wantCode(t, 0)
	if want := "no changes: acme/mono@main already up to date (" + before[:12] + ")\n"; r.stdout != want {
		t.Errorf("stdout = %q, want %q", r.stdout, want)
	}
	if head(t, srv, "main") != before {
		t.Error("a no-op moved the branch")
	}
	got, _ := os.ReadFile(outFile)
	if want := "commit=" + before + "\nnoop=true\nbranch=main\nchanged-count=0\nchanged-files=[]\nchanged-files-truncated=false\n"; !strings.HasPrefix(string(got), want) {
		t.Errorf("GITHUB_OUTPUT = %q", got)
	}
}

func TestCommitJSONHasExactlyTheContractKeys(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	c.stdin = "from stdin\n"
	r := c.run(commitArgs(srv, "-m", "m", "--json", "--add", "docs/in.txt=-")...)
	r.wantCode(t, 0)
	var obj map[string]any
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	if dec.More() {
		t.Errorf("stdout holds more than one JSON value: %s", r.stdout)
	}
	var keys []string
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := []string{"attempts", "branch", "changed", "commit", "engine", "noop", "parent", "repository", "tree", "url"}
	if strings.Join(keys, ",") != strings.Join(want, ",") {
		t.Errorf("keys = %v, want %v", keys, want)
	}
	sha := head(t, srv, "main")
	if obj["commit"] != sha || obj["noop"] != false || obj["url"] != srv.URL+"acme/mono/commit/"+sha || obj["attempts"] != 1.0 || obj["engine"] != "git-data" {
		t.Errorf("json = %v", obj)
	}
	if ch, ok := obj["changed"].([]any); !ok || len(ch) != 1 || ch[0] != "docs/in.txt" {
		t.Errorf("changed = %#v", obj["changed"])
	}
	if data, _ := readFile(t, srv, "main", "docs/in.txt"); data != "from stdin\n" {
		t.Errorf("docs/in.txt = %q", data)
	}

	// A no-op still has "changed": [].
	c.stdin = "from stdin\n"
	r = c.run(commitArgs(srv, "-m", "m", "--json", "--add", "docs/in.txt=-")...)
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, `"changed":[]`) || !strings.Contains(r.stdout, `"noop":true`) {
		t.Errorf("no-op json = %s", r.stdout)
	}
}

func TestCommitGitHubOutputAndSummary(t *testing.T) {
	srv := fake(t)
	dir := t.TempDir()
	c := newCLI(t)
	c.env["GITHUB_OUTPUT"] = filepath.Join(dir, "output")
	c.env["GITHUB_STEP_SUMMARY"] = filepath.Join(dir, "summary")
	writeFile(t, c.env["GITHUB_OUTPUT"], "earlier=1\n", 0o644)
	c.run(commitArgs(srv, "-m", "m", "--edit", "x.txt=echo x")...).wantCode(t, 0)
	sha := head(t, srv, "main")
	got, _ := os.ReadFile(c.env["GITHUB_OUTPUT"])
	if want := "earlier=1\ncommit=" + sha + "\nnoop=false\nbranch=main\nchanged-count=1\nchanged-files=[\"x.txt\"]\nchanged-files-truncated=false\nengine=git-data\nverified=false\n"; string(got) != want {
		t.Errorf("GITHUB_OUTPUT = %q", got)
	}
	sum, _ := os.ReadFile(c.env["GITHUB_STEP_SUMMARY"])
	if strings.Count(string(sum), "\n") != 1 || !strings.Contains(string(sum), sha[:12]) {
		t.Errorf("summary = %q, want one line naming the commit", sum)
	}
}

func TestCommitEditRunsOnFreshContentWithEnv(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "counter.txt", Content: []byte("41\n")})
	c := newCLI(t)
	r := c.run(commitArgs(srv, "-m", "m",
		"--edit", `counter.txt=read n; echo $((n+1)); echo "exists=$GHCOMMITTER_EXISTS path=$GHCOMMITTER_PATH" >&2`,
		"--edit", `new.txt=echo "exists=$GHCOMMITTER_EXISTS"; cat`)...)
	r.wantCode(t, 0)
	if got, _ := readFile(t, srv, "main", "counter.txt"); got != "42\n" {
		t.Errorf("counter.txt = %q, want 42", got)
	}
	if got, _ := readFile(t, srv, "main", "new.txt"); got != "exists=0\n" {
		t.Errorf("new.txt = %q", got)
	}
	if !strings.Contains(r.stderr, "exists=1 path=counter.txt") {
		t.Errorf("the edit command's stderr was not passed on: %q", r.stderr)
	}
}

func TestCommitFailingEditCommitsNothing(t *testing.T) {
	srv := fake(t)
	before := head(t, srv, "main")
	r := newCLI(t).run(commitArgs(srv, "-m", "m", "--add", "other.txt=-", "--edit", "x.txt=echo partial; echo 'yaml: bad indent' >&2; exit 3")...)
	r.wantCode(t, 1)
	if !strings.HasPrefix(r.stderr, "ghcommitter: ") || !strings.Contains(r.stderr, "yaml: bad indent") || !strings.Contains(r.stderr, "status 3") {
		t.Errorf("stderr = %q, want the command's stderr and status", r.stderr)
	}
	if head(t, srv, "main") != before {
		t.Error("the branch moved")
	}
	if n := srv.CountMethod("PATCH") + srv.Count("POST /repos/{owner}/{repo}/git/commits"); n != 0 {
		t.Errorf("%d commit or ref writes after a failed edit", n)
	}
}

func TestCommitDryRunSendsNoWrite(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "a.txt", Content: []byte("a\n")}, githubtest.File{Path: "old/x", Content: []byte("x\n")}, githubtest.File{Path: "README.md", Content: []byte("r\n")})
	before := head(t, srv, "main")
	local := t.TempDir()
	writeFile(t, filepath.Join(local, "a.txt"), "a\n", 0o644)
	writeFile(t, filepath.Join(local, "b.txt"), "b\n", 0o644)
	r := newCLI(t).run(commitArgs(srv, "-m", "m", "--dry-run",
		"--add", "a.txt="+filepath.Join(local, "a.txt"), "--add", "b.txt="+filepath.Join(local, "b.txt"),
		"--delete", "old", "--edit", "README.md=echo changed")...)
	r.wantCode(t, 0)
	for _, want := range []string{"unchanged  a.txt", "added      b.txt", "deleted    old", "modified   README.md"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, r.stdout)
		}
	}
	if n := writes(srv); n != 0 {
		t.Errorf("dry run sent %d write requests", n)
	}
	if head(t, srv, "main") != before {
		t.Error("dry run moved the branch")
	}

	r = newCLI(t).run(commitArgs(srv, "-m", "m", "--dry-run", "--json", "--delete", "old")...)
	r.wantCode(t, 0)
	var plan struct {
		Files []struct{ Path, Action string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil || len(plan.Files) != 1 || plan.Files[0].Action != "deleted" {
		t.Errorf("dry run json = %s (%v)", r.stdout, err)
	}
}

func TestCommitDeleteSyncAndMessageFile(t *testing.T) {
	srv := fake(t,
		githubtest.File{Path: "deploy/keep.yaml", Content: []byte("k\n")},
		githubtest.File{Path: "deploy/stale.yaml", Content: []byte("s\n")},
		githubtest.File{Path: "old/a", Content: []byte("a\n")},
		githubtest.File{Path: "old/sub/b", Content: []byte("b\n")},
		githubtest.File{Path: "README.md", Content: []byte("r\n")},
	)
	local := t.TempDir()
	writeFile(t, filepath.Join(local, "keep.yaml"), "k\n", 0o644)
	writeFile(t, filepath.Join(local, "new/n.yaml"), "n\n", 0o644)
	c := newCLI(t)
	c.stdin = "Sync deploy\n\nWith a body.\n"
	r := c.run(commitArgs(srv, "-F", "-", "--sync", local+"=deploy", "--delete", "old/")...)
	r.wantCode(t, 0)
	files, err := srv.Files("acme", "mono", "main")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if got := strings.Join(paths, " "); got != "README.md deploy/keep.yaml deploy/new/n.yaml" {
		t.Errorf("files = %s", got)
	}
	// deploy/new/n.yaml, deploy/stale.yaml and the two files of old/.
	if !strings.HasPrefix(r.stdout, "committed 4 files") {
		t.Errorf("stdout = %q", r.stdout)
	}
	hist, _ := srv.History("acme", "mono", "main")
	if hist[0].Message != "Sync deploy\n\nWith a body.\n" {
		t.Errorf("message = %q", hist[0].Message)
	}
}

func TestCommitPreconditionConflictsExit3(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "lock", Content: []byte("held\n")})
	before := head(t, srv, "main")
	for name, args := range map[string][]string{
		"expect-absent": {"--expect-absent", "lock", "--edit", "lock=echo mine"},
		"expect-sha":    {"--expect-sha", "lock=" + strings.Repeat("0", 40), "--delete", "lock"},
	} {
		t.Run(name, func(t *testing.T) {
			r := newCLI(t).run(commitArgs(srv, append([]string{"-m", "m"}, args...)...)...)
			r.wantCode(t, 3)
			if !strings.HasPrefix(r.stderr, "ghcommitter: ") || !strings.Contains(r.stderr, `"lock"`) {
				t.Errorf("stderr = %q", r.stderr)
			}
			if head(t, srv, "main") != before {
				t.Error("the branch moved")
			}
		})
	}
	// The right blob SHA lets it through.
	sum := sha1.Sum([]byte("blob 5\x00held\n"))
	newCLI(t).run(commitArgs(srv, "-m", "m", "--expect-sha", "lock="+hex.EncodeToString(sum[:]), "--delete", "lock")...).wantCode(t, 0)
}

func TestCommitAttemptsRunOutExit3(t *testing.T) {
	srv := fake(t)
	before := head(t, srv, "main")
	srv.Inject(staleUpdateRefs())
	updates := countUpdateRefs(srv)
	r := newCLI(t).run(commitArgs(srv, "-m", "m", "--max-attempts", "2", "--edit", "a=echo a")...)
	r.wantCode(t, 3)
	if updates() != 2 {
		t.Errorf("%d ref updates, want 2", updates())
	}
	if head(t, srv, "main") != before {
		t.Error("the branch moved")
	}
}

func TestCommitBranchSelection(t *testing.T) {
	srv := fake(t)
	if _, err := srv.Seed("acme", "mono", "release", "Release branch", githubtest.File{Path: "r", Content: []byte("r\n")}); err != nil {
		t.Fatal(err)
	}
	c := newCLI(t)
	c.env["GITHUB_ACTIONS"] = "true"
	c.env["GITHUB_REF"] = "refs/heads/release"
	c.env["GITHUB_REF_NAME"] = "release"
	c.env["GITHUB_REPOSITORY"] = "acme/mono"
	r := c.run("commit", "--api-url", srv.URL, "-m", "m", "--edit", "a=echo a")
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "acme/mono@release") {
		t.Errorf("stdout = %q, want the Actions branch", r.stdout)
	}
	// A tag-triggered run falls back to the default branch.
	c.env["GITHUB_REF"] = "refs/tags/v1"
	c.env["GITHUB_REF_NAME"] = "v1"
	r = c.run("commit", "--api-url", srv.URL, "-m", "m", "--edit", "a=echo b")
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "acme/mono@main") {
		t.Errorf("stdout = %q, want the default branch", r.stdout)
	}
	// --create-branch-from makes a missing branch.
	r = c.run("commit", "--api-url", srv.URL, "-m", "m", "-b", "feature/x", "--create-branch-from", "main", "--edit", "f=echo f")
	r.wantCode(t, 0)
	if got, _ := readFile(t, srv, "feature/x", "a"); got != "b\n" {
		t.Errorf("feature/x was not built on main: a = %q", got)
	}
}

func TestCommitAuthorAndTokenFile(t *testing.T) {
	srv := fake(t)
	tok := filepath.Join(t.TempDir(), "token")
	writeFile(t, tok, testToken+"\n", 0o600)
	c := newCLI(t)
	delete(c.env, "GH_TOKEN")
	r := c.run(commitArgs(srv, "-m", "m", "--token-file", tok, "--author", "Jane Doe <jane@example.com>", "--edit", "a=echo a")...)
	r.wantCode(t, 0)
	hist, _ := srv.History("acme", "mono", "main")
	if a := hist[0].Author; a.Name != "Jane Doe" || a.Email != "jane@example.com" {
		t.Errorf("author = %+v", a)
	}
	if strings.Contains(r.stdout+r.stderr, testToken) {
		t.Error("the token was printed")
	}
}

func TestCommitBadInvocations(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "README.md", Content: []byte("r\n")})
	t.Chdir(t.TempDir())
	writeFile(t, "ok.txt", "ok\n", 0o644)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	writeFile(t, outside, "o\n", 0o644)
	if err := os.MkdirAll("adir", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("site", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join("site", "leak")); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create("big.bin")
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(100<<20 + 1); err != nil { // sparse: no 100 MB written
		t.Fatal(err)
	}
	big.Close()
	tests := []struct {
		name     string
		args     []string
		env      map[string]string // overrides; "" removes
		code     int
		inStderr string
	}{
		{"unknown flag", []string{"--bogus"}, nil, 2, "unknown flag"},
		{"no message", []string{"ok.txt"}, nil, 2, "no commit message"},
		{"both messages", []string{"-m", "a", "-F", "x", "ok.txt"}, nil, 2, "choose one"},
		{"empty message", []string{"-m", " ", "ok.txt"}, nil, 2, "empty"},
		{"nothing to commit", []string{"-m", "m"}, nil, 2, "nothing to commit"},
		{"missing local file", []string{"-m", "m", "nope.txt"}, nil, 2, "nope.txt"},
		{"absolute path", []string{"-m", "m", outside}, nil, 2, "--add REMOTE=LOCAL"},
		{"path outside cwd", []string{"-m", "m", "../x"}, nil, 2, "--add REMOTE=LOCAL"},
		{"bad --add", []string{"-m", "m", "--add", "nolocal"}, nil, 2, "REMOTE=LOCAL"},
		{"bad remote path", []string{"-m", "m", "--add", "a/../b=ok.txt"}, nil, 2, ".."},
		{".git path", []string{"-m", "m", "--delete", ".git/config"}, nil, 2, ".git"},
		{"bad --edit", []string{"-m", "m", "--edit", "a.txt"}, nil, 2, "PATH=COMMAND"},
		{"bad --expect-sha", []string{"-m", "m", "--expect-sha", "a=123", "ok.txt"}, nil, 2, "PATH=SHA"},
		{"bad --sync", []string{"-m", "m", "--sync", "nodir=deploy"}, nil, 2, "nodir"},
		{"bad author", []string{"-m", "m", "--author", "jane", "ok.txt"}, nil, 2, "Name <email>"},
		{"bad max attempts", []string{"-m", "m", "--max-attempts", "0", "ok.txt"}, nil, 2, "max-attempts"},
		{"bad branch", []string{"-m", "m", "-b", "a..b", "ok.txt"}, nil, 2, "branch"},
		{"file and dir clash", []string{"-m", "m", "--add", "ok.txt=ok.txt", "--add", "ok.txt/x=ok.txt"}, nil, 2, "ok.txt"},
		{"two stdin readers", []string{"-F", "-", "--add", "a=-"}, nil, 2, "stdin"},
		{"same path twice", []string{"-m", "m", "--add", "a=ok.txt", "--add", "a=ok.txt"}, nil, 2, "more than one operation"},
		{"directory as message file", []string{"-F", "adir", "ok.txt"}, nil, 2, "adir"},
		{"sync symlink outside the tree", []string{"-m", "m", "--sync", "site=deploy"}, nil, 2, "outside"},
		{"file over 100 MB", []string{"-m", "m", "big.bin"}, nil, 2, "100 MB"},
		{"no token", []string{"-m", "m", "ok.txt"}, map[string]string{"GH_TOKEN": ""}, 2, "set GH_TOKEN or GITHUB_TOKEN"}, // the fake is on loopback: GH_TOKEN first
		{"missing token file", []string{"-m", "m", "--token-file", "/nonexistent", "ok.txt"}, nil, 2, "token-file"},
		{"incomplete app", []string{"-m", "m", "--app-id", "1", "ok.txt"}, nil, 2, "--app-key-file"},
		{"bad repo", []string{"-m", "m", "-R", "nope", "ok.txt"}, nil, 2, "OWNER/REPO"},
		{"bad api url", []string{"-m", "m", "--api-url", "ftp://x", "ok.txt"}, nil, 2, "scheme"},
		{"extra positional to version", nil, nil, 2, ""},
		{"bad token", []string{"-m", "m", "ok.txt"}, map[string]string{"GH_TOKEN": "wrong"}, 1, "GH_TOKEN"},
		{"unknown repo", []string{"-m", "m", "-R", "acme/nope", "ok.txt"}, nil, 1, "contents: write"},
		{"missing branch", []string{"-m", "m", "-b", "nope", "ok.txt"}, nil, 1, "--create-branch-from"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := head(t, srv, "main")
			srv.ResetRequests()
			c := newCLI(t)
			for k, v := range tt.env {
				if v == "" {
					delete(c.env, k)
				} else {
					c.env[k] = v
				}
			}
			args := commitArgs(srv, tt.args...)
			if tt.args == nil {
				args = []string{"version", "extra"}
			}
			r := c.run(args...)
			r.wantCode(t, tt.code)
			if !strings.HasPrefix(r.stderr, "ghcommitter: ") {
				t.Errorf("stderr does not start with \"ghcommitter: \": %q", r.stderr)
			}
			if !strings.Contains(r.stderr, tt.inStderr) {
				t.Errorf("stderr = %q, want it to mention %q", r.stderr, tt.inStderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q, want nothing", r.stdout)
			}
			if head(t, srv, "main") != before {
				t.Error("the branch moved")
			}
			if n := writes(srv); tt.code == 2 && n != 0 {
				t.Errorf("%d write requests for invalid input", n)
			}
		})
	}
}

func TestCommitAPIRefusalsHaveHints(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int
		body   string
		hint   string
	}{
		{"forbidden", 403, `{"message":"Resource not accessible by integration"}`, "contents: write"},
		{"protected", 422, `{"message":"Changes must be made through a pull request."}`, "--pull-request -b NEW_BRANCH"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := fake(t)
			noUpdateRefs(srv) // these are REST PATCH answers
			before := head(t, srv, "main")
			srv.Inject(githubtest.Fault{Route: "PATCH /repos/{owner}/{repo}/git/refs/{ref...}", Status: tt.status, Body: tt.body})
			r := newCLI(t).run(commitArgs(srv, "-m", "m", "--edit", "a=echo a")...)
			r.wantCode(t, 1)
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "ghcommitter: ") || !strings.HasPrefix(lines[1], "hint: ") || !strings.Contains(lines[1], tt.hint) {
				t.Errorf("stderr = %q, want a message line and a hint mentioning %q", r.stderr, tt.hint)
			}
			if head(t, srv, "main") != before {
				t.Error("the branch moved")
			}
		})
	}
}

var shaLine = regexp.MustCompile(`^committed \d+ files? to \S+@\S+: [0-9a-f]{12} \(\d+ attempts?\) \S+$`)
