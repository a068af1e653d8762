// Command ghcommitter commits files to a GitHub repository through the REST
// Git Data API, without a local clone, and never loses a concurrent writer's
// work. See "ghcommitter --help".
package main

import (
	"context"
	"os"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"golang.org/x/term"
)

func main() {
	// First, before anything can start a command: blank the credentials
	// in the environment block /proc/PID/environ shows (Go has its copy).
	exposed := hideCredentials()
	if err := denyInspection(); err != nil && exposed == nil {
		exposed = err
	}
	// The User-Agent's version, set once before any goroutine can read it
	// (run may be called concurrently, as the tests do).
	ghclient.Version = cliVersion()
	ctx, stop := notifySignals(context.Background())
	code := run(ctx, os.Args[1:], &env{
		stdin:      os.Stdin,
		stdout:     os.Stdout,
		stderr:     os.Stderr,
		getenv:     os.Getenv,
		environ:    os.Environ,
		isTerminal: term.IsTerminal(int(os.Stderr.Fd())),
		exposed:    exposed,
	})
	stop()
	os.Exit(code)
}
