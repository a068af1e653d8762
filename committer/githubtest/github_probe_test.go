//go:build github

// Probes of real GitHub that record the replies the fake can only guess
// (graphql_refs.go marks them). They run only with the build tag and a
// token:
//
//	GITHUB_TOKEN=... GHCOMMITTER_TEST_REPO=owner/scratch-repo make test-github
//
// GHCOMMITTER_TEST_RULED_BRANCH=branch adds the refusals of a rule (see
// probeRuledBranch). They create throwaway refs named ghcommitter-probe-<time> in that
// repository and delete them afterwards. With GHCOMMITTER_PROBE_OUT=file
// the replies are also written there as JSON, to be copied into
// testdata/github-api/recorded. The token is sent only in the
// Authorization header and never logged.
package githubtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql/resolve"
)

type probe struct {
	t           *testing.T
	api, token  string
	owner, name string
	records     []map[string]any
}

func newProbe(t *testing.T) *probe {
	token, target := os.Getenv("GITHUB_TOKEN"), os.Getenv("GHCOMMITTER_TEST_REPO")
	if token == "" || target == "" {
		t.Skip("set GITHUB_TOKEN and GHCOMMITTER_TEST_REPO=owner/repo to probe GitHub")
	}
	owner, name, ok := strings.Cut(target, "/")
	if !ok {
		t.Fatalf("GHCOMMITTER_TEST_REPO=%q: want owner/repo", target)
	}
	api := strings.TrimSuffix(os.Getenv("GITHUB_API_URL"), "/")
	if api == "" {
		api = "https://api.github.com"
	}
	p := &probe{t: t, api: api, token: token, owner: owner, name: name}
	t.Cleanup(func() {
		if out := os.Getenv("GHCOMMITTER_PROBE_OUT"); out != "" {
			b, _ := json.MarshalIndent(p.records, "", "  ")
			if err := os.WriteFile(out, b, 0o644); err != nil {
				t.Error(err)
			}
		}
	})
	return p
}

// do sends one request and records the exchange under label.
func (p *probe) do(label, method, path string, body any, accept string) (int, map[string]any) {
	p.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, p.api+path, rd)
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	p.t.Logf("%s: %s %s -> %d %s", label, method, path, resp.StatusCode, raw)
	p.records = append(p.records, map[string]any{"label": label, "method": method, "path": path, "request": body,
		"accept": accept, "status": resp.StatusCode, "response": out})
	return resp.StatusCode, out
}

func (p *probe) graphql(label, query string, vars map[string]any, accept string) map[string]any {
	p.t.Helper()
	if accept == "" {
		accept = "application/json"
	}
	_, out := p.do(label, "POST", "/graphql", map[string]any{"query": query, "variables": vars}, accept)
	return out
}

// TestGitHubProbeUpdateRefs records GitHub's answers to updateRefs without
// the preview header, with a stale beforeOid, and with two refs of which
// one is refused, and checks that nothing of a refused call applied.
func TestGitHubProbeUpdateRefs(t *testing.T) {
	p := newProbe(t)
	meta := p.graphql("metadata", `query($o: String!, $n: String!) { repository(owner: $o, name: $n) {
	  id defaultBranchRef { target { oid ... on Commit { tree { oid } } } } } }`, map[string]any{"o": p.owner, "n": p.name}, "")
	repo, _ := meta["data"].(map[string]any)["repository"].(map[string]any)
	if repo == nil {
		t.Fatalf("repository %s/%s not readable", p.owner, p.name)
	}
	repoID := repo["id"].(string)
	target := repo["defaultBranchRef"].(map[string]any)["target"].(map[string]any)
	head, tree := target["oid"].(string), target["tree"].(map[string]any)["oid"].(string)
	rr := "/repos/" + p.owner + "/" + p.name
	branch := fmt.Sprintf("ghcommitter-probe-%d", time.Now().UnixNano())
	if st, _ := p.do("create branch", "POST", rr+"/git/refs", map[string]any{"ref": "refs/heads/" + branch, "sha": head}, "application/vnd.github+json"); st != 201 {
		t.Fatalf("creating %s: %d", branch, st)
	}
	t.Cleanup(func() {
		p.do("cleanup", "DELETE", rr+"/git/refs/heads/"+branch, nil, "application/vnd.github+json")
		p.do("cleanup", "DELETE", rr+"/git/refs/tags/"+branch, nil, "application/vnd.github+json")
	})
	_, c := p.do("commit", "POST", rr+"/git/commits", map[string]any{"message": "probe", "tree": tree, "parents": []string{head}}, "application/vnd.github+json")
	next := c["sha"].(string)
	m := `mutation($input: UpdateRefsInput!) { updateRefs(input: $input) { clientMutationId } }`
	in := func(ups ...map[string]any) map[string]any {
		return map[string]any{"input": map[string]any{"repositoryId": repoID, "refUpdates": ups}}
	}
	ref := "refs/heads/" + branch
	p.graphql("updateRefs without the preview header", m, in(ru(ref, head, next, false)), "")
	p.graphql("updateRefs with a stale beforeOid", m, in(ru(ref, next, next, false)), PreviewUpdateRefs)
	p.graphql("updateRefs with one of two refs refused", m,
		in(ru("refs/tags/"+branch, resolve.ZeroOid, next, false), ru(ref, "", head40, false)), PreviewUpdateRefs)
	if st, _ := p.do("the tag of the refused call", "GET", rr+"/git/ref/tags/"+branch, nil, "application/vnd.github+json"); st != 404 {
		t.Errorf("a refused updateRefs created refs/tags/%s (status %d)", branch, st)
	}
	p.graphql("updateRefs success", m, in(ru(ref, head, next, false)), PreviewUpdateRefs)
	p.graphql("updateRefs not a fast forward", m, in(ru(ref, next, head, false)), PreviewUpdateRefs)
	probeRuledBranch(t, p, repoID, rr)
}

// probeRuledBranch records GitHub's refusals by a rule, on the branch
// GHCOMMITTER_TEST_RULED_BRANCH names: a branch of the scratch repository
// under a ruleset or classic protection that refuses a direct update (for
// example "require a pull request"). The probe sends a fast-forward of it
// over updateRefs and REST PATCH git/refs; were the branch not ruled, it
// would move.
func probeRuledBranch(t *testing.T, p *probe, repoID, rr string) {
	rb := os.Getenv("GHCOMMITTER_TEST_RULED_BRANCH")
	if rb == "" {
		t.Log("GHCOMMITTER_TEST_RULED_BRANCH not set: rule refusals not probed")
		return
	}
	_, ref := p.do("ruled branch", "GET", rr+"/git/ref/heads/"+rb, nil, "application/vnd.github+json")
	obj, _ := ref["object"].(map[string]any)
	head, _ := obj["sha"].(string)
	if head == "" {
		t.Fatalf("ruled branch %s not readable", rb)
	}
	_, c := p.do("ruled head", "GET", rr+"/git/commits/"+head, nil, "application/vnd.github+json")
	tree := c["tree"].(map[string]any)["sha"].(string)
	_, nc := p.do("commit on the ruled head", "POST", rr+"/git/commits", map[string]any{"message": "probe", "tree": tree, "parents": []string{head}}, "application/vnd.github+json")
	next := nc["sha"].(string)
	m := `mutation($input: UpdateRefsInput!) { updateRefs(input: $input) { clientMutationId } }`
	p.graphql("updateRefs refused by a rule", m, map[string]any{"input": map[string]any{"repositoryId": repoID,
		"refUpdates": []any{ru("refs/heads/"+rb, head, next, false)}}}, PreviewUpdateRefs)
	p.do("PATCH git/refs refused by a rule", "PATCH", rr+"/git/refs/heads/"+rb, map[string]any{"sha": next}, "application/vnd.github+json")
	_, now := p.do("ruled branch after", "GET", rr+"/git/ref/heads/"+rb, nil, "application/vnd.github+json")
	if o, _ := now["object"].(map[string]any); o["sha"] != head {
		t.Errorf("the ruled branch %s moved: it is not ruled against direct updates", rb)
	}
}
