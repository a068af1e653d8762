// Command ghcommitter commits files to a GitHub repository through the REST
// Git Data API, without a local clone, and never loses a concurrent writer's
// work. See "ghcommitter --help".
package main

import (
	"context"
	"os"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/internal/cli"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"github.com/ghcommitter/ghcommitter/internal/cli/secure"
	"golang.org/x/term"
)

func main() {
	// First, before anything can start a command: blank the credentials
	// in the environment block /proc/PID/environ shows (Go has its copy).
	exposed := secure.HideCredentials()
	if err := secure.DenyInspection(); err != nil && exposed == nil {
		exposed = err
	}
	// The User-Agent's version, set once before any goroutine can read it
	// (run may be called concurrently, as the tests do).
	ghclient.Version = cli.Version()
	ctx, stop := cmdutil.NotifySignals(context.Background())
	code := cli.Run(ctx, os.Args[1:], &cmdutil.Env{
		Stdin:      os.Stdin,
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		Getenv:     os.Getenv,
		Environ:    os.Environ,
		IsTerminal: term.IsTerminal(int(os.Stderr.Fd())),
		Exposed:    exposed,
	})
	stop()
	os.Exit(code)
}
