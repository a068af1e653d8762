package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// TestProcessesTakeTurns starts 8 ghcommitter processes at once, with the
// defaults, each adding its own file and appending to one shared file:
// through the lock files in the user cache directory they land one after
// another, each on its first attempt, spending the 3 writes of a Git Data
// commit (tree, commit, ref update) and no more. With --no-turns they race
// and lose attempts, which the same counts show.
func TestProcessesTakeTurns(t *testing.T) {
	bin := buildCLI(t)
	for _, tt := range []struct {
		name  string
		extra []string
		turns bool
	}{{"default", nil, true}, {"no-turns", []string{"--no-turns"}, false}} {
		t.Run(tt.name, func(t *testing.T) {
			srv := seeded(t, githubtest.WithLatency(5*time.Millisecond))
			cache := t.TempDir()
			work := t.TempDir()
			const n = 8
			outs := make([]string, n)
			errs := make([]error, n)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range n {
				local := filepath.Join(work, fmt.Sprintf("w%d.txt", i))
				writeFile(t, local, fmt.Sprintf("writer %d\n", i), 0o644)
				args := commitArgs(srv, append([]string{"-m", fmt.Sprintf("writer %d", i), "--json", "--max-attempts", "50",
					"--add", fmt.Sprintf("writers/w%d.txt=%s", i, local),
					"--edit", fmt.Sprintf("log.txt=cat; echo %d", i)}, tt.extra...)...)
				wg.Add(1)
				go func() {
					defer wg.Done()
					cmd := exec.Command(bin, args...)
					cmd.Env = append(os.Environ(), "GH_TOKEN="+testToken, "XDG_CACHE_HOME="+cache, "GITHUB_OUTPUT=", "GITHUB_STEP_SUMMARY=")
					<-start
					out, err := cmd.Output()
					outs[i], errs[i] = string(out), err
				}()
			}
			close(start)
			wg.Wait()
			attempts := 0
			for i := range n {
				var res struct{ Attempts int }
				if errs[i] != nil || json.Unmarshal([]byte(outs[i]), &res) != nil {
					t.Fatalf("writer %d: %v: %s", i, errs[i], outs[i])
				}
				attempts += res.Attempts
			}
			got, _ := readFile(t, srv, "main", "log.txt")
			if lines := strings.Fields(got); len(lines) != n {
				t.Fatalf("log.txt = %q: want the %d writers' lines", got, n)
			}
			writes := srv.CountWrites()
			t.Logf("%d processes: %d attempts, %d writes", n, attempts, writes)
			_, err := os.Stat(filepath.Join(cache, "ghcommitter", "turns"))
			if tt.turns {
				if attempts != n || writes != 3*n {
					t.Errorf("%d attempts and %d writes for %d commits: want one attempt and 3 writes each", attempts, writes, n)
				}
				if err != nil {
					t.Errorf("no turns directory in the user cache directory: %v", err)
				}
			} else if err == nil {
				t.Errorf("--no-turns made the turns directory")
			}
		})
	}
}

// TestProcessesShareTheTokensBudget starts 40 processes at once, each
// committing to its own new branch (so no turn holds them apart), with one
// token, against the fake with github.com's limits (windows 30 times
// shorter, the clients scaled the same): 120 writes, more than the 80 a
// minute GitHub allows a token. Sharing the token's rate-limit state
// through the machine's directory (GHCOMMITTER_LIMIT_STATE_DIR, the
// default against github.com), they stay under it together and no write is
// refused; each alone would send its few writes at once and, together,
// provoke secondary limits.
func TestProcessesShareTheTokensBudget(t *testing.T) {
	bin := buildCLI(t)
	lim := githubtest.GitHubLimits
	lim.Scale, lim.Seed = 30, 1
	for _, shared := range []bool{true, false} {
		t.Run(fmt.Sprintf("shared=%v", shared), func(t *testing.T) {
			srv := seeded(t, githubtest.WithLimits(lim))
			state := filepath.Join(t.TempDir(), "limits")
			const n = 40
			errs := make([]error, n)
			outs := make([]string, n)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range n {
				args := commitArgs(srv, "-m", fmt.Sprintf("writer %d", i), "--json", "-b", fmt.Sprintf("stage-%02d", i), "--create-branch-from", "main",
					"--add", fmt.Sprintf("w%d.txt=-", i))
				wg.Add(1)
				go func() {
					defer wg.Done()
					cmd := exec.Command(bin, args...)
					cmd.Stdin = strings.NewReader(fmt.Sprintf("writer %d\n", i))
					cmd.Env = append(os.Environ(), "GH_TOKEN="+testToken, "GITHUB_OUTPUT=", "GITHUB_STEP_SUMMARY=",
						commitcmd.LimitScaleEnv+"=30", fmt.Sprintf("%s=process-%02d", commitcmd.FakeClientEnv, i))
					if shared {
						cmd.Env = append(cmd.Env, commitcmd.LimitStateDirEnv+"="+state)
					}
					<-start
					out, err := cmd.Output()
					outs[i], errs[i] = string(out), err
				}()
			}
			close(start)
			wg.Wait()
			for i := range n {
				if errs[i] != nil {
					t.Fatalf("writer %d: %v: %s", i, errs[i], outs[i])
				}
				if got, _ := readFile(t, srv, fmt.Sprintf("stage-%02d", i), fmt.Sprintf("w%d.txt", i)); got != fmt.Sprintf("writer %d\n", i) {
					t.Fatalf("stage-%02d: w%d.txt = %q", i, i, got)
				}
			}
			st := srv.LimitStats(testToken)
			t.Logf("%d processes, shared state %v: %+v", n, shared, st)
			if st.WritesInOwnRetryAfter != 0 {
				t.Errorf("%d writes inside the process's own retry-after", st.WritesInOwnRetryAfter)
			}
			if shared && (st.WritesLimited != 0 || st.WritesInRetryAfter != 0) {
				for _, r := range srv.Requests() {
					if r.Status == 403 || r.Status == 429 {
						t.Logf("refused: %s %d", r.Route, r.Status)
					}
				}
				t.Errorf("sharing the token's state: %d writes refused, %d inside another process's retry-after; want none", st.WritesLimited, st.WritesInRetryAfter)
			}
		})
	}
}

// TestProcessesRefuseOpenDirectories: a turns directory and a rate-limit
// state directory that other users may write into (mode 0777, as one
// another user pre-created under /tmp would be) are not used: the commit
// lands, racing, with its state in the process, and nothing is written
// into them.
func TestProcessesRefuseOpenDirectories(t *testing.T) {
	bin := buildCLI(t)
	srv := seeded(t)
	cache := t.TempDir()
	dirs := []string{filepath.Join(cache, "ghcommitter", "turns"), filepath.Join(cache, "limits")}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, commitArgs(srv, "-m", "open dirs", "--json", "--add", "a.txt=-")...)
	cmd.Stdin = strings.NewReader("a\n")
	cmd.Env = append(os.Environ(), "GH_TOKEN="+testToken, "XDG_CACHE_HOME="+cache, commitcmd.LimitStateDirEnv+"="+dirs[1], "GITHUB_OUTPUT=", "GITHUB_STEP_SUMMARY=")
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got, _ := readFile(t, srv, "main", "a.txt"); got != "a\n" {
		t.Fatalf("a.txt = %q", got)
	}
	for _, d := range dirs {
		if names, _ := os.ReadDir(d); len(names) != 0 {
			t.Errorf("%s: files written into a directory others may write into: %v", d, names)
		}
	}
}

// seeded is the fake with opts, acme/mono's main holding one file, its
// request log empty.
func seeded(t *testing.T, opts ...githubtest.Option) *githubtest.TestServer {
	t.Helper()
	srv := githubtest.NewServer(t, append([]githubtest.Option{githubtest.WithToken(testToken)}, opts...)...)
	if _, err := srv.Seed("acme", "mono", "main", "Initial commit", githubtest.File{Path: "README.md", Content: []byte("hello\n")}); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	return srv
}
