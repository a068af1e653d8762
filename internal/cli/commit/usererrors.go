package commit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
)

// userError says an error in the user's terms, keeping the error it
// stands for in the chain (its kind, GitHub's status and request id).
type userError struct {
	msg string
	err error
}

func (e *userError) Error() string { return e.msg }
func (e *userError) Unwrap() error { return e.err }

// changedOnBranch says, for a precondition of --changed that failed, which
// file changed on the branch since the checkout's commit, and what to do.
// Any other error is returned as it is.
func (b *changeBuilder) changedOnBranch(err error, branch string) error {
	var ce *committer.Error
	if !errors.Is(err, committer.ErrConflict) || !errors.As(err, &ce) || ce.Path == "" || !slices.Contains(b.changed, ce.Path) {
		return err
	}
	since := "your checkout"
	if b.checkoutHead != "" {
		since = fmt.Sprintf("your checkout (at %s)", cmdutil.Short(b.checkoutHead))
	}
	return &cmdutil.ExitError{Code: cmdutil.ExitConflict,
		Err:  &userError{msg: fmt.Sprintf("%s changed on %s since %s: another commit changed it there", ce.Path, branch, since), err: err},
		Hint: fmt.Sprintf("nothing was committed; pull %s (git pull --rebase), check %s, and run again", branch, ce.Path)}
}

// missingHint is the hint for a local path that is not there.
func missingHint(local string) string {
	if filepath.IsAbs(local) {
		return "check the path; nothing was sent"
	}
	wd, err := os.Getwd()
	if err != nil {
		return "check the path: it is read relative to the current directory; nothing was sent"
	}
	return fmt.Sprintf("check the path: it is read relative to the current directory, %s; nothing was sent", wd)
}

// withHint gives ee a hint when it has none: every error says what to do.
func withHint(ee *cmdutil.ExitError) *cmdutil.ExitError {
	if ee.Hint != "" {
		return ee
	}
	var pe *fs.PathError
	switch {
	case errors.Is(ee.Err, context.Canceled):
		ee.Hint = "run it again" // "nothing was committed" only where proven (interrupted)
	case errors.As(ee.Err, &pe) && errors.Is(pe.Err, fs.ErrNotExist):
		ee.Hint = missingHint(pe.Path)
	case ee.Code == cmdutil.ExitUsage:
		ee.Hint = "nothing was sent; see 'ghcommitter commit --help'"
	case ee.Code == cmdutil.ExitConflict:
		ee.Hint = "nothing was committed; re-read the branch and try again"
	default:
		ee.Hint = "run it again with --verbose to see each request and GitHub's answers"
	}
	return ee
}
