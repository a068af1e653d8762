package fakegithub

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
)

// serve runs fake-github with args in process and returns its base URL.
func serve(t *testing.T, args ...string) string {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := NewCmd(&cmdutil.Env{Stdout: pw, Stderr: io.Discard, Getenv: func(string) string { return "" }})
	cmd.SetArgs(append([]string{"--listen", "127.0.0.1:0"}, args...))
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx); pw.Close() }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no URL line: %v (%v)", err, <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("fake-github: %v", err)
		}
	})
	return strings.TrimSpace(line)
}

func do(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// --merge-methods, --delete-branch-on-merge and --require-up-to-date set
// what the repositories show and how their pull requests merge.
func TestMergeFlags(t *testing.T) {
	base := serve(t, "--repo", "acme/r", "--merge-methods", "squash,rebase", "--delete-branch-on-merge", "--require-up-to-date", "main")
	rr := base + "repos/acme/r"
	if st, repo := do(t, "GET", rr, ""); st != 200 || repo["allow_merge_commit"] != false || repo["allow_squash_merge"] != true ||
		repo["allow_rebase_merge"] != true || repo["delete_branch_on_merge"] != true {
		t.Fatalf("repository: %d %v", st, repo)
	}
	_, ref := do(t, "GET", rr+"/git/ref/heads/main", "")
	head := ref["object"].(map[string]any)["sha"].(string)
	write := func(branch, path string) {
		t.Helper()
		_, c := do(t, "PUT", rr+"/contents/"+path, `{"message":"m","content":"eA==","branch":"`+branch+`"}`)
		if c["commit"] == nil {
			t.Fatalf("write %s on %s: %v", path, branch, c)
		}
	}
	if st, _ := do(t, "POST", rr+"/git/refs", `{"ref":"refs/heads/topic","sha":"`+head+`"}`); st != 201 {
		t.Fatalf("create topic: %d", st)
	}
	write("topic", "t.txt")
	if st, _ := do(t, "POST", rr+"/pulls", `{"title":"t","head":"topic","base":"main"}`); st != 201 {
		t.Fatalf("open pull: %d", st)
	}
	write("main", "m.txt")
	if _, pr := do(t, "GET", rr+"/pulls/1", ""); pr["mergeable_state"] != "behind" {
		t.Fatalf("mergeable_state %v, want behind", pr["mergeable_state"])
	}
	if st, e := do(t, "PUT", rr+"/pulls/1/merge", `{"merge_method":"merge"}`); st != 405 || e["message"] != "Merge commits are not allowed on this repository." {
		t.Fatalf("merge commit: %d %v", st, e)
	}
	if st, _ := do(t, "PUT", rr+"/pulls/1/merge", `{"merge_method":"squash"}`); st != 405 {
		t.Fatalf("a behind pull request merged: %d", st)
	}
}

// Bad merge flags are usage errors.
func TestMergeFlagsRejected(t *testing.T) {
	for _, args := range [][]string{{"--merge-methods", "fast-forward"}, {"--merge-methods", ""}, {"--mergeability-lag", "-1s"}} {
		cmd := NewCmd(&cmdutil.Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }})
		cmd.SetArgs(append([]string{"--listen", "127.0.0.1:0", "--repo", "acme/r"}, args...))
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		if err := cmd.Execute(); err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
}

// --mergeability-lag: a new pull request reads mergeable null.
func TestMergeabilityLagFlag(t *testing.T) {
	base := serve(t, "--repo", "acme/r", "--mergeability-lag", "1h")
	rr := base + "repos/acme/r"
	_, ref := do(t, "GET", rr+"/git/ref/heads/main", "")
	head := ref["object"].(map[string]any)["sha"].(string)
	do(t, "POST", rr+"/git/refs", `{"ref":"refs/heads/topic","sha":"`+head+`"}`)
	do(t, "PUT", rr+"/contents/t.txt", `{"message":"m","content":"eA==","branch":"topic"}`)
	if st, _ := do(t, "POST", rr+"/pulls", `{"title":"t","head":"topic","base":"main"}`); st != 201 {
		t.Fatalf("open pull: %d", st)
	}
	if _, pr := do(t, "GET", rr+"/pulls/1", ""); pr["mergeable"] != nil || pr["mergeable_state"] != "unknown" {
		t.Fatalf("mergeable %v %v, want null, unknown", pr["mergeable"], pr["mergeable_state"])
	}
}
