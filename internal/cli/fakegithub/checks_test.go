package fakegithub

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
)

// --allow-auto-merge, --auto-check, --require-check and --merge-queue: a
// pull request's head gets the check at once, a direct merge is refused,
// and a queued pull request merges through the queue.
func TestCheckFlags(t *testing.T) {
	base := serve(t, "--repo", "acme/r", "--allow-auto-merge", "--auto-check", "ci:success", "--require-check", "main:ci",
		"--merge-queue", "main", "--merge-queue-group", "2")
	rr := base + "repos/acme/r"
	if st, repo := do(t, "GET", rr, ""); st != 200 || repo["allow_auto_merge"] != true {
		t.Fatalf("repository: %d %v", st, repo)
	}
	_, ref := do(t, "GET", rr+"/git/ref/heads/main", "")
	head := ref["object"].(map[string]any)["sha"].(string)
	do(t, "POST", rr+"/git/refs", `{"ref":"refs/heads/topic","sha":"`+head+`"}`)
	_, c := do(t, "PUT", rr+"/contents/t.txt", `{"message":"m","content":"eA==","branch":"topic"}`)
	topic := c["commit"].(map[string]any)["sha"].(string)
	if _, runs := do(t, "GET", rr+"/commits/"+topic+"/check-runs", ""); runs["total_count"] != float64(1) {
		t.Fatalf("check runs on topic: %v", runs)
	}
	_, pr := do(t, "POST", rr+"/pulls", `{"title":"t","head":"topic","base":"main"}`)
	if st, e := do(t, "PUT", rr+"/pulls/1/merge", ""); st != 405 || e["message"] == nil {
		t.Fatalf("direct merge: %d %v", st, e)
	}
	q, _ := json.Marshal(map[string]any{"query": `mutation($id: ID!) { enqueuePullRequest(input: {pullRequestId: $id}) { clientMutationId } }`,
		"variables": map[string]any{"id": pr["node_id"]}})
	if st, out := do(t, "POST", base+"graphql", string(q)); st != 200 || out["errors"] != nil {
		t.Fatalf("enqueue: %d %v", st, out)
	}
	if _, got := do(t, "GET", rr+"/pulls/1", ""); got["merged"] != true {
		t.Fatalf("not merged through the queue: %v", got)
	}
}

// Bad check flags are usage errors.
func TestCheckFlagsRejected(t *testing.T) {
	for _, args := range [][]string{{"--auto-check", "ci"}, {"--auto-check", "ci:maybe"}, {"--auto-check", "ci:success:**:soon"},
		{"--require-check", "main"}, {"--merge-queue", "main", "--merge-queue-group", "0"}} {
		cmd := NewCmd(&cmdutil.Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }})
		cmd.SetArgs(append([]string{"--listen", "127.0.0.1:0", "--repo", "acme/r"}, args...))
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		if err := cmd.Execute(); err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
}
