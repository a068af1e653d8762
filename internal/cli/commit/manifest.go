package commit

import (
	"github.com/ghcommitter/ghcommitter/internal/cli/input"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/spf13/cobra"
)

// manifestFlags are --manifest and --allow-commands.
type manifestFlags struct {
	files []string // --manifest, as given (fanin.go expands them)
	file  string   // the one manifest, when there is one

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
	fl.StringArrayVar(&m.files, "manifest", nil, "read a whole change (message, puts, deletes, syncs, --set edits, preconditions, branch, pull request) from the YAML or JSON `FILE` (- for stdin); flags add to it, and win for single values (see ghcommitter schema manifest). Repeated, or naming a directory (its *.yaml, *.yml and *.json, in lexical order, not recursive): each manifest is its own commit, all landing in one batch with one ref update on the branch the flags name (exit 4 when some land and others do not)")
	fl.BoolVar(&m.allowCommands, "allow-commands", false, "run the edit: commands of a --manifest (without it a manifest holding any is refused: it may come from a pull request's checkout)")
}
