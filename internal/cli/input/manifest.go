package input

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Manifest is a change manifest's document. Field names are the commit
// command's flag names; internal/cli/manifest.schema.json describes the same.
type Manifest struct {
	Message          string              `yaml:"message"`
	Trailers         []ManifestString    `yaml:"trailers"`
	Author           string              `yaml:"author"`
	Branch           string              `yaml:"branch"`
	CreateBranchFrom string              `yaml:"create-branch-from"`
	Put              []ManifestPut       `yaml:"put"`
	Delete           []ManifestString    `yaml:"delete"`
	Sync             []ManifestSync      `yaml:"sync"`
	Set              []ManifestSet       `yaml:"set"`
	Unset            []ManifestUnset     `yaml:"unset"`
	SetImage         []ManifestImage     `yaml:"set-image"`
	Edit             []ManifestEdit      `yaml:"edit"`
	ExpectSHA        []ManifestExpectSHA `yaml:"expect-sha"`
	ExpectAbsent     []ManifestString    `yaml:"expect-absent"`
	PullRequest      *ManifestPR         `yaml:"pull-request"`

	Lines map[string]int // the line of each top-level key
}

// ManifestPut is an entry of the manifest's put list.
type ManifestPut struct {
	Line       int
	Path       string  `yaml:"path"`
	File       *string `yaml:"file"`
	Text       *string `yaml:"text"`
	Base64     *string `yaml:"base64"`
	Executable bool    `yaml:"executable"`
}

// ManifestSync is an entry of the manifest's sync list.
type ManifestSync struct {
	Line   int
	Local  string `yaml:"local"`
	Remote string `yaml:"remote"`
}

// ManifestSet is an entry of the manifest's set list.
type ManifestSet struct {
	Line      int
	Path      string    `yaml:"path"`
	Key       string    `yaml:"key"`
	Value     yaml.Node `yaml:"value"`
	String    bool      `yaml:"string"`
	MustExist bool      `yaml:"must-exist"`
}

// ManifestUnset is an entry of the manifest's unset list.
type ManifestUnset struct {
	Line      int
	Path      string `yaml:"path"`
	Key       string `yaml:"key"`
	MustExist bool   `yaml:"must-exist"`
}

// ManifestImage is an entry of the manifest's set-image list.
type ManifestImage struct {
	Line    int
	Path    string `yaml:"path"`
	Image   string `yaml:"image"`
	Name    string `yaml:"name"`
	NewName string `yaml:"new-name"`
	NewTag  string `yaml:"new-tag"`
	Digest  string `yaml:"digest"`
}

// ManifestEdit is an entry of the manifest's edit list.
type ManifestEdit struct {
	Line    int
	Path    string `yaml:"path"`
	Command string `yaml:"command"`
}

// ManifestExpectSHA is an entry of the manifest's expect-sha list.
type ManifestExpectSHA struct {
	Line int
	Path string `yaml:"path"`
	SHA  string `yaml:"sha"`
}

// ManifestPR is the manifest's pull-request.
type ManifestPR struct {
	Line  int
	Base  string `yaml:"base"`
	Title string `yaml:"title"`
	Body  string `yaml:"body"`
	Draft bool   `yaml:"draft"`
}

// ManifestString is a string that remembers its line.
type ManifestString struct {
	Line  int
	Value string
}

// UnmarshalYAML takes a scalar and its line.
func (s *ManifestString) UnmarshalYAML(n *yaml.Node) error {
	s.Line = n.Line
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" && n.ShortTag() != "!!int" && n.ShortTag() != "!!float" {
		return &ManifestError{Line: n.Line, Msg: "want a string"}
	}
	s.Value = n.Value
	return nil
}

// ManifestError is a problem at a line of the manifest.
type ManifestError struct {
	Line int
	Msg  string
}

func (e *ManifestError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// decodeStrict decodes mapping n into the struct out, refusing keys the
// struct does not have, and records n's line in out's "Line" field.
func decodeStrict(n *yaml.Node, out any) error {
	v := reflect.ValueOf(out).Elem()
	if n.Kind != yaml.MappingNode {
		return &ManifestError{Line: n.Line, Msg: fmt.Sprintf("want a mapping, not a %s", nodeKind(n))}
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
			return &ManifestError{Line: n.Content[j].Line, Msg: fmt.Sprintf("unknown key %q (known: %s)", k, strings.Join(names, ", "))}
		}
	}
	if err := n.Decode(out); err != nil {
		return yamlLineError(n, err)
	}
	if f := v.FieldByName("Line"); f.IsValid() {
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
// ManifestError.
func yamlLineError(n *yaml.Node, err error) error {
	var me *ManifestError
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
		return &ManifestError{Line: line, Msg: "wrong type: " + msg}
	}
	return &ManifestError{Line: n.Line, Msg: err.Error()}
}

// UnmarshalYAML decodes a list entry: each records its line and refuses
// unknown keys.
func (p *ManifestPut) UnmarshalYAML(n *yaml.Node) error {
	type t ManifestPut
	return decodeStrict(n, (*t)(p))
}

// UnmarshalYAML is ManifestPut's.
func (p *ManifestSync) UnmarshalYAML(n *yaml.Node) error {
	type t ManifestSync
	return decodeStrict(n, (*t)(p))
}

// UnmarshalYAML is ManifestPut's.
func (p *ManifestSet) UnmarshalYAML(n *yaml.Node) error {
	type t ManifestSet
	return decodeStrict(n, (*t)(p))
}

// UnmarshalYAML is ManifestPut's.
func (p *ManifestUnset) UnmarshalYAML(n *yaml.Node) error {
	type t ManifestUnset
	return decodeStrict(n, (*t)(p))
}

// UnmarshalYAML is ManifestPut's.
func (p *ManifestImage) UnmarshalYAML(n *yaml.Node) error {
	type t ManifestImage
	return decodeStrict(n, (*t)(p))
}

// UnmarshalYAML is ManifestPut's.
func (p *ManifestEdit) UnmarshalYAML(n *yaml.Node) error {
	type t ManifestEdit
	return decodeStrict(n, (*t)(p))
}

// UnmarshalYAML is ManifestPut's.
func (p *ManifestExpectSHA) UnmarshalYAML(n *yaml.Node) error {
	type t ManifestExpectSHA
	return decodeStrict(n, (*t)(p))
}

// UnmarshalYAML is ManifestPut's.
func (p *ManifestPR) UnmarshalYAML(n *yaml.Node) error {
	type t ManifestPR
	return decodeStrict(n, (*t)(p))
}

// ParseManifest decodes a manifest document (YAML, or JSON, which is YAML).
func ParseManifest(data []byte) (*Manifest, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not valid YAML or JSON: %w", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &ManifestError{Line: extra.Line, Msg: "a manifest is one document; this is a second one"}
	}
	if len(doc.Content) == 0 {
		return nil, errors.New("the manifest is empty")
	}
	m := &Manifest{}
	type t Manifest
	root := doc.Content[0]
	if err := decodeStrict(root, (*t)(m)); err != nil {
		return nil, err
	}
	m.Lines = map[string]int{}
	for j := 0; j+1 < len(root.Content); j += 2 {
		m.Lines[root.Content[j].Value] = root.Content[j].Line
	}
	return m, nil
}
