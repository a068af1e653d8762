package cli

import (
	_ "embed"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"github.com/ghcommitter/ghcommitter/internal/cli/input"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/spf13/cobra"
)

// manifestSchema is the JSON Schema of a change manifest, printed by
// `ghcommitter schema manifest`.
//
//go:embed manifest.schema.json
var manifestSchema []byte

// manifestFlags are --manifest and --allow-commands.
type manifestFlags struct {
	file          string
	allowCommands bool

	name string               // the manifest's name in messages
	puts []inlinePut          // its puts of inline text or base64
	ops  []input.StructuredOp // its structured edits
}

type inlinePut struct {
	path string
	data []byte
	mode committer.Mode
}

func (m *manifestFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&m.file, "manifest", "", "read a whole change (message, puts, deletes, syncs, --set edits, preconditions, branch, pull request) from the YAML or JSON `FILE` (- for stdin); flags add to it, and win for single values (see ghcommitter schema manifest)")
	fl.BoolVar(&m.allowCommands, "allow-commands", false, "run the edit: commands of a --manifest (without it a manifest holding any is refused: it may come from a pull request's checkout)")
}
func newSchemaCmd(e *cmdutil.Env) *cobra.Command {
	return &cobra.Command{
		Use:   "schema manifest",
		Short: "Print the JSON Schema of a --manifest file",
		Long: `Schema prints the JSON Schema (draft 2020-12) that a change manifest for
commit --manifest follows, for editors and for checking manifests in CI. The
file is internal/cli/manifest.schema.json in the repository.`,
		Example: `  # Point an editor's YAML language server at it:
  ghcommitter schema manifest > manifest.schema.json

  # Then commit a whole promotion from one file:
  ghcommitter commit -R acme/mono --manifest promotion.yaml`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"manifest"},
		RunE: cmdutil.RunE(func(_ *cobra.Command, args []string) error {
			if args[0] != "manifest" {
				return cmdutil.UsageErrorf("the one schema is: manifest", "no schema %q", args[0])
			}
			_, err := e.Stdout.Write(manifestSchema)
			return err
		}),
	}
}
