package cli

import (
	_ "embed"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"github.com/spf13/cobra"
)

// manifestSchema is the JSON Schema of a change manifest, printed by
// `ghcommitter schema manifest`.
//
//go:embed manifest.schema.json
var manifestSchema []byte

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
