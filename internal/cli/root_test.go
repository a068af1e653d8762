package cli

import (
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"strings"
	"testing"
)

func TestCompletion(t *testing.T) {
	r := newCLI(t).run("--help")
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "completion") {
		t.Errorf("--help does not show the completion command:\n%s", r.stdout)
	}
	for shell, marker := range map[string]string{
		"bash":       "complete -o default -F __start_ghcommitter ghcommitter",
		"zsh":        "#compdef ghcommitter",
		"fish":       "complete -c ghcommitter",
		"powershell": "Register-ArgumentCompleter",
	} {
		r := newCLI(t).run("completion", shell)
		r.wantCode(t, 0)
		if !strings.Contains(r.stdout, marker) {
			t.Errorf("completion %s: output lacks %q", shell, marker)
		}
	}
}

func TestShortVIsNotVersion(t *testing.T) {
	r := newCLI(t).run("-v")
	if r.code != cmdutil.ExitUsage || strings.Contains(r.stdout, "ghcommitter ") {
		t.Errorf("ghcommitter -v: exit %d, stdout %q; want a usage error (-v is --verbose, a commit flag)", r.code, r.stdout)
	}
	r = newCLI(t).run("commit", "--help")
	if !strings.Contains(r.stdout, "-v, --verbose") {
		t.Errorf("commit --help lacks -v, --verbose:\n%s", r.stdout)
	}
}
