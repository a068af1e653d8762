package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// TestJSONSaysBootstrapped: a commit to an empty repository reports, in
// --json, that its first file went through the contents API first.
func TestJSONSaysBootstrapped(t *testing.T) {
	srv := githubtest.NewServer(t, githubtest.WithToken(testToken))
	if err := srv.CreateRepo("acme", "mono", false); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	args := []string{"-m", "start", "--json"}
	for _, name := range []string{"a.txt", "b.txt"} {
		local := filepath.Join(dir, name)
		if err := os.WriteFile(local, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--add", name+"="+local)
	}
	r := newCLI(t).run(commitArgs(srv, args...)...)
	r.wantCode(t, 0)
	var res struct {
		Commit       string   `json:"commit"`
		Changed      []string `json:"changed"`
		Bootstrapped bool     `json:"bootstrapped"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if !res.Bootstrapped || head(t, srv, "main") != res.Commit {
		t.Errorf("result %+v: want bootstrapped and the head", res)
	}
	for _, p := range []string{"a.txt", "b.txt"} {
		if got, _ := readFile(t, srv, "main", p); got != p {
			t.Errorf("%s holds %q", p, got)
		}
	}
}
