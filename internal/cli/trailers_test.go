package cli

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

func TestCommitTrailers(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	r := c.run(commitArgs(srv, "-b", "main", "-m", "Bump\n\nBody.", "--author", "Jane Doe <jane@example.com>",
		"--trailer", "Ticket=OPS-7", "--trailer", "Reviewed-by: Bob <bob@example.com>", "--signoff", "--edit", "a=echo a")...)
	r.wantCode(t, 0)
	got := headCommitMessage(t, srv)
	want := "Bump\n\nBody.\n\nTicket: OPS-7\nReviewed-by: Bob <bob@example.com>\nSigned-off-by: Jane Doe <jane@example.com>\nGhcommitter-Edit-Id: "
	if !strings.HasPrefix(got, want) {
		t.Errorf("message = %q, want it to start %q", got, want)
	}

	// --no-edit-id leaves the Edit-Id trailer out; --signoff without an
	// author takes git's committer identity from the environment.
	c.env["GIT_COMMITTER_NAME"], c.env["GIT_COMMITTER_EMAIL"] = "CI Bot", "ci@example.com"
	r = c.run(commitArgs(srv, "-b", "main", "-m", "Again", "--signoff", "--no-edit-id", "--edit", "a=echo b")...)
	r.wantCode(t, 0)
	if got := headCommitMessage(t, srv); got != "Again\n\nSigned-off-by: CI Bot <ci@example.com>\n" {
		t.Errorf("message = %q", got)
	}

	// Bad trailers and a sign-off without identity send nothing.
	before := head(t, srv, "main")
	srv.ResetRequests()
	for _, args := range [][]string{
		{"--trailer", "no value"},
		{"--trailer", "K=a\nEvil: injected"},
		{"--signoff"},
	} {
		c := newCLI(t)
		r := c.run(commitArgs(srv, append([]string{"-b", "main", "-m", "m", "--edit", "a=echo c"}, args...)...)...)
		r.wantCode(t, cmdutil.ExitUsage)
	}
	if n := srv.CountMethod("POST") + srv.CountMethod("PATCH"); n != 0 || head(t, srv, "main") != before {
		t.Errorf("refused trailers sent %d writes or moved the branch", n)
	}
}

func headCommitMessage(t *testing.T, srv *githubtest.TestServer) string {
	t.Helper()
	c, err := srv.Commit("acme", "mono", head(t, srv, "main"))
	if err != nil {
		t.Fatal(err)
	}
	return c.Message
}

// TestCommitTrailerEditIDIsNotOurs (issue 18.2): --trailer
// Ghcommitter-Edit-Id=… is the caller's text. Two writers give the same one;
// A's landing write fails without an answer while B lands: A must settle by
// its own Edit-Id (the message's last line), not report B's commit, and
// land its file once.
func TestCommitTrailerEditIDIsNotOurs(t *testing.T) {
	for _, engine := range []string{"graphql", "contents", "auto"} {
		t.Run(engine, func(t *testing.T) {
			srv := fake(t)
			route := "PUT /repos/{owner}/{repo}/contents/{path...}"
			if engine == "graphql" {
				route = "POST /graphql"
			}
			trailer := []string{"--engine", engine, "--trailer", "Ghcommitter-Edit-Id=0123456789abcdef", "--json"}
			var outB string
			var once sync.Once
			srv.Inject(githubtest.Fault{Route: route, Times: 1, Status: http.StatusBadGateway, Before: func(*http.Request) {
				once.Do(func() {
					// B runs inside A's request: as another process would,
					// through a coordinator of its own (one process commits
					// to a branch one batch after the other, so B in A's
					// process would wait for A). The same fake under another
					// name of the host is another API for the coordinator.
					args := append([]string{"commit", "--api-url", strings.Replace(srv.URL, "127.0.0.1", "localhost", 1), "-R", "acme/mono",
						"-m", "deploy", "--add", "b.txt=-"}, trailer...)
					r := newCLI(t).run(args...)
					if r.code != 0 {
						t.Errorf("writer B: exit %d: %s", r.code, r.stderr)
					}
					outB = r.stdout
				})
			}})
			c := newCLI(t)
			c.stdin = "A\n"
			r := c.run(commitArgs(srv, append([]string{"-m", "deploy", "--add", "a.txt=-"}, trailer...)...)...)
			r.wantCode(t, 0)
			var a, b struct{ Commit string }
			if err := json.Unmarshal([]byte(r.stdout), &a); err != nil {
				t.Fatalf("A's output %q: %v", r.stdout, err)
			}
			if err := json.Unmarshal([]byte(outB), &b); err != nil || b.Commit == "" {
				t.Fatalf("B's output %q: %v", outB, err)
			}
			if a.Commit == b.Commit {
				t.Fatalf("A reports B's commit %s", b.Commit)
			}
			if got, _, err := srv.ReadFile("acme", "mono", a.Commit, "a.txt"); err != nil || string(got) != "A\n" {
				t.Fatalf("A's commit %s holds a.txt = %q (%v)", a.Commit, got, err)
			}
			msg := headCommitMessage(t, srv)
			if !strings.Contains(msg, "\nGhcommitter-Edit-Id: 0123456789abcdef\nGhcommitter-Edit-Id: ") {
				t.Errorf("message %q: want the caller's trailer kept and ours after it", msg)
			}
		})
	}
}
