package commit

import (
	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"github.com/spf13/cobra"
)

// tagFlags are commit's --tag, --tag-message and --tag-force. commit.go
// calls register, check and commitOptions (one line each).
type tagFlags struct {
	name, message string
	force         bool
}

func (f *tagFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.name, "tag", "", "point tag `NAME` at the new commit, in the same ref update as the branch (an existing tag: exit 3, nothing moves); needs the git-data engine (auto picks it)")
	fl.StringVar(&f.message, "tag-message", "", "make --tag an annotated tag with message `TEXT` (one more write per attempt)")
	fl.BoolVar(&f.force, "tag-force", false, "let --tag move a tag that already exists")
}

// check refuses tag flags that cannot work whatever the branch holds.
func (f *tagFlags) check(pr bool) error {
	switch {
	case f.name == "" && (f.message != "" || f.force):
		return cmdutil.UsageErrorf("", "--tag-message and --tag-force need --tag NAME")
	case f.name != "" && pr:
		return cmdutil.UsageErrorf("tag the merge commit once the pull request is merged", "--tag cannot be combined with --pull-request")
	}
	return nil
}

func (f *tagFlags) commitOptions() []committer.CommitOption {
	if f.name == "" {
		return nil
	}
	return []committer.CommitOption{committer.Tag(committer.TagSpec{Name: f.name, Message: f.message, Force: f.force})}
}
