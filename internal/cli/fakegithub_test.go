package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// startFake runs "ghcommitter fake-github" in process with args and returns
// its base URL and a stop func that returns its stderr.
func startFake(t *testing.T, args ...string) (string, func() string) {
	t.Helper()
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, append([]string{"fake-github", "--listen", "127.0.0.1:0"}, args...),
			&cmdutil.Env{Stdout: pw, Stderr: &errb, Getenv: func(string) string { return "" }})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no URL line: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	stop := func() string {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("fake-github exited %d; stderr:\n%s", code, errb.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("fake-github did not stop")
		}
		return errb.String()
	}
	t.Cleanup(func() { cancel() })
	return strings.TrimSpace(line), stop
}

func httpDo(t *testing.T, method, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func TestFakeGitHubEmptyRepoAndLimits(t *testing.T) {
	url, stop := startFake(t, "--empty-repo", "acme/new", "--empty-repo", "acme/other", "--repo", "acme/mono",
		"--limits", "github", "--limits-scale", "2", "--tree-timeout-entries", "2")
	for _, name := range []string{"new", "other"} {
		if resp := httpDo(t, "GET", url+"repos/acme/"+name+"/git/ref/heads/main", ""); resp.StatusCode != 409 {
			t.Errorf("empty repo %s: GET ref %d, want 409", name, resp.StatusCode)
		}
	}
	tree := `{"tree":[{"path":"a","mode":"100644","content":"a"},{"path":"b","mode":"100644","content":"b"},{"path":"c","mode":"100644","content":"c"}]}`
	if resp := httpDo(t, "POST", url+"repos/acme/mono/git/trees", tree); resp.StatusCode != 422 {
		t.Errorf("3-entry tree with --tree-timeout-entries 2: %d, want 422", resp.StatusCode)
	}
	// 85 writes in well under a (30 s) scaled minute: 5 or more are over 80.
	limited, withRA := 0, 0
	for i := range 85 {
		resp := httpDo(t, "POST", url+"repos/acme/mono/git/blobs", `{"content":"`+strings.Repeat("x", i)+`"}`)
		if resp.StatusCode == 403 || resp.StatusCode == 429 {
			limited++
			if resp.Header.Get("Retry-After") != "" {
				withRA++
			}
		}
	}
	if limited == 0 {
		t.Error("85 quick writes were never limited")
	}
	resp, err := http.Get(url + "_githubtest/limits")
	if err != nil {
		t.Fatal(err)
	}
	var stats map[string]map[string]int
	if err := json.NewDecoder(resp.Body).Decode(&stats); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(stats) != 1 {
		t.Fatalf("stats %v", stats)
	}
	for id, st := range stats {
		if strings.Contains(id, testToken) || st["Limited"] != limited || st["Writes"] != 86 {
			t.Errorf("stats %s: %v (limited %d, %d with retry-after)", id, st, limited, withRA)
		}
	}
	if errs := stop(); !strings.Contains(errs, "limited") {
		t.Errorf("no counters on exit: %s", errs)
	}
}

func TestFakeGitHubLimitFlagsRefused(t *testing.T) {
	for _, args := range [][]string{
		{"fake-github", "--limits", "strict"},
		{"fake-github", "--limits", "github", "--limits-scale", "0"},
		{"fake-github", "--tree-timeout-entries", "-1"},
		{"fake-github", "--empty-repo", "nope"},
	} {
		r := newCLI(t).run(args...)
		r.wantCode(t, 2)
		if r.stdout != "" {
			t.Errorf("%v: printed %q before failing", args, r.stdout)
		}
	}
}
