//go:build github

package githubtest

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"testing"
	"time"
)

// TestGitHubProbeMerge records GitHub's replies to merging (the fake's
// merge.go and BEHAVIOUR.md section 7 mark what they guess): a pull
// request's mergeability as it settles, PUT merge with a stale sha, an
// unknown method, a method the repository may not allow and a conflict,
// GET merge before and after, and GraphQL mergePullRequest stale and
// squashing. It works on throwaway branches ghcommitter-probe-<time>-*
// (the base is one of them too: the default branch never moves), closes
// its pull requests and deletes the branches afterwards. Run as the other
// probes (github_probe_test.go).
func TestGitHubProbeMerge(t *testing.T) {
	p := newProbe(t)
	rr := "/repos/" + p.owner + "/" + p.name
	const js = "application/vnd.github+json"
	_, repo := p.do("repository settings", "GET", rr, nil, js)
	def, _ := repo["default_branch"].(string)
	_, ref := p.do("default branch", "GET", rr+"/git/ref/heads/"+def, nil, js)
	head := ref["object"].(map[string]any)["sha"].(string)
	stem := fmt.Sprintf("ghcommitter-probe-%d", time.Now().UnixNano())
	base, topic, clash := stem+"-base", stem+"-topic", stem+"-clash"
	var pulls []string
	t.Cleanup(func() {
		for _, n := range pulls {
			p.do("cleanup", "PATCH", rr+"/pulls/"+n, map[string]any{"state": "closed"}, js)
		}
		for _, b := range []string{base, topic, clash} {
			p.do("cleanup", "DELETE", rr+"/git/refs/heads/"+b, nil, js)
		}
	})
	for _, b := range []string{base, topic, clash} {
		if st, _ := p.do("create "+b, "POST", rr+"/git/refs", map[string]any{"ref": "refs/heads/" + b, "sha": head}, js); st != 201 {
			t.Fatalf("creating %s: %d", b, st)
		}
	}
	put := func(branch, path, content string) {
		p.do("write "+path+" on "+branch, "PUT", rr+"/contents/"+path, map[string]any{"message": "probe " + path,
			"content": base64.StdEncoding.EncodeToString([]byte(content)), "branch": branch}, js)
	}
	put(topic, stem+"-a.txt", "topic\n")
	put(clash, stem+"-shared.txt", "clash\n")
	put(base, stem+"-shared.txt", "base\n")
	open := func(h string) string {
		_, pr := p.do("open "+h, "POST", rr+"/pulls", map[string]any{"title": "probe " + h, "head": h, "base": base}, js)
		n := strconv.Itoa(int(pr["number"].(float64)))
		pulls = append(pulls, n)
		return n
	}
	n, nc := open(topic), open(clash)
	for i := 0; i < 10; i++ { // mergeable is null until GitHub has computed it
		_, pr := p.do("pull as it settles", "GET", rr+"/pulls/"+n, nil, js)
		_, prc := p.do("conflicting pull as it settles", "GET", rr+"/pulls/"+nc, nil, js)
		if pr["mergeable"] != nil && prc["mergeable"] != nil {
			break
		}
		time.Sleep(time.Second)
	}
	p.do("check merged, open", "GET", rr+"/pulls/"+n+"/merge", nil, js)
	p.do("merge with a stale sha", "PUT", rr+"/pulls/"+n+"/merge", map[string]any{"sha": head}, js)
	p.do("merge with an unknown method", "PUT", rr+"/pulls/"+n+"/merge", map[string]any{"merge_method": "octopus"}, js)
	p.do("merge a conflict", "PUT", rr+"/pulls/"+nc+"/merge", nil, js)
	for _, m := range []string{"merge", "squash", "rebase"} {
		if repo["allow_"+map[string]string{"merge": "merge_commit", "squash": "squash_merge", "rebase": "rebase_merge"}[m]] == false {
			p.do("merge by a method the repository does not allow", "PUT", rr+"/pulls/"+n+"/merge", map[string]any{"merge_method": m}, js)
		}
	}
	_, pr := p.do("pull before merging", "GET", rr+"/pulls/"+n, nil, js)
	id, _ := pr["node_id"].(string)
	m := `mutation($in: MergePullRequestInput!) { mergePullRequest(input: $in) { pullRequest { merged state mergeCommit { oid message } } } }`
	p.graphql("mergePullRequest with a stale expectedHeadOid", m, map[string]any{"in": map[string]any{"pullRequestId": id, "expectedHeadOid": head}}, "")
	p.graphql("mergePullRequest squash", m, map[string]any{"in": map[string]any{"pullRequestId": id, "mergeMethod": "SQUASH",
		"expectedHeadOid": pr["head"].(map[string]any)["sha"]}}, "")
	p.do("check merged, merged", "GET", rr+"/pulls/"+n+"/merge", nil, js)
	p.do("pull after merging", "GET", rr+"/pulls/"+n, nil, js)
	p.do("merge again", "PUT", rr+"/pulls/"+n+"/merge", nil, js)
	p.graphql("merged pull over GraphQL", `query($id: ID!) { node(id: $id) { ... on PullRequest { state merged mergeable mergeStateStatus mergedBy { login } } } }`,
		map[string]any{"id": id}, "")
}
