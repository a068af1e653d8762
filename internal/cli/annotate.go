package cli

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/ghcommitter/ghcommitter/internal/cli/actions"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"
	"github.com/spf13/pflag"
)

// annotate prints ee as one GitHub workflow command, an error annotation
// (https://docs.github.com/actions/reference/workflow-commands-for-github-actions),
// so that the run's summary shows the failure and not only "exit code N":
// "::error title=TITLE::MESSAGE", the message's lines and the hint joined by
// %0A, every value escaped as the runner unescapes it.
func annotate(w io.Writer, ee *cmdutil.ExitError) {
	msg := ee.Err.Error()
	if d := strings.TrimRight(ee.Detail, "\n"); d != "" {
		msg += "\n" + d
	}
	if ee.Hint != "" {
		msg += "\nhint: " + ee.Hint
	}
	title := fmt.Sprintf("ghcommitter: %s (exit %d)", exitMeaning(ee.Code), ee.Code)
	fmt.Fprintf(w, "::error title=%s::%s\n", escapeProperty(title), escapeData(msg))
}

// exitMeaning says in a few words what an exit code means (README's exit
// table).
func exitMeaning(code int) string {
	switch code {
	case cmdutil.ExitUsage:
		return "refused, nothing was written"
	case cmdutil.ExitConflict:
		return "a precondition failed or attempts ran out, nothing was written"
	case cmdutil.ExitPartly:
		return "partly done, the commit landed"
	}
	return "failed"
}

// escapeData escapes a workflow command's message as the runner's
// unescaping expects: % first, then CR and LF.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value: as data,
// and : and , which would end it.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// flagRef is a long flag in a message: what precedes it (not part of a
// word) and its name.
var flagRef = regexp.MustCompile(`(^|[^\w-])--([a-z][a-z0-9-]*)`)

// shortRef is one of commit's short flags in a message, followed by a
// space.
var shortRef = regexp.MustCompile(`(^|[\s(,'"])-([RbmF]) `)

// shortInputs are the inputs commit's short flags stand for.
var shortInputs = map[string]string{"R": "repo", "b": "branch", "m": "message", "F": "message-file"}

// actionWords says a message of the CLI in the Action's words: every flag
// that is an input of the same name becomes that input ("create-branch-from:"
// for --create-branch-from); flags without one stay as they are. flags is
// commit's flag set.
func actionWords(s string, flags *pflag.FlagSet) string {
	s = strings.ReplaceAll(s, commitcmd.TokenHint, "pass a token in the token: input (default: the job's GITHUB_TOKEN)")
	s = flagRef.ReplaceAllStringFunc(s, func(m string) string {
		sub := flagRef.FindStringSubmatch(m)
		if flags.Lookup(sub[2]) == nil || actions.FlagsWithoutInput[sub[2]] != "" {
			return m
		}
		return sub[1] + sub[2] + ":"
	})
	return shortRef.ReplaceAllStringFunc(s, func(m string) string {
		sub := shortRef.FindStringSubmatch(m)
		return sub[1] + shortInputs[sub[2]] + ": "
	})
}

// inActionWords is ee with its message and hint in the Action's words.
func inActionWords(ee *cmdutil.ExitError, flags *pflag.FlagSet) *cmdutil.ExitError {
	c := *ee
	c.Err = wordedError{msg: actionWords(ee.Err.Error(), flags), err: ee.Err}
	c.Hint = actionWords(ee.Hint, flags)
	return &c
}

// wordedError is an error with its message reworded, still unwrapping to
// the original.
type wordedError struct {
	msg string
	err error
}

func (w wordedError) Error() string { return w.msg }
func (w wordedError) Unwrap() error { return w.err }
