package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ghcommitter/ghcommitter/internal/cli/actions"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"
)

// report prints err to w: one line "ghcommitter: <message>", any detail, then
// a hint line when there is something to do.
func report(w io.Writer, ee *cmdutil.ExitError) {
	fmt.Fprintf(w, "ghcommitter: %s\n", ee.Err)
	if d := strings.TrimRight(ee.Detail, "\n"); d != "" {
		for _, line := range strings.Split(d, "\n") {
			fmt.Fprintf(w, "  | %s\n", line)
		}
	}
	if ee.Hint != "" {
		fmt.Fprintf(w, "hint: %s\n", ee.Hint)
	}
}

// Run executes the command line args and returns the exit code.
func Run(ctx context.Context, args []string, e *cmdutil.Env) int {
	if _, ok := e.Stderr.(*cmdutil.LockedWriter); !ok {
		e.Stderr = &cmdutil.LockedWriter{W: e.Stderr}
	}
	asAction := len(args) > 0 && args[0] == actions.Command
	if asAction {
		// The GitHub Action's Commit step: its inputs stand for a commit
		// command line.
		var err error
		if len(args) > 1 {
			err = fmt.Errorf("'ghcommitter %s' takes no arguments: it reads $%s", actions.Command, actions.InputsEnv)
		} else {
			args, err = actions.Args(e, commitcmd.NewCmd(e, nil).Flags())
		}
		if err != nil {
			return fail(e, &cmdutil.ExitError{Code: cmdutil.ExitUsage, Err: err, Hint: "see docs/github-actions.md"}, asAction)
		}
	}
	root := newRootCmd(e)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return cmdutil.ExitOK
	}
	var ee *cmdutil.ExitError
	var re *cmdutil.RunError
	switch {
	case errors.As(err, &re):
		ee = commitcmd.Classify(re.Err)
	case errors.As(err, &ee):
	default:
		// Errors cobra returns itself: unknown flags or commands, bad
		// flag values, wrong argument counts.
		ee = &cmdutil.ExitError{Code: cmdutil.ExitUsage, Err: err, Hint: "see '" + root.Name() + " --help'"}
		if c, _, ferr := root.Find(args); ferr == nil && c != root {
			ee.Hint = "see '" + c.CommandPath() + " --help'"
		}
		if tokenFlag(err) {
			ee.Hint = "a token is never a flag value (it would show in process listings): " + commitcmd.TokenHint
		}
		if commitcmd.WantsJSON(args) {
			commitcmd.WriteFailureJSON(e, ee)
		}
	}
	return fail(e, ee, asAction)
}

// fail reports ee and returns its exit code. Run as the Action, the
// message and hint name its inputs instead of the flags; in a GitHub
// Actions run (GITHUB_ACTIONS=true) an error annotation follows.
func fail(e *cmdutil.Env, ee *cmdutil.ExitError, asAction bool) int {
	if asAction {
		ee = inActionWords(ee, commitcmd.NewCmd(e, nil).Flags())
	}
	report(e.Stderr, ee)
	if e.Getenv("GITHUB_ACTIONS") == "true" {
		annotate(e.Stderr, ee)
	}
	return ee.Code
}

// tokenFlag reports whether err is cobra refusing --token or -t, the flag
// other tools take a token with.
func tokenFlag(err error) bool {
	m := err.Error()
	return m == "unknown flag: --token" || strings.HasPrefix(m, "unknown flag: --token=") || m == "unknown shorthand flag: 't' in -t"
}
