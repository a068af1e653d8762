// Package cmdutil holds what the CLI's command packages share: the
// process environment a command runs in, the exit codes and the errors
// that carry them.
package cmdutil

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Env is everything a command takes from the process, so that tests can run
// commands in-process.
type Env struct {
	Stdin      io.Reader
	Stdout     io.Writer
	Stderr     io.Writer
	Getenv     func(string) string
	Environ    func() []string // for the commands --edit runs
	IsTerminal bool            // stderr is a terminal: show progress
	// Exposed says why credentials in the process's initial environment
	// are still readable by other processes (hideCredentials failed): no
	// --edit command may run then.
	Exposed error
}

// Exit codes: the contract scripts rely on.
const (
	ExitOK       = 0
	ExitFailed   = 1 // API, auth, edit command
	ExitUsage    = 2 // invalid usage or input; nothing was sent
	ExitConflict = 3 // a precondition failed, or attempts ran out
	// ExitPartly: partly done, for every command: something landed and
	// something after or beside it did not (a manifest of several, a step
	// after the commit).
	ExitPartly = 4
)

// ExitError carries an exit code and an optional hint out of a command.
type ExitError struct {
	Code int
	Err  error
	Hint string
	// Detail is printed verbatim after the message (an edit command's
	// stderr).
	Detail string
	// Reported: under --json, stdout already carries the outcome (a
	// partly-done result with its error, a fan-in's array); no failure
	// object is printed after it.
	Reported bool
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// UsageErrorf is an invalid invocation: exit 2, nothing sent.
func UsageErrorf(hint, format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...), Hint: hint}
}

// RunError marks an error returned by a command's RunE, as opposed to one
// cobra found in the command line.
type RunError struct{ Err error }

func (r *RunError) Error() string { return r.Err.Error() }
func (r *RunError) Unwrap() error { return r.Err }

// RunE wraps a command's body so that run can tell its errors from the
// command-line errors cobra reports.
func RunE(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := fn(cmd, args); err != nil {
			return &RunError{Err: err}
		}
		return nil
	}
}

// Short is a commit SHA as the CLI prints it.
func Short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
