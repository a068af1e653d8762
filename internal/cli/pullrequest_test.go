package cli

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

func TestCommitPullRequest(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	dir := t.TempDir()
	f := filepath.Join(dir, "api.yaml")
	if err := os.WriteFile(f, []byte("tag: v2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mainHead := head(t, srv, "main")
	r := c.run(commitArgs(srv, "-b", "bump-api", "-m", "Bump api to v2\n\nBecause.", "--pull-request", "--add", "deploy/api.yaml="+f)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "opened pull request #1: ") {
		t.Fatalf("stdout = %q", r.stdout)
	}
	if head(t, srv, "main") != mainHead {
		t.Fatal("the base branch moved")
	}
	if got, _ := readFile(t, srv, "bump-api", "deploy/api.yaml"); got != "tag: v2\n" {
		t.Fatalf("head branch content = %q", got)
	}
	// A second commit to the same head reuses the open pull request.
	if err := os.WriteFile(f, []byte("tag: v3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = c.run(commitArgs(srv, "-b", "bump-api", "-m", "Bump api to v3", "--pull-request", "--json", "--add", "deploy/api.yaml="+f)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var out struct {
		Commit      string `json:"commit"`
		PullRequest struct {
			Number  int  `json:"number"`
			Created bool `json:"created"`
		} `json:"pull_request"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	if out.PullRequest.Number != 1 || out.PullRequest.Created || out.Commit != head(t, srv, "bump-api") {
		t.Fatalf("second run = %+v", out)
	}
	// head == base is refused before any request.
	srv.ResetRequests()
	r = c.run(commitArgs(srv, "-b", "main", "--base", "main", "-m", "x", "--pull-request", "--add", "a="+f)...)
	if r.code != 2 || len(srv.Requests()) != 0 {
		t.Fatalf("head == base: exit %d, %d requests, stderr %q", r.code, len(srv.Requests()), r.stderr)
	}
}

func TestCommitSignKey(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	e, err := openpgp.NewEntity("Jane Doe", "", "jane@example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	var key bytes.Buffer
	w, err := armor.Encode(&key, openpgp.PrivateKeyType, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SerializePrivate(w, nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key.asc")
	if err := os.WriteFile(keyFile, key.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(f, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Without --author: usage error, nothing sent.
	r := c.run(commitArgs(srv, "-b", "main", "-m", "signed", "--sign-key", keyFile, "--add", "a.txt="+f)...)
	if r.code != 2 || len(srv.Requests()) != 0 {
		t.Fatalf("no author: exit %d, %d requests: %s", r.code, len(srv.Requests()), r.stderr)
	}
	r = c.run(commitArgs(srv, "-b", "main", "-m", "signed", "--author", "Jane Doe <jane@example.com>", "--sign-key", keyFile, "--add", "a.txt="+f)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	commit, err := srv.Commit("acme", "mono", head(t, srv, "main"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(commit.PGPSignature, "-----BEGIN PGP SIGNATURE-----") {
		t.Fatalf("gpgsig = %q", commit.PGPSignature)
	}
	// The signature verifies over what GitHub reports as the signed payload.
	gc, _, err := srv.Client.Git.GetCommit(t.Context(), "acme", "mono", commit.SHA)
	if err != nil {
		t.Fatal(err)
	}
	keyring := openpgp.EntityList{e}
	if _, err := openpgp.CheckArmoredDetachedSignature(keyring, strings.NewReader(gc.GetVerification().GetPayload()), strings.NewReader(commit.PGPSignature), nil); err != nil {
		t.Fatalf("signature does not verify: %v", err)
	}
	// A file that is not a key: exit 2.
	r = c.run(commitArgs(srv, "-b", "main", "-m", "signed", "--author", "Jane Doe <jane@example.com>", "--sign-key", f, "--add", "b.txt="+f)...)
	if r.code != 2 {
		t.Fatalf("bad key: exit %d: %s", r.code, r.stderr)
	}
}

// TestCommitPullRequestPassesEngineAndBase (issue 19.2): --pull-request
// commits through --engine, and creates the head branch from
// --create-branch-from when given (from --base otherwise).
func TestCommitPullRequestPassesEngineAndBase(t *testing.T) {
	for _, engine := range []string{"git-data", "graphql", "contents", "auto"} {
		t.Run(engine, func(t *testing.T) {
			srv := fake(t)
			if _, err := srv.Seed("acme", "mono", "release", "release only", githubtest.File{Path: "release.txt", Content: []byte("r\n")}); err != nil {
				t.Fatal(err)
			}
			c := newCLI(t)
			srv.ResetRequests()
			r := c.run(commitArgs(srv, "-b", "bump", "-m", "Bump", "--pull-request", "--json", "--engine", engine,
				"--create-branch-from", "release", "--edit", "release.txt=cat; echo more")...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var out struct {
				Engine string `json:"engine"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
			}
			want := engine
			if engine == "auto" {
				want = "contents" // one plain file
			}
			if out.Engine != want {
				t.Errorf("engine %q, want %q", out.Engine, want)
			}
			if engine != "git-data" && srv.Count("POST /repos/{owner}/{repo}/git/commits") != 0 {
				t.Errorf("--engine %s: the commit was made through Git Data", engine)
			}
			if got, _ := readFile(t, srv, "bump", "release.txt"); got != "r\nmore\n" {
				t.Errorf("release.txt on the head branch = %q: not created from --create-branch-from", got)
			}
		})
	}
}

// --json's pull_request object has one shape whether --pull-request asked
// for the pull request or --on-protected pull-request opened it: the same
// keys, and the same values for the same pull request (base, head, created,
// operation).
func TestJSONPullRequestOneShape(t *testing.T) {
	prObject := func(t *testing.T, args ...string) (map[string]any, string) {
		t.Helper()
		srv := fake(t)
		if _, err := srv.AddRuleset("acme", "mono", githubtest.Ruleset{Name: "r", Include: []string{"~DEFAULT_BRANCH"}, Rules: []githubtest.Rule{githubtest.RequirePullRequest()}}); err != nil {
			t.Fatal(err)
		}
		r := newCLI(t).run(commitArgs(srv, append([]string{"--json", "-m", "m", "--edit", "a=echo a"}, args...)...)...)
		r.wantCode(t, 0)
		obj := oneJSON(t, r.stdout)
		pr, _ := obj["pull_request"].(map[string]any)
		if pr == nil {
			t.Fatalf("no pull_request object: %s", r.stdout)
		}
		branch, _ := obj["branch"].(string)
		return pr, branch
	}
	asked, askedHead := prObject(t, "--pull-request", "--base", "main", "-b", "bump")
	instead, insteadHead := prObject(t, "--on-protected", "pull-request")
	keys := func(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
	want := []string{"base", "created", "head", "number", "operation", "url"}
	if !slices.Equal(keys(asked), want) || !slices.Equal(keys(instead), want) {
		t.Fatalf("pull_request keys: --pull-request %v, --on-protected %v, want %v", keys(asked), keys(instead), want)
	}
	for _, k := range []string{"base", "created", "operation", "number"} {
		if asked[k] != instead[k] {
			t.Errorf("%s: --pull-request %v, --on-protected %v", k, asked[k], instead[k])
		}
	}
	if asked["head"] != askedHead || instead["head"] != insteadHead || asked["base"] != "main" || asked["operation"] != "created" {
		t.Errorf("--pull-request %v (branch %s), --on-protected %v (branch %s)", asked, askedHead, instead, insteadHead)
	}
}
