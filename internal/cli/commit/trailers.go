package commit

import (
	"fmt"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/spf13/cobra"
)

// trailerFlags are the commit command's message trailer flags.
type trailerFlags struct {
	trailers []string
	signoff  bool
	noEditID bool
}

func (t *trailerFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&t.trailers, "trailer", nil, "add the trailer `KEY=VALUE` (or \"KEY: VALUE\") to the message, as git commit --trailer does (repeatable)")
	fl.BoolVarP(&t.signoff, "signoff", "s", false, "add a Signed-off-by trailer for --author (else $GIT_COMMITTER_NAME and $GIT_COMMITTER_EMAIL)")
	fl.BoolVar(&t.noEditID, "no-edit-id", false, "leave out the "+committer.EditIDTrailer+" trailer that commits with --edit or --expect-* get; only safe when no two writers can commit the same message at once")
}

// apply adds the trailers to cs's message and sets its Edit-Id switch.
// Called by the commit command once the change set is built.
func (t *trailerFlags) apply(e *cmdutil.Env, cs *committer.ChangeSet) error {
	cs.OmitEditID = t.noEditID
	var lines []string
	for _, tr := range t.trailers {
		line, err := parseTrailer(tr)
		if err != nil {
			return cmdutil.UsageErrorf(`write --trailer "Reviewed-by=Jane Doe <jane@example.com>"`, "--trailer %q: %v", tr, err)
		}
		lines = append(lines, line)
	}
	if t.signoff {
		who, err := signoffIdentity(e, cs)
		if err != nil {
			return err
		}
		lines = append(lines, "Signed-off-by: "+who)
	}
	cs.Message = withTrailers(cs.Message, lines)
	return nil
}

// parseTrailer turns "KEY=VALUE" or "KEY: VALUE" into "KEY: VALUE".
func parseTrailer(s string) (string, error) {
	i := strings.IndexAny(s, "=:")
	if i < 0 {
		return "", fmt.Errorf("want KEY=VALUE")
	}
	key, value := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:])
	if key == "" {
		return "", fmt.Errorf("the key is empty")
	}
	for _, r := range key {
		if !(r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "", fmt.Errorf("the key may hold only letters, digits and '-'")
		}
	}
	if value == "" {
		return "", fmt.Errorf("the value is empty")
	}
	if strings.ContainsAny(value, "\r\n") {
		return "", fmt.Errorf("the value must be one line")
	}
	return key + ": " + value, nil
}

// signoffIdentity is "Name <email>" for --signoff: the commit's author, else
// the committer identity git would use from the environment.
func signoffIdentity(e *cmdutil.Env, cs *committer.ChangeSet) (string, error) {
	if a := cs.Author; a != nil && a.Name != "" && a.Email != "" {
		return a.Name + " <" + a.Email + ">", nil
	}
	for _, who := range []string{"COMMITTER", "AUTHOR"} {
		name, email := e.Getenv("GIT_"+who+"_NAME"), e.Getenv("GIT_"+who+"_EMAIL")
		if name != "" && email != "" {
			return name + " <" + email + ">", nil
		}
	}
	return "", cmdutil.UsageErrorf(`pass --author "Name <email>", or set GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL`,
		"--signoff needs an identity to sign off as")
}

// withTrailers appends lines to msg's trailer block: the last paragraph when
// it is one, else a new paragraph. A line equal to the block's last line is
// not repeated (as git does for a repeated sign-off).
func withTrailers(msg string, lines []string) string {
	if len(lines) == 0 {
		return msg
	}
	msg = strings.TrimRight(msg, "\n")
	paras := strings.Split(msg, "\n\n")
	last := paras[len(paras)-1]
	var block []string
	if len(paras) > 1 && isTrailerParagraph(last) {
		block = strings.Split(last, "\n")
	} else {
		msg += "\n"
	}
	for _, l := range lines {
		if len(block) > 0 && block[len(block)-1] == l {
			continue
		}
		block = append(block, l)
		msg += "\n" + l
	}
	return msg + "\n"
}

func isTrailerParagraph(p string) bool {
	for _, line := range strings.Split(p, "\n") {
		key, _, ok := strings.Cut(line, ": ")
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			return false
		}
	}
	return true
}
