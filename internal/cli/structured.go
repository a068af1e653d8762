package cli

import (
	"fmt"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"strings"
	"unicode/utf8"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/edits"
	"github.com/spf13/cobra"
)

// structuredOp is one structured edit of a file: --set, --set-string,
// --unset or --set-image, or the same from a manifest.
type structuredOp struct {
	kind      string // "set", "set-string", "unset", "set-image"
	arg       string // the flag's argument, as given ("" from a manifest)
	where     string // what to name in errors: the flag and its argument, or the manifest's line
	path, key string
	value     string
	image     edits.Image
	mustExist bool
}

// structuredFlags are the commit command's structured edit flags. The ops
// keep their command-line order across the flags.
type structuredFlags struct {
	ops       []structuredOp
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
	v.f.ops = append(v.f.ops, structuredOp{kind: v.kind, arg: s, where: fmt.Sprintf("--%s %q", v.kind, s)})
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
		if op.arg == "" && op.path != "" {
			continue // from a manifest: already parsed
		}
		op.mustExist = op.mustExist || s.mustExist
		if err := op.parseArg(); err != nil {
			return err
		}
	}
	return nil
}

func (op *structuredOp) parseArg() error {
	p, rest, ok := strings.Cut(op.arg, ":")
	switch op.kind {
	case "set", "set-string":
		key, value, found := cutKey(rest)
		if !ok || key == "" || !found {
			return cmdutil.UsageErrorf("write it as --"+op.kind+" 'deploy/values.yaml:image.tag=1.2.3'", "%s: want PATH:KEY=VALUE", op.where)
		}
		op.key, op.value = key, value
	case "unset":
		if !ok || rest == "" {
			return cmdutil.UsageErrorf("write it as --unset 'deploy/values.yaml:image.digest'", "%s: want PATH:KEY", op.where)
		}
		op.key = rest
	case "set-image":
		if !ok {
			return cmdutil.UsageErrorf("write it as --set-image 'deploy/kustomization.yaml:api:1.2.3'", "%s: want PATH:IMAGE", op.where)
		}
		img, err := edits.ParseImage(rest)
		if err != nil {
			return cmdutil.UsageErrorf("IMAGE is NAME:TAG, NAME@DIGEST, NAME=NEWNAME, NAME=NEWNAME:TAG or NAME=NEWNAME@DIGEST", "%s: %v", op.where, err)
		}
		op.image = img
	}
	op.path = p
	return op.check()
}

// check validates the path and the key before any request.
func (op *structuredOp) check() error {
	if err := committer.ValidatePath(op.path); err != nil {
		return cmdutil.UsageErrorf("the path is the repository file's, e.g. deploy/values.yaml", "%s: path %q: %v", op.where, op.path, err)
	}
	if op.kind == "set-image" {
		return nil
	}
	if err := edits.ValidKey(edits.FormatOf(op.path), op.key); err != nil {
		return cmdutil.UsageErrorf(`keys are dot-separated (image.tag); write \. for a dot inside a key, \\ for a backslash`, "%s: %v", op.where, err)
	}
	if op.kind != "unset" && !utf8.ValidString(op.value) {
		return cmdutil.UsageErrorf("", "%s: the value is not valid UTF-8", op.where)
	}
	return nil
}

// cutKey splits KEY=VALUE at the first "=" not escaped by a backslash; the
// key keeps its escapes (the key syntax reads "\=" as "=").
func cutKey(s string) (key, value string, ok bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '=':
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func (op *structuredOp) editFunc() committer.EditFunc {
	var opts []edits.Option
	if op.mustExist {
		opts = append(opts, edits.MustExist())
	}
	f := edits.FormatOf(op.path)
	switch op.kind {
	case "set-string":
		return edits.Set(f, op.key, op.value, append(opts, edits.AsString())...)
	case "unset":
		return edits.Unset(f, op.key, opts...)
	case "set-image":
		return edits.SetImage(op.image)
	}
	return edits.Set(f, op.key, op.value, opts...)
}

// addStructured adds the structured edits to cs: one edit function per
// file, applying that file's ops in order.
func addStructured(cs *committer.ChangeSet, ops []structuredOp) {
	var paths []string
	byPath := map[string][]committer.EditFunc{}
	for i := range ops {
		p := ops[i].path
		if _, ok := byPath[p]; !ok {
			paths = append(paths, p)
		}
		byPath[p] = append(byPath[p], ops[i].editFunc())
	}
	for _, p := range paths {
		if fns := byPath[p]; len(fns) == 1 {
			cs.Edit(p, fns[0])
		} else {
			cs.Edit(p, edits.Chain(fns...))
		}
	}
}

// structured adds the commit command's structured edits (flags and
// manifest) and the manifest's inline puts to the change set.
func (b *changeBuilder) structured(f *commitFlags) error {
	b.addInline(f.manifest.puts) // manifest.go
	if err := f.structured.parse(); err != nil {
		return err
	}
	addStructured(b.cs, f.structured.ops)
	return nil
}
