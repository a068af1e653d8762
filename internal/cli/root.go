// Package cli is the ghcommitter command line's root: Run, the root command
// with the schema and version commands, and "ghcommitter action", the
// GitHub Action's entry (on commit's flag set). The commands are packages
// under it (commit, fakegithub, demo). cmd/ghcommitter's main calls Run.
package cli

import (
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"
	"github.com/ghcommitter/ghcommitter/internal/cli/demo"
	"github.com/ghcommitter/ghcommitter/internal/cli/fakegithub"
	"github.com/spf13/cobra"
)

func newRootCmd(e *cmdutil.Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "ghcommitter",
		Short: "Commit files to a GitHub branch through the API, safely under concurrent writers",
		Long: `ghcommitter commits files to a GitHub repository through the REST Git Data
API, without a local clone. The branch only ever moves by fast-forward: when
another writer got there first, the commit is rebuilt on the new head (edit
commands run again on the fresh content) and retried, so nobody's work is
lost and nothing is force-pushed.`,
		Example: `  # See it work against an embedded fake GitHub, no token needed:
  ghcommitter demo

  # Commit two files to the default branch:
  GH_TOKEN=... ghcommitter commit -R acme/mono -m "Update config" config/app.yaml config/db.yaml`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       cliVersionLong(),
	}
	root.SetVersionTemplate("ghcommitter {{.Version}}\n")
	// --version is long-only: -v means --verbose wherever it exists.
	root.Flags().Bool("version", false, "print the version, commit and build date")
	root.SetIn(e.Stdin)
	root.SetOut(e.Stdout)
	root.SetErr(e.Stderr)
	root.CompletionOptions.HiddenDefaultCmd = false // "ghcommitter completion bash|zsh|fish|powershell"
	root.AddCommand(
		commitcmd.NewCmd(e, nil),
		fakegithub.NewCmd(e),
		demo.NewCmd(e),
		newSchemaCmd(e), // manifest.go
		newVersionCmd(e),
	)
	return root
}
