package commit

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"github.com/ghcommitter/ghcommitter/internal/cli/input"

	"github.com/spf13/cobra"
)

func TestWebURL(t *testing.T) {
	for api, want := range map[string]string{
		"https://api.github.com/":         "https://github.com/",
		"https://api.github.com":          "https://github.com/",
		"https://ghe.example.com/api/v3/": "https://ghe.example.com/",
		"https://ghe.example.com/api/v3":  "https://ghe.example.com/",
		"https://api.acme.ghe.com/":       "https://acme.ghe.com/",
		"http://127.0.0.1:41234/":         "http://127.0.0.1:41234/",
		"http://127.0.0.1:41234/api/v3/":  "http://127.0.0.1:41234/",
		"http://localhost:8080/prefix/":   "http://localhost:8080/prefix/",
		"not a url":                       "",
	} {
		if got := webURL(api); got != want {
			t.Errorf("webURL(%q) = %q, want %q", api, got, want)
		}
	}
}

// parseCommit parses a commit command line through NewCmd, with
// no request: it returns the options runF received, or the exit code.
func parseCommit(t *testing.T, args ...string) (*commitFlags, int) {
	t.Helper()
	var got *commitFlags
	e := &cmdutil.Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }, Environ: os.Environ}
	root := &cobra.Command{Use: "ghcommitter", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(NewCmd(e, func(_ context.Context, f *commitFlags) error {
		got = f
		return nil
	}))
	root.SetArgs(append([]string{"commit"}, args...))
	if err := root.Execute(); err != nil {
		var re *cmdutil.RunError
		if !errors.As(err, &re) {
			return nil, cmdutil.ExitUsage // cobra's own: a flag it could not parse
		}
		return nil, Classify(re.Err).Code
	}
	return got, 0
}

func TestCommitFlagsParse(t *testing.T) {
	f, code := parseCommit(t, "-R", "acme/mono", "-m", "msg", "--add", "a=b=c", "--sync", "x=y", "--expect-sha", "p=q", "a.txt", "dir/")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if f.repo != "acme/mono" || f.message != "msg" || strings.Join(f.paths, ",") != "a.txt,dir/" ||
		f.adds[0] != "a=b=c" || f.syncs[0] != "x=y" || f.expectSHAs[0] != "p=q" {
		t.Errorf("parsed %+v", f)
	}
	if f.editTimeout != input.DefaultEditTimeout || f.maxAttempts != 10 || f.json || f.dryRun {
		t.Errorf("defaults: edit-timeout %s, max-attempts %d, json %t, dry-run %t", f.editTimeout, f.maxAttempts, f.json, f.dryRun)
	}
	if f, _ := parseCommit(t, "-m", "m", "--edit-timeout", "90s", "--json", "x"); f.editTimeout != 90*time.Second || !f.json {
		t.Errorf("--edit-timeout 90s --json parsed as %s, %t", f.editTimeout, f.json)
	}
	for _, bad := range [][]string{
		{"--max-attempts", "0", "x"},
		{"--edit-timeout", "0s", "x"},
		{"-m", "a", "-F", "f", "x"},
		{"--bogus"},
	} {
		if f, code := parseCommit(t, bad...); code != cmdutil.ExitUsage || f != nil {
			t.Errorf("%v: exit %d (runF called: %t), want 2 before running", bad, code, f != nil)
		}
	}
}
