// Package targettest runs the examples under examples/ in their tests.
package targettest

import (
	"bytes"
	"context"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/examples/internal/target"
)

// Run runs an example against the embedded fake with args and returns the
// fake and the example's output, which it logs. It fails t at once if the
// example fails.
func Run(t testing.TB, run target.RunFunc, args ...string) (*githubtest.Server, string) {
	t.Helper()
	var out bytes.Buffer
	fake, err := run(context.Background(), args, &out)
	if err != nil {
		t.Fatalf("run %q: %v\n%s", args, err, &out)
	}
	t.Logf("output:\n%s", &out)
	return fake, out.String()
}
