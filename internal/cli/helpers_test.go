package cli

import (
	"bytes"
	"context"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

const testToken = "test-token"

// cli runs ghcommitter in-process.
type cli struct {
	t     *testing.T
	env   map[string]string
	stdin string
	// terminal makes stderr count as a terminal (progress is shown).
	terminal bool
	// exposed plays a failed hideCredentials.
	exposed error
}

// environ is the process environment with c.env on top, as the commands
// --edit runs would see it from a shell that exported c.env.
func (c *cli) environ() []string {
	env := os.Environ()
	for k, v := range c.env {
		env = append(env, k+"="+v)
	}
	return env
}

type cliResult struct {
	code           int
	stdout, stderr string
}

func newCLI(t *testing.T) *cli {
	return &cli{t: t, env: map[string]string{"GH_TOKEN": testToken}}
}

func (c *cli) run(args ...string) cliResult {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return c.runCtx(ctx, args...)
}

// runCtx runs ghcommitter in-process under ctx (cancel it with a
// signalCause to play a signal).
func (c *cli) runCtx(ctx context.Context, args ...string) cliResult {
	return c.runStdin(ctx, strings.NewReader(c.stdin), args...)
}

// runStdin runs ghcommitter in-process with stdin read from in.
func (c *cli) runStdin(ctx context.Context, in io.Reader, args ...string) cliResult {
	var out, errb bytes.Buffer
	e := &cmdutil.Env{
		Stdin:      in,
		Stdout:     &out,
		Stderr:     &errb,
		Getenv:     func(k string) string { return c.env[k] },
		Environ:    c.environ,
		IsTerminal: c.terminal,
		Exposed:    c.exposed,
	}
	code := Run(ctx, args, e)
	return cliResult{code: code, stdout: out.String(), stderr: errb.String()}
}

// fake starts a fake GitHub requiring testToken, with acme/mono seeded.
// noUpdateRefs makes the fake answer updateRefs as a GitHub without it
// does (the preview gone): the CLI moves branches by REST PATCH.
func noUpdateRefs(srv *githubtest.TestServer) {
	srv.Inject(githubtest.Fault{Route: githubtest.RouteGraphQL, BodyContains: githubtest.MutationUpdateRefs, Status: 200,
		Body: `{"errors":[{"path":["mutation UpdateRefs","updateRefs"],"extensions":{"code":"undefinedField","typeName":"Mutation","fieldName":"updateRefs"},"message":"Field 'updateRefs' doesn't exist on type 'Mutation'"}]}`})
}

// staleUpdateRefs answers every updateRefs as GitHub answers one whose
// branch is no longer at beforeOid: another writer moved it.
func staleUpdateRefs() githubtest.Fault {
	return githubtest.Fault{Route: githubtest.RouteGraphQL, BodyContains: githubtest.MutationUpdateRefs, Status: 200,
		Body: githubtest.GraphQLErrorBody("updateRefs", "STALE_DATA", "Reference refs/heads/main is at 0929670cc804228df5f0b3e8f7a741dfb735ba62 but expected c45b5444e7ae45df5356ca2b8dbf49db646826d4.")}
}

func fake(t *testing.T, files ...githubtest.File) *githubtest.TestServer {
	t.Helper()
	srv := githubtest.NewServer(t, githubtest.WithToken(testToken))
	if len(files) == 0 {
		files = []githubtest.File{{Path: "README.md", Content: []byte("hello\n")}}
	}
	if _, err := srv.Seed("acme", "mono", "main", "Initial commit", files...); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	return srv
}

// commitArgs returns the arguments that point a commit at srv.
func commitArgs(srv *githubtest.TestServer, extra ...string) []string {
	return append([]string{"commit", "--api-url", srv.URL, "-R", "acme/mono"}, extra...)
}

func head(t *testing.T, srv *githubtest.TestServer, branch string) string {
	t.Helper()
	h, ok := srv.Head("acme", "mono", branch)
	if !ok {
		t.Fatalf("branch %s does not exist", branch)
	}
	return h
}

func readFile(t *testing.T, srv *githubtest.TestServer, ref, path string) (string, string) {
	t.Helper()
	data, mode, err := srv.ReadFile("acme", "mono", ref, path)
	if err != nil {
		t.Fatalf("read %s at %s: %v", path, ref, err)
	}
	return string(data), mode
}

func writes(srv *githubtest.TestServer) int {
	return srv.CountWrites() // REST writes and GraphQL mutations, not GraphQL queries
}

func writeFile(t *testing.T, path, content string, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(dirOf(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
}

func dirOf(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[:i]
	}
	return "."
}

func (r cliResult) wantCode(t *testing.T, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
}

// groupAlive reports whether any live (not zombie) process is in process
// group pgid. Zombies count as gone: a container's init may never reap them.
func groupAlive(t *testing.T, pgid int) bool {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) >= 3 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}

// pidAlive reports whether pid is a live (not zombie) process.
func pidAlive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	f := strings.Fields(string(stat[i+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// eventually polls cond for up to a generous deadline: outcomes, not times.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still not true after 30s: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readPid waits for a command to write its pid to file.
func readPid(t *testing.T, file string) int {
	t.Helper()
	var pid int
	eventually(t, "the edit command wrote its pid", func() bool {
		data, err := os.ReadFile(file)
		if err != nil || !bytes.HasSuffix(data, []byte("\n")) {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil
	})
	return pid
}

// countUpdateRefs counts, from now on, the updateRefs mutations srv
// handles (path lookups go to POST /graphql too).
func countUpdateRefs(srv *githubtest.TestServer) func() int {
	var n atomic.Int32
	srv.Inject(githubtest.Fault{Route: githubtest.RouteGraphQL, BodyContains: githubtest.MutationUpdateRefs, Before: func(*http.Request) { n.Add(1) }})
	return func() int { return int(n.Load()) }
}
