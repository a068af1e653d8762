package commit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"

	"github.com/ghcommitter/ghcommitter/committer"
)

// A signal that stops a --pull-request run after the commit landed (only
// opening the pull request did not happen) says what landed, and that
// running again would commit again; an unknown outcome says to check the
// branch. Only a proven "not landed" says nothing was committed.
func TestInterruptedHints(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cmdutil.SignalCause{Sig: syscall.SIGINT})
	for _, tc := range []struct {
		name string
		err  error
		want string
		kind string
	}{
		{"not-landed", fmt.Errorf("commit: %w", context.Canceled), "nothing was committed", "interrupted"},
		{"unknown", &committer.Error{Op: "commit to", Kind: committer.ErrUnknownOutcome, Err: errors.New("sent")}, "check the branch", "unknown_outcome"},
		{"pull-request", &afterLanding{err: context.Canceled, branch: "feature", commit: "abc"}, "landed on feature", "interrupted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ee *cmdutil.ExitError
			if !errors.As(interrupted(ctx, tc.err), &ee) || ee.Code != 130 {
				t.Fatalf("interrupted(%v) = %v, want exit 130", tc.err, ee)
			}
			// Said in the message (issue 41.2: "interrupted: nothing was
			// committed", or the outcome), with a hint of what to do.
			said := ee.Error() + " " + ee.Hint
			if !strings.Contains(said, tc.want) || (tc.name != "not-landed" && strings.Contains(said, "nothing was committed")) || ee.Hint == "" {
				t.Errorf("message %q, hint %q: want them to say %q", ee.Error(), ee.Hint, tc.want)
			}
			if !strings.HasPrefix(ee.Error(), "interrupted") || strings.Contains(ee.Error(), "context canceled") {
				t.Errorf("message %q, want it to say it was interrupted, in those words", ee.Error())
			}
			if k := kindOf(ee); k != tc.kind {
				t.Errorf("kind %q, want %q", k, tc.kind)
			}
		})
	}
}
