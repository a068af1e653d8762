package main

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
			srv := githubtest.NewServer(t, githubtest.WithToken(testToken), githubtest.WithLatency(5*time.Millisecond))
			if _, err := srv.Seed("acme", "mono", "main", "Initial commit", githubtest.File{Path: "README.md", Content: []byte("hello\n")}); err != nil {
				t.Fatal(err)
			}
			srv.ResetRequests()
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
