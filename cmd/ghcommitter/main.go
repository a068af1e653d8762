// Command ghcommitter commits files to a GitHub repository through the REST
// Git Data API, without a local clone, and never loses a concurrent writer's
// work. See "ghcommitter --help".
package main

import (
	"context"
	"os"

	"golang.org/x/term"
)

func main() {
	ctx, stop := notifySignals(context.Background())
	code := run(ctx, os.Args[1:], &env{
		stdin:      os.Stdin,
		stdout:     os.Stdout,
		stderr:     os.Stderr,
		getenv:     os.Getenv,
		environ:    os.Environ,
		isTerminal: term.IsTerminal(int(os.Stderr.Fd())),
	})
	stop()
	os.Exit(code)
}
