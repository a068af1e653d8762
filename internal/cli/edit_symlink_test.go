package cli

import (
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// --edit, --set and --unset of a symbolic link are refused, naming the
// link and its target, with nothing written, on every engine; the link
// and its target stay as they were.
func TestEditOfSymlinkIsRefused(t *testing.T) {
	for _, engine := range []string{"git-data", "graphql", "contents", "auto"} {
		for _, edit := range [][]string{
			{"--edit", "deploy/current.yaml=sed s/1/3/"},
			{"--set", "deploy/current.yaml:tag=v3"},
			{"--unset", "deploy/current.yaml:tag"},
			{"--set", "deploy/current.yaml:tag=v3", "--dry-run"},
		} {
			t.Run(engine+" "+strings.Join(edit, " "), func(t *testing.T) {
				srv := fake(t,
					githubtest.File{Path: "deploy/v1/app.yaml", Content: []byte("tag: v1\n")},
					githubtest.File{Path: "deploy/current.yaml", Content: []byte("v1/app.yaml"), Mode: "120000"})
				before := head(t, srv, "main")
				c := newCLI(t)
				args := append([]string{"-m", "edit", "--engine", engine}, edit...)
				res := c.run(commitArgs(srv, args...)...)
				res.wantCode(t, cmdutil.ExitUsage)
				for _, want := range []string{"deploy/current.yaml", "symbolic link", `"v1/app.yaml"`} {
					if !strings.Contains(res.stderr, want) {
						t.Errorf("stderr does not say %q:\n%s", want, res.stderr)
					}
				}
				if h := head(t, srv, "main"); h != before || writes(srv) != 0 {
					t.Errorf("the branch moved to %s (%d writes)", h, writes(srv))
				}
			})
		}
	}
}
