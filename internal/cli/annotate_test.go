package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/actions"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
)

// TestAnnotationEscapes: values are escaped as GitHub's runner unescapes
// them; properties also escape : and ,.
func TestAnnotationEscapes(t *testing.T) {
	if got, want := escapeData("100% a\r\nb: c, d"), "100%25 a%0D%0Ab: c, d"; got != want {
		t.Errorf("escapeData = %q, want %q", got, want)
	}
	if got, want := escapeProperty("100% a\r\nb: c, d"), "100%25 a%0D%0Ab%3A c%2C d"; got != want {
		t.Errorf("escapeProperty = %q, want %q", got, want)
	}
}

// annotations are the lines of stderr that are workflow commands.
func annotations(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "::") {
			out = append(out, l)
		}
	}
	return out
}

// TestActionFailureAnnotation: under GITHUB_ACTIONS=true a failure of the
// Action prints one error annotation, its message escaped onto one line,
// and its hint names the Action's inputs, not the CLI's flags; without
// GITHUB_ACTIONS, none.
func TestActionFailureAnnotation(t *testing.T) {
	srv := fake(t)
	dir := t.TempDir()
	c := newCLI(t)
	c.env["RUNNER_TEMP"], c.env["GITHUB_OUTPUT"] = dir, filepath.Join(dir, "output")
	c.env["GITHUB_ACTIONS"] = "true"
	c.stdin = "x\n"
	c.env[actions.InputsEnv] = actionJSON(t, "runner", map[string]string{
		"repo": "acme/mono", "branch": "no-such-branch", "message": "m", "add": "a=-", "api-url": srv.URL, "token": testToken,
	})
	r := c.run(actions.Command)
	if r.code == 0 {
		t.Fatal("a commit to a missing branch succeeded")
	}
	got := annotations(r.stderr)
	if len(got) != 1 || !strings.HasPrefix(got[0], "::error title=ghcommitter%3A ") {
		t.Fatalf("annotations %q, want one ::error with a title\nstderr: %s", got, r.stderr)
	}
	if !strings.Contains(got[0], "%0Ahint: ") || !strings.Contains(got[0], "create-branch-from:") {
		t.Errorf("annotation %q: want the hint naming the create-branch-from: input", got[0])
	}
	if strings.Contains(r.stderr, "--create-branch-from") {
		t.Errorf("the Action's failure names the flag --create-branch-from:\n%s", r.stderr)
	}
	// The CLI itself, out of Actions: no annotation, the flag's name.
	delete(c.env, "GITHUB_ACTIONS")
	r = c.run(commitArgs(srv, "-b", "no-such-branch", "-m", "m", "--add", "a=-")...)
	if r.code == 0 || len(annotations(r.stderr)) != 0 || !strings.Contains(r.stderr, "--create-branch-from") {
		t.Errorf("exit %d, stderr %q: want a failure naming --create-branch-from, no annotation", r.code, r.stderr)
	}
	// A refused input is annotated too.
	c.env["GITHUB_ACTIONS"] = "true"
	c.env[actions.InputsEnv] = `{"bogus": "x"}`
	r = c.run(actions.Command)
	r.wantCode(t, cmdutil.ExitUsage)
	if n := len(annotations(r.stderr)); n != 1 {
		t.Errorf("%d annotations for a refused input, want 1:\n%s", n, r.stderr)
	}
}

// TestActionWords: flags that are inputs become the inputs' names.
func TestActionWords(t *testing.T) {
	flags := newRootCmd(&cmdutil.Env{Getenv: func(string) string { return "" }})
	cmd, _, _ := flags.Find([]string{"commit"})
	for in, want := range map[string]string{
		"pass --create-branch-from main":                     "pass create-branch-from: main",
		"check the API URL (--api-url)":                      "check the API URL (api-url:)",
		`pass -m "what changed", or -F FILE`:                 `pass message: "what changed", or message-file: FILE`,
		"--json and --turn-dir stay":                         "--json and --turn-dir stay",
		"a path a--b and --no-such-flag stay":                "a path a--b and --no-such-flag stay",
		"set GH_TOKEN or GITHUB_TOKEN, or pass --token-file": "pass a token in the token: input (default: the job's GITHUB_TOKEN)",
	} {
		if got := actionWords(in, cmd.Flags()); got != want {
			t.Errorf("actionWords(%q) = %q, want %q", in, got, want)
		}
	}
}
