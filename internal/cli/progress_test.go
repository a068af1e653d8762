package cli

import (
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"
)

// End to end: a write held back by a rate limit shows as a wait in a CI
// log, on stderr only: --json's stdout is one object.
func TestProgressShowsRateLimitWait(t *testing.T) {
	srv := fake(t)
	srv.SecondaryRateLimit("POST /repos/{owner}/{repo}/git/trees", 3, 1)
	c := newCLI(t)
	res := c.run(commitArgs(srv, "-m", "m", "--edit", "a.txt=echo a", "--json")...)
	res.wantCode(t, 0)
	if !strings.Contains(res.stderr, "ghcommitter: waiting 3s for ") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
	var out commitcmd.JSONResult
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || strings.Count(res.stdout, "\n") != 1 {
		t.Errorf("stdout is not one JSON object: %v\n%s", err, res.stdout)
	}
}

// On a terminal, a commit that takes a few seconds shows its line and
// clears it; not on a terminal, nothing is ever redrawn.
func TestProgressOnTerminal(t *testing.T) {
	big := make([]byte, 5<<20)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(local, big, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, terminal := range []bool{false, true} {
		srv := fake(t)
		if terminal {
			srv.SetLatency(400 * time.Millisecond)
		}
		c := newCLI(t)
		c.terminal = terminal
		r := c.run(commitArgs(srv, "-m", "m", "--add", "assets/big.bin="+local)...)
		r.wantCode(t, 0)
		shown := strings.Contains(r.stderr, "\r\033[Kattempt 1: ")
		if terminal && (!shown || !strings.HasSuffix(r.stderr, "\r\033[K")) {
			t.Errorf("terminal: stderr = %q, want the line drawn and cleared", r.stderr)
		}
		// Not on a terminal: never a redrawn line, only whole log lines
		// (a phase that outlasts plainPhaseAfter on a loaded machine may
		// show one; whether it does depends on the clock, so it is not
		// asserted).
		if !terminal && strings.Contains(r.stderr, "\033[") {
			t.Errorf("not a terminal: stderr = %q holds terminal control sequences", r.stderr)
		}
		for _, line := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
			if !terminal && line != "" && !strings.HasPrefix(line, "ghcommitter: ") {
				t.Errorf("not a terminal: line %q is not a log line", line)
			}
		}
		if got, _ := readFile(t, srv, "main", "assets/big.bin"); got != string(big) {
			t.Error("assets/big.bin differs")
		}
	}
}
