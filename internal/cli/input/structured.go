package input

import (
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"strings"
	"unicode/utf8"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/edits"
)

// StructuredOp is one structured edit of a file: --set, --set-string,
// --unset or --set-image, or the same from a manifest.
type StructuredOp struct {
	Kind      string // "set", "set-string", "unset", "set-image"
	Arg       string // the flag's argument, as given ("" from a manifest)
	Where     string // what to name in errors: the flag and its argument, or the manifest's line
	Path, Key string
	Value     string
	Image     edits.Image
	MustExist bool
}

// ParseArg reads a flag's argument (Arg) into Path, and Key and Value or
// Image.
func (op *StructuredOp) ParseArg() error {
	p, rest, ok := strings.Cut(op.Arg, ":")
	switch op.Kind {
	case "set", "set-string":
		key, value, found := cutKey(rest)
		if !ok || key == "" || !found {
			return cmdutil.UsageErrorf("write it as --"+op.Kind+" 'deploy/values.yaml:image.tag=1.2.3'", "%s: want PATH:KEY=VALUE", op.Where)
		}
		op.Key, op.Value = key, value
	case "unset":
		if !ok || rest == "" {
			return cmdutil.UsageErrorf("write it as --unset 'deploy/values.yaml:image.digest'", "%s: want PATH:KEY", op.Where)
		}
		op.Key = rest
	case "set-image":
		if !ok {
			return cmdutil.UsageErrorf("write it as --set-image 'deploy/kustomization.yaml:api:1.2.3'", "%s: want PATH:IMAGE", op.Where)
		}
		img, err := edits.ParseImage(rest)
		if err != nil {
			return cmdutil.UsageErrorf("IMAGE is NAME:TAG, NAME@DIGEST, NAME=NEWNAME, NAME=NEWNAME:TAG or NAME=NEWNAME@DIGEST", "%s: %v", op.Where, err)
		}
		op.Image = img
	}
	op.Path = p
	return op.Check()
}

// Check validates the path and the key before any request.
func (op *StructuredOp) Check() error {
	if err := committer.ValidatePath(op.Path); err != nil {
		return cmdutil.UsageErrorf("the path is the repository file's, e.g. deploy/values.yaml", "%s: path %q: %v", op.Where, op.Path, err)
	}
	if op.Kind == "set-image" {
		return nil
	}
	if err := edits.ValidKey(edits.FormatOf(op.Path), op.Key); err != nil {
		return cmdutil.UsageErrorf(`keys are dot-separated (image.tag); write \. for a dot inside a key, \\ for a backslash`, "%s: %v", op.Where, err)
	}
	if op.Kind != "unset" && !utf8.ValidString(op.Value) {
		return cmdutil.UsageErrorf("", "%s: the value is not valid UTF-8", op.Where)
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

// EditFunc is the edit function applying the op to a file's content.
func (op *StructuredOp) EditFunc() committer.EditFunc {
	var opts []edits.Option
	if op.MustExist {
		opts = append(opts, edits.MustExist())
	}
	f := edits.FormatOf(op.Path)
	switch op.Kind {
	case "set-string":
		return edits.Set(f, op.Key, op.Value, append(opts, edits.AsString())...)
	case "unset":
		return edits.Unset(f, op.Key, opts...)
	case "set-image":
		return edits.SetImage(op.Image)
	}
	return edits.Set(f, op.Key, op.Value, opts...)
}

// AddStructured adds the structured edits to cs: one edit function per
// file, applying that file's ops in order.
func AddStructured(cs *committer.ChangeSet, ops []StructuredOp) {
	var paths []string
	byPath := map[string][]committer.EditFunc{}
	for i := range ops {
		p := ops[i].Path
		if _, ok := byPath[p]; !ok {
			paths = append(paths, p)
		}
		byPath[p] = append(byPath[p], ops[i].EditFunc())
	}
	for _, p := range paths {
		if fns := byPath[p]; len(fns) == 1 {
			cs.Edit(p, fns[0])
		} else {
			cs.Edit(p, edits.Chain(fns...))
		}
	}
}
