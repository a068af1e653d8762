package commit

import (
	"context"
	"errors"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
)

// interrupted turns err into the exit status of a signal (130 for SIGINT,
// 143 for SIGTERM) when ctx was cancelled by one; otherwise it returns err.
// A commit whose landing write was already sent is not cancelled by the
// signal (the library waits a few seconds for its reply): when it landed,
// there is no err and the command succeeds; when whether it landed cannot
// be told, err is an ErrUnknownOutcome. "Nothing was committed" is said
// only when the library proved it.
func interrupted(ctx context.Context, err error) error {
	var sc cmdutil.SignalCause
	var ee *cmdutil.ExitError
	if err == nil || !errors.As(context.Cause(ctx), &sc) {
		return err
	}
	if errors.As(err, &ee) && ee.Code == cmdutil.ExitPartly {
		return err // something landed: partly done says so, not the signal
	}
	reported := ee != nil && ee.Reported // --json printed the outcome already
	// Said as what happened (the error it stands for stays in the chain).
	msg, hint := "interrupted ("+sc.Sig.String()+"): nothing was committed", "run it again when you are ready"
	var after *afterLanding
	switch {
	case errors.Is(err, committer.ErrUnknownOutcome):
		msg = "interrupted (" + sc.Sig.String() + ") after the commit was sent: whether it landed cannot be told"
		hint = "it may have landed (or still land); check the branch for it (its " + committer.EditIDTrailer + " trailer) before running again"
	case errors.As(err, &after):
		msg = "interrupted (" + sc.Sig.String() + ") after the commit landed on " + after.branch + " (" + after.commit + "): the pull request was not opened"
		hint = "open it rather than running again, which would commit again"
	}
	return &cmdutil.ExitError{Code: 128 + int(sc.Sig), Err: &userError{msg: msg, err: err}, Hint: hint, Reported: reported}
}

// afterLanding is a failure after the commit landed (opening the pull
// request).
type afterLanding struct {
	err            error
	branch, commit string
}

func (e *afterLanding) Error() string { return e.err.Error() }
func (e *afterLanding) Unwrap() error { return e.err }
