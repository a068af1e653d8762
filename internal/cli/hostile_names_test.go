package cli

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// TestCommitHostilePaths: --add and --delete of a path holding URL syntax
// write and delete that path, on every engine, and touch nothing else:
// not docs/C, which an unescaped docs/C#.md names, nor cfg beside cfg#old
// (same content, so that a delete sent there would succeed).
func TestCommitHostilePaths(t *testing.T) {
	for _, engine := range []string{"git-data", "graphql", "contents", "auto"} {
		t.Run(engine, func(t *testing.T) {
			srv := fake(t,
				githubtest.File{Path: "README.md", Content: []byte("hello\n")},
				githubtest.File{Path: "cfg", Content: []byte("same\n")},
				githubtest.File{Path: "cfg#old", Content: []byte("same\n")},
				githubtest.File{Path: "a%41", Content: []byte("same\n")},
				githubtest.File{Path: "aA", Content: []byte("same\n")},
			)
			c := newCLI(t)
			for _, step := range []struct {
				args    []string
				changed string
			}{
				{[]string{"--add", "docs/C#.md=-"}, "docs/C#.md"},
				{[]string{"--delete", "cfg#old"}, "cfg#old"},
				{[]string{"--add", "docs/q?x&y=-"}, "docs/q?x&y"},
				{[]string{"--delete", "a%41"}, "a%41"},
			} {
				c.stdin = "new\n"
				r := c.run(commitArgs(srv, append([]string{"--engine", engine, "--json", "-m", "hostile"}, step.args...)...)...)
				if r.code != 0 {
					t.Fatalf("%v: exit %d: %s", step.args, r.code, r.stderr)
				}
				var out commitcmd.JSONResult
				if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
					t.Fatalf("%v: %v: %s", step.args, err, r.stdout)
				}
				if !slices.Equal(out.Changed, []string{step.changed}) {
					t.Errorf("%v: changed = %q, want [%q]", step.args, out.Changed, step.changed)
				}
			}
			files, err := srv.Files("acme", "mono", "main")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for p, f := range files {
				got[p] = string(f.Content)
			}
			want := map[string]string{"README.md": "hello\n", "cfg": "same\n", "aA": "same\n",
				"docs/C#.md": "new\n", "docs/q?x&y": "new\n"}
			if !maps.Equal(got, want) {
				t.Errorf("files on main:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestCommitHostilePathBootstrap: an empty repository's first commit (the
// contents API, whatever the engine) holds the asked path.
func TestCommitHostilePathBootstrap(t *testing.T) {
	for _, engine := range []string{"git-data", "graphql", "contents", "auto"} {
		t.Run(engine, func(t *testing.T) {
			srv := githubtest.NewServer(t, githubtest.WithToken(testToken))
			if err := srv.CreateRepo("acme", "mono", false); err != nil {
				t.Fatal(err)
			}
			c := newCLI(t)
			c.stdin = "first\n"
			r := c.run(commitArgs(srv, "--engine", engine, "-m", "first", "--add", "docs/C#.md=-")...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			files, err := srv.Files("acme", "mono", "main")
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != 1 || string(files["docs/C#.md"].Content) != "first\n" {
				t.Errorf("files on main: %+v", files)
			}
		})
	}
}
