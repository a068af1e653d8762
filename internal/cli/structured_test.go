package cli

import (
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

const valuesYAML = `# Values for the api chart.

image:
  repository: ghcr.io/acme/api   # the registry
  tag: "1.20"

stages: {}
`

func TestSetChangesOnlyTheValueOnTheBranch(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "deploy/values.yaml", Content: []byte(valuesYAML)},
		githubtest.File{Path: "deploy/config.json", Content: []byte("{\n  \"replicas\": 1\n}\n")})
	r := newCLI(t).run(commitArgs(srv, "-m", "promote",
		"--set", "deploy/values.yaml:image.tag=1.21",
		"--set-string", "deploy/values.yaml:image.build=42",
		"--unset", "deploy/values.yaml:image.repository",
		"--set", "deploy/config.json:replicas=3")...)
	r.wantCode(t, 0)
	got, _ := readFile(t, srv, "main", "deploy/values.yaml")
	want := "# Values for the api chart.\n\nimage:\n  tag: \"1.21\"\n  build: \"42\"\n\nstages: {}\n"
	if got != want {
		t.Fatalf("values.yaml =\n%s\nwant\n%s", got, want)
	}
	if got, _ := readFile(t, srv, "main", "deploy/config.json"); got != "{\n  \"replicas\": 3\n}\n" {
		t.Fatalf("config.json = %q", got)
	}
}

// TestSetThatCannotApplyWritesNothing: a key through a scalar, content that
// is not YAML, a missing key with --must-exist: exit 2 naming the file and
// the key, and no write request.
func TestSetThatCannotApplyWritesNothing(t *testing.T) {
	for _, c := range []struct {
		args []string
		key  string
	}{
		{[]string{"--set", "deploy/values.yaml:image.tag.major=2"}, "image.tag.major"},
		{[]string{"--set", "deploy/broken.yaml:a=1"}, "a"},
		{[]string{"--must-exist", "--set", "deploy/values.yaml:image.digest=sha256:1"}, "image.digest"},
		{[]string{"--unset", "deploy/values.yaml:image.nothere", "--must-exist"}, "image.nothere"},
		{[]string{"--set-image", "deploy/values2.yaml:api:1.2"}, "api:1.2"},
		{[]string{"--set", "deploy/values.yaml:image.tag=1.21", "--set", "deploy/values.yaml:stages.0.x=1"}, "stages.0.x"},
	} {
		t.Run(c.key, func(t *testing.T) {
			srv := fake(t, githubtest.File{Path: "deploy/values.yaml", Content: []byte(valuesYAML)},
				githubtest.File{Path: "deploy/broken.yaml", Content: []byte("a: [1\n")},
				githubtest.File{Path: "deploy/values2.yaml", Content: []byte("images: 1\n")})
			before := head(t, srv, "main")
			r := newCLI(t).run(commitArgs(srv, append([]string{"-m", "m"}, c.args...)...)...)
			r.wantCode(t, 2)
			if !strings.Contains(r.stderr, "deploy/") || !strings.Contains(r.stderr, c.key) {
				t.Errorf("stderr = %q, want it to name the file and %q", r.stderr, c.key)
			}
			if head(t, srv, "main") != before || writes(srv) != 0 {
				t.Errorf("the branch moved or %d writes were sent", writes(srv))
			}
		})
	}
}

func TestSetUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--set", "values.yaml"},
		{"--set", "values.yaml:image.tag"},
		{"--set", "../values.yaml:a=1"},
		{"--set", "values.yaml:a..b=1"},
		{"--unset", "values.yaml:"},
		{"--set-image", "k.yaml:api"},
		{"--set", "c.json:@1.a=1"},
	} {
		srv := fake(t)
		r := newCLI(t).run(commitArgs(srv, append([]string{"-m", "m"}, args...)...)...)
		r.wantCode(t, 2)
		if srv.CountMethod("GET")+writes(srv) != 0 {
			t.Errorf("%v: requests were sent", args)
		}
	}
}

// TestCutKeyThroughTheCLI: --set's key may hold an escaped "=".
func TestCutKeyThroughTheCLI(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "v.yaml", Content: []byte("a=b: 1\n")})
	newCLI(t).run(commitArgs(srv, "-m", "m", "--set", `v.yaml:a\=b=x=y`)...).wantCode(t, 0)
	if got, _ := readFile(t, srv, "main", "v.yaml"); got != "a=b: x=y\n" {
		t.Fatalf("v.yaml = %q", got)
	}
}

// TestSetReRunsOnTheFreshContent: another writer changes the file between
// our read and our ref update; the edit is re-applied to its version.
func TestSetReRunsOnTheFreshContent(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "deploy/values.yaml", Content: []byte(valuesYAML)})
	other := strings.Replace(valuesYAML, "stages: {}", "# staging is pinned\nstages: {staging: \"1.19\"}", 1)
	srv.MoveBranchBeforeNextUpdate("acme", "mono", "main", githubtest.File{Path: "deploy/values.yaml", Content: []byte(other)})
	newCLI(t).run(commitArgs(srv, "-m", "m", "--set", "deploy/values.yaml:stages.prod=1.21")...).wantCode(t, 0)
	got, _ := readFile(t, srv, "main", "deploy/values.yaml")
	want := strings.Replace(other, `{staging: "1.19"}`, `{staging: "1.19", prod: 1.21}`, 1)
	if got != want {
		t.Fatalf("values.yaml =\n%s\nwant\n%s", got, want)
	}
}

// TestSetOnEveryEngine: the edit runs in the change set's resolution, which
// every engine goes through: each writes the same bytes.
func TestSetOnEveryEngine(t *testing.T) {
	for _, eng := range []string{"git-data", "graphql", "contents", "auto"} {
		t.Run(eng, func(t *testing.T) {
			srv := fake(t, githubtest.File{Path: "deploy/values.yaml", Content: []byte(valuesYAML)})
			newCLI(t).run(commitArgs(srv, "-m", "m", "--engine", eng, "--set", "deploy/values.yaml:image.tag=1.21")...).wantCode(t, 0)
			if got, _ := readFile(t, srv, "main", "deploy/values.yaml"); got != strings.Replace(valuesYAML, `"1.20"`, `"1.21"`, 1) {
				t.Fatalf("values.yaml =\n%s", got)
			}
			srv.ResetRequests()
			r := newCLI(t).run(commitArgs(srv, "-m", "m", "--engine", eng, "--set", "deploy/values.yaml:image.tag.x=1")...)
			r.wantCode(t, 2)
			if writes(srv) != 0 {
				t.Errorf("%d writes", writes(srv))
			}
		})
	}
}
