package cli

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"reflect"
	"strconv"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
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

	name string         // the manifest's name in messages
	puts []inlinePut    // its puts of inline text or base64
	ops  []structuredOp // its structured edits
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

// manifest is a change manifest's document. Field names are the commit
// command's flag names; manifest.schema.json describes the same.
type manifest struct {
	Message          string              `yaml:"message"`
	Trailers         []manifestString    `yaml:"trailers"`
	Author           string              `yaml:"author"`
	Branch           string              `yaml:"branch"`
	CreateBranchFrom string              `yaml:"create-branch-from"`
	Put              []manifestPut       `yaml:"put"`
	Delete           []manifestString    `yaml:"delete"`
	Sync             []manifestSync      `yaml:"sync"`
	Set              []manifestSet       `yaml:"set"`
	Unset            []manifestUnset     `yaml:"unset"`
	SetImage         []manifestImage     `yaml:"set-image"`
	Edit             []manifestEdit      `yaml:"edit"`
	ExpectSHA        []manifestExpectSHA `yaml:"expect-sha"`
	ExpectAbsent     []manifestString    `yaml:"expect-absent"`
	PullRequest      *manifestPR         `yaml:"pull-request"`

	lines map[string]int // the line of each top-level key
}

type manifestPut struct {
	line       int
	Path       string  `yaml:"path"`
	File       *string `yaml:"file"`
	Text       *string `yaml:"text"`
	Base64     *string `yaml:"base64"`
	Executable bool    `yaml:"executable"`
}

type manifestSync struct {
	line   int
	Local  string `yaml:"local"`
	Remote string `yaml:"remote"`
}

type manifestSet struct {
	line      int
	Path      string    `yaml:"path"`
	Key       string    `yaml:"key"`
	Value     yaml.Node `yaml:"value"`
	String    bool      `yaml:"string"`
	MustExist bool      `yaml:"must-exist"`
}

type manifestUnset struct {
	line      int
	Path      string `yaml:"path"`
	Key       string `yaml:"key"`
	MustExist bool   `yaml:"must-exist"`
}

type manifestImage struct {
	line    int
	Path    string `yaml:"path"`
	Image   string `yaml:"image"`
	Name    string `yaml:"name"`
	NewName string `yaml:"new-name"`
	NewTag  string `yaml:"new-tag"`
	Digest  string `yaml:"digest"`
}

type manifestEdit struct {
	line    int
	Path    string `yaml:"path"`
	Command string `yaml:"command"`
}

type manifestExpectSHA struct {
	line int
	Path string `yaml:"path"`
	SHA  string `yaml:"sha"`
}

type manifestPR struct {
	line  int
	Base  string `yaml:"base"`
	Title string `yaml:"title"`
	Body  string `yaml:"body"`
	Draft bool   `yaml:"draft"`
}

// manifestString is a string that remembers its line.
type manifestString struct {
	line  int
	value string
}

func (s *manifestString) UnmarshalYAML(n *yaml.Node) error {
	s.line = n.Line
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" && n.ShortTag() != "!!int" && n.ShortTag() != "!!float" {
		return &manifestError{line: n.Line, msg: "want a string"}
	}
	s.value = n.Value
	return nil
}

// manifestError is a problem at a line of the manifest.
type manifestError struct {
	line int
	msg  string
}

func (e *manifestError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// decodeStrict decodes mapping n into the struct out, refusing keys the
// struct does not have, and records n's line in out's "line" field.
func decodeStrict(n *yaml.Node, out any) error {
	v := reflect.ValueOf(out).Elem()
	if n.Kind != yaml.MappingNode {
		return &manifestError{line: n.Line, msg: fmt.Sprintf("want a mapping, not a %s", nodeKind(n))}
	}
	known := map[string]bool{}
	var names []string
	for i := 0; i < v.NumField(); i++ {
		if tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ","); tag != "" {
			known[tag] = true
			names = append(names, tag)
		}
	}
	for j := 0; j+1 < len(n.Content); j += 2 {
		if k := n.Content[j].Value; !known[k] {
			return &manifestError{line: n.Content[j].Line, msg: fmt.Sprintf("unknown key %q (known: %s)", k, strings.Join(names, ", "))}
		}
	}
	if err := n.Decode(out); err != nil {
		return yamlLineError(n, err)
	}
	if f := v.FieldByName("line"); f.IsValid() {
		reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem().SetInt(int64(n.Line))
	}
	return nil
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "scalar"
}

// yamlLineError turns yaml's "line N: cannot unmarshal ..." into a
// manifestError.
func yamlLineError(n *yaml.Node, err error) error {
	var me *manifestError
	if errors.As(err, &me) {
		return me
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg := te.Errors[0]
		line := n.Line
		if rest, ok := strings.CutPrefix(msg, "line "); ok {
			if l, tail, ok := strings.Cut(rest, ": "); ok {
				if v, err := strconv.Atoi(l); err == nil {
					line = v
				}
				msg = tail
			}
		}
		msg = strings.ReplaceAll(msg, "cannot unmarshal ", "")
		return &manifestError{line: line, msg: "wrong type: " + msg}
	}
	return &manifestError{line: n.Line, msg: err.Error()}
}

// The list entries record their lines and refuse unknown keys.
func (p *manifestPut) UnmarshalYAML(n *yaml.Node) error {
	type t manifestPut
	return decodeStrict(n, (*t)(p))
}
func (p *manifestSync) UnmarshalYAML(n *yaml.Node) error {
	type t manifestSync
	return decodeStrict(n, (*t)(p))
}
func (p *manifestSet) UnmarshalYAML(n *yaml.Node) error {
	type t manifestSet
	return decodeStrict(n, (*t)(p))
}
func (p *manifestUnset) UnmarshalYAML(n *yaml.Node) error {
	type t manifestUnset
	return decodeStrict(n, (*t)(p))
}
func (p *manifestImage) UnmarshalYAML(n *yaml.Node) error {
	type t manifestImage
	return decodeStrict(n, (*t)(p))
}
func (p *manifestEdit) UnmarshalYAML(n *yaml.Node) error {
	type t manifestEdit
	return decodeStrict(n, (*t)(p))
}
func (p *manifestExpectSHA) UnmarshalYAML(n *yaml.Node) error {
	type t manifestExpectSHA
	return decodeStrict(n, (*t)(p))
}
func (p *manifestPR) UnmarshalYAML(n *yaml.Node) error {
	type t manifestPR
	return decodeStrict(n, (*t)(p))
}

// parseManifest decodes a manifest document (YAML, or JSON, which is YAML).
func parseManifest(data []byte) (*manifest, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not valid YAML or JSON: %w", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &manifestError{line: extra.Line, msg: "a manifest is one document; this is a second one"}
	}
	if len(doc.Content) == 0 {
		return nil, errors.New("the manifest is empty")
	}
	m := &manifest{}
	type t manifest
	root := doc.Content[0]
	if err := decodeStrict(root, (*t)(m)); err != nil {
		return nil, err
	}
	m.lines = map[string]int{}
	for j := 0; j+1 < len(root.Content); j += 2 {
		m.lines[root.Content[j].Value] = root.Content[j].Line
	}
	return m, nil
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
