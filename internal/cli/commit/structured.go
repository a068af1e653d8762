package commit

import (
	"fmt"
	"github.com/ghcommitter/ghcommitter/internal/cli/input"

	"github.com/spf13/cobra"
)

// structuredFlags are the commit command's structured edit flags. The ops
// keep their command-line order across the flags.
type structuredFlags struct {
	ops       []input.StructuredOp
	mustExist bool
}

// structuredFlag is a pflag.Value appending one kind of op.
type structuredFlag struct {
	f    *structuredFlags
	kind string
}

func (v structuredFlag) String() string { return "" }
func (v structuredFlag) Type() string   { return "stringArray" }
func (v structuredFlag) Set(s string) error {
	v.f.ops = append(v.f.ops, input.StructuredOp{Kind: v.kind, Arg: s, Where: fmt.Sprintf("--%s %q", v.kind, s)})
	return nil
}

func (s *structuredFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.Var(structuredFlag{s, "set"}, "set", "`PATH:KEY=VALUE`: on every attempt, set KEY of the YAML or JSON file PATH (JSON for a .json name) to VALUE, changing only the value's bytes; KEY in Kargo's syntax (image.tag, containers.0.image, example\\.com/v); PATH ends at the first :, KEY at the first = not written \\= (repeatable)")
	fl.Var(structuredFlag{s, "set-string"}, "set-string", "`PATH:KEY=VALUE`: as --set, VALUE always a string (\"1.20\", not 1.2) (repeatable)")
	fl.Var(structuredFlag{s, "unset"}, "unset", "`PATH:KEY`: on every attempt, delete KEY, with its lines, from the YAML or JSON file PATH (repeatable)")
	fl.Var(structuredFlag{s, "set-image"}, "set-image", "`PATH:IMAGE`: set an image of the kustomization PATH, IMAGE as for kustomize edit set image (api:1.2, api@sha256:..., api=ghcr.io/acme/api:1.2) (repeatable)")
	fl.BoolVar(&s.mustExist, "must-exist", false, "--set and --unset fail (exit 2, nothing written) when their KEY is missing, instead of creating it or doing nothing")
}

// parse splits every op's argument. Errors are usage errors: nothing has
// been sent yet.
func (s *structuredFlags) parse() error {
	for i := range s.ops {
		op := &s.ops[i]
		if op.Arg == "" && op.Path != "" {
			continue // from a manifest: already parsed
		}
		op.MustExist = op.MustExist || s.mustExist
		if err := op.ParseArg(); err != nil {
			return err
		}
	}
	return nil
}

// structured adds the commit command's structured edits (flags and
// manifest) and the manifest's inline puts to the change set.
func (b *changeBuilder) structured(f *commitFlags) error {
	b.addInline(f.manifest.puts) // manifest.go
	if err := f.structured.parse(); err != nil {
		return err
	}
	input.AddStructured(b.cs, f.structured.ops)
	return nil
}
