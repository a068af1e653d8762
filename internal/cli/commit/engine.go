package commit

import (
	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/spf13/cobra"
)

// engineFlags is commit's --engine flag. commit.go calls register and
// commitOptions (one line each). The GraphQL endpoint, $GITHUB_GRAPHQL_URL
// when set, is the client's (authOptions).
type engineFlags struct {
	engine committer.Engine
}

// engineValue parses --engine as a pflag.Value, so that a bad name is a
// usage error (exit 2) before anything is sent.
type engineValue struct{ e *committer.Engine }

func (v engineValue) String() string { return v.e.String() }
func (v engineValue) Type() string   { return "engine" }
func (v engineValue) Set(s string) error {
	e, err := committer.ParseEngine(s)
	if err != nil {
		return err
	}
	*v.e = e
	return nil
}

func (f *engineFlags) register(cmd *cobra.Command) {
	cmd.Flags().Var(engineValue{&f.engine}, "engine",
		"commit through `ENGINE`: git-data (create tree, commit, move the ref: carries everything), "+
			"graphql (one createCommitOnBranch: plain files only, Verified), "+
			"contents (one contents-API write: one plain file ≤ 1 MiB, Verified), "+
			"or auto (the fewest writes that carry the change set)")
}

func (f *engineFlags) commitOptions() []committer.CommitOption {
	if f.engine == committer.EngineGitData {
		return nil
	}
	return []committer.CommitOption{committer.WithEngine(f.engine)}
}
