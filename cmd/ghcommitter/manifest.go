package main

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/edits"
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
				fmt.Sscan(l, &line)
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
		return nil, fmt.Errorf("not valid YAML or JSON: %v", err)
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

// load reads the manifest, when there is one, and merges it into f: its
// lists are added to the flags' (the manifest's first), and its single
// values fill those the flags leave unset. Everything wrong is a usage
// error naming the manifest's line; nothing has been sent yet.
func (m *manifestFlags) load(in *stdinOnce, f *commitFlags) error {
	if m.file == "" {
		if m.allowCommands {
			return usageErrorf("", "--allow-commands is for --manifest: give one, or drop it")
		}
		return nil
	}
	m.name = m.file
	dir := filepath.Dir(m.file)
	if m.file == "-" {
		m.name, dir = "the manifest on stdin", "."
	}
	data, err := readLocal(in, m.file)
	if err != nil {
		return usageErrorf("", "--manifest: %v", err)
	}
	man, err := parseManifest(data)
	if err == nil {
		err = m.merge(man, f, dir)
	}
	if err != nil {
		var me *manifestError
		if errors.As(err, &me) {
			return usageErrorf("see `ghcommitter schema manifest` for what a manifest holds", "%s:%d: %s", m.name, me.line, me.msg)
		}
		return usageErrorf("see `ghcommitter schema manifest` for what a manifest holds", "%s: %v", m.name, err)
	}
	return nil
}

func (m *manifestFlags) merge(man *manifest, f *commitFlags, dir string) error {
	// Local paths stay inside the manifest's directory: a manifest from a
	// pull request's checkout must not commit the runner's other files.
	local := func(line int, what, p string) (string, error) {
		if p == "-" {
			return p, nil
		}
		clean := filepath.Clean(filepath.FromSlash(p))
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return "", &manifestError{line: line, msg: fmt.Sprintf("%s %q: local paths must be relative and inside the manifest's directory", what, p)}
		}
		full := filepath.Join(dir, clean)
		root, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return "", &manifestError{line: line, msg: fmt.Sprintf("%s %q: %v", what, p, err)}
		}
		real, err := filepath.EvalSymlinks(full)
		if err != nil {
			return "", &manifestError{line: line, msg: fmt.Sprintf("%s %q: no such file or directory", what, p)}
		}
		if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", &manifestError{line: line, msg: fmt.Sprintf("%s %q: a symlink out of the manifest's directory", what, p)}
		}
		return full, nil
	}
	checkPath := func(line int, what, p string) error {
		if err := committer.ValidatePath(p); err != nil {
			return &manifestError{line: line, msg: fmt.Sprintf("%s: path %q: %v", what, p, err)}
		}
		return nil
	}
	if f.message == "" && f.messageFile == "" {
		f.message = man.Message
	}
	var trailers []string
	for _, tr := range man.Trailers {
		if _, err := parseTrailer(tr.value); err != nil {
			return &manifestError{line: tr.line, msg: fmt.Sprintf("trailer %q: %v (write KEY=VALUE or \"KEY: VALUE\")", tr.value, err)}
		}
		trailers = append(trailers, tr.value)
	}
	f.trailers.trailers = append(trailers, f.trailers.trailers...)
	if man.Author != "" {
		if _, err := parseAuthor(man.Author); err != nil {
			return &manifestError{line: man.lines["author"], msg: fmt.Sprintf("author %q: want \"Name <email>\"", man.Author)}
		}
	}
	if man.Branch != "" {
		if err := committer.ValidateBranch(man.Branch); err != nil {
			return &manifestError{line: man.lines["branch"], msg: err.Error()}
		}
	}
	for _, s := range []struct {
		flag *string
		val  string
	}{{&f.author, man.Author}, {&f.branch, man.Branch}, {&f.createFrom, man.CreateBranchFrom}} {
		if *s.flag == "" {
			*s.flag = s.val
		}
	}
	var adds []string
	for _, p := range man.Put {
		if err := checkPath(p.line, "put", p.Path); err != nil {
			return err
		}
		n := 0
		for _, s := range []*string{p.File, p.Text, p.Base64} {
			if s != nil {
				n++
			}
		}
		if n != 1 {
			return &manifestError{line: p.line, msg: fmt.Sprintf("put %q: give exactly one of file, text and base64", p.Path)}
		}
		mode := committer.ModeFile
		if p.Executable {
			mode = committer.ModeExecutable
		}
		switch {
		case p.File != nil:
			if *p.File == "-" && m.file == "-" {
				return &manifestError{line: p.line, msg: fmt.Sprintf("put %q reads stdin, which holds the manifest: write it to a file", p.Path)}
			}
			if p.Executable {
				return &manifestError{line: p.line, msg: fmt.Sprintf("put %q: executable is for text and base64; a file keeps its own mode", p.Path)}
			}
			if strings.Contains(p.Path, "=") {
				return &manifestError{line: p.line, msg: fmt.Sprintf("put %q: a put from a file cannot have \"=\" in its path", p.Path)}
			}
			lp, err := local(p.line, "put file", *p.File)
			if err != nil {
				return err
			}
			adds = append(adds, p.Path+"="+lp)
		case p.Text != nil:
			m.puts = append(m.puts, inlinePut{path: p.Path, data: []byte(*p.Text), mode: mode})
		default:
			data, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(*p.Base64), ""))
			if err != nil {
				return &manifestError{line: p.line, msg: fmt.Sprintf("put %q: base64: %v", p.Path, err)}
			}
			m.puts = append(m.puts, inlinePut{path: p.Path, data: data, mode: mode})
		}
	}
	f.adds = append(adds, f.adds...)
	var dels []string
	for _, d := range man.Delete {
		if err := checkPath(d.line, "delete", strings.TrimSuffix(d.value, "/")); err != nil {
			return err
		}
		dels = append(dels, d.value)
	}
	f.deletes = append(dels, f.deletes...)
	var syncs []string
	for _, s := range man.Sync {
		if s.Local == "" || s.Remote == "" {
			return &manifestError{line: s.line, msg: `sync: give local and remote (remote "." is the root)`}
		}
		if strings.Contains(s.Remote, "=") {
			return &manifestError{line: s.line, msg: fmt.Sprintf("sync: remote %q: cannot hold \"=\"", s.Remote)}
		}
		if _, err := repoDir("sync", s.Remote); err != nil {
			return &manifestError{line: s.line, msg: err.Error()}
		}
		if s.Local == "-" {
			return &manifestError{line: s.line, msg: "sync: local is a directory, not stdin"}
		}
		lp, err := local(s.line, "sync local", s.Local)
		if err != nil {
			return err
		}
		syncs = append(syncs, lp+"="+s.Remote)
	}
	f.syncs = append(syncs, f.syncs...)
	if len(man.Edit) > 0 && !m.allowCommands {
		return &manifestError{line: man.Edit[0].line, msg: "edit: the manifest runs commands: pass --allow-commands if you trust where it comes from"}
	}
	var cmds []string
	for _, e := range man.Edit {
		if err := checkPath(e.line, "edit", e.Path); err != nil {
			return err
		}
		if strings.Contains(e.Path, "=") || strings.TrimSpace(e.Command) == "" {
			return &manifestError{line: e.line, msg: fmt.Sprintf("edit %q: want a path without \"=\" and a command", e.Path)}
		}
		cmds = append(cmds, e.Path+"="+e.Command)
	}
	f.edits = append(cmds, f.edits...)
	var shas []string
	for _, x := range man.ExpectSHA {
		if err := checkPath(x.line, "expect-sha", x.Path); err != nil {
			return err
		}
		if !shaRE.MatchString(x.SHA) {
			return &manifestError{line: x.line, msg: fmt.Sprintf("expect-sha %q: sha %q is not a 40-digit blob SHA", x.Path, x.SHA)}
		}
		shas = append(shas, x.Path+"="+x.SHA)
	}
	f.expectSHAs = append(shas, f.expectSHAs...)
	var absent []string
	for _, a := range man.ExpectAbsent {
		if err := checkPath(a.line, "expect-absent", a.value); err != nil {
			return err
		}
		absent = append(absent, a.value)
	}
	f.absent = append(absent, f.absent...)
	if err := m.structuredOps(man); err != nil {
		return err
	}
	f.structured.ops = append(append([]structuredOp(nil), m.ops...), f.structured.ops...)
	if pr := man.PullRequest; pr != nil {
		f.pr.enabled = true
		for _, s := range []struct {
			flag *string
			val  string
		}{{&f.pr.base, pr.Base}, {&f.pr.title, pr.Title}, {&f.pr.body, pr.Body}} {
			if *s.flag == "" {
				*s.flag = s.val
			}
		}
		f.pr.draft = f.pr.draft || pr.Draft
		if f.dryRun {
			return &manifestError{line: pr.line, msg: "pull-request cannot be combined with --dry-run"}
		}
	}
	return nil
}

// structuredOps turns the manifest's set, unset and set-image into ops.
func (m *manifestFlags) structuredOps(man *manifest) error {
	add := func(line int, op structuredOp) error {
		op.where = fmt.Sprintf("%s:%d: %s", m.name, line, op.kind)
		if err := op.check(); err != nil {
			var ee *exitError
			if errors.As(err, &ee) {
				return &manifestError{line: line, msg: strings.TrimPrefix(ee.err.Error(), op.where+": ")}
			}
			return err
		}
		m.ops = append(m.ops, op)
		return nil
	}
	for _, s := range man.Set {
		if s.Value.Kind != yaml.ScalarNode || s.Value.Tag == "!!null" && s.Value.Value == "" && s.Value.Line == 0 {
			return &manifestError{line: s.line, msg: fmt.Sprintf("set %q: give a scalar value", s.Key)}
		}
		kind := "set"
		if s.String {
			kind = "set-string"
		}
		if s.Key == "" {
			return &manifestError{line: s.line, msg: "set: give path, key and value"}
		}
		// The value's text as written: 1.20 stays "1.20", not 1.2.
		if err := add(s.line, structuredOp{kind: kind, path: s.Path, key: s.Key, value: s.Value.Value, mustExist: s.MustExist}); err != nil {
			return err
		}
	}
	for _, u := range man.Unset {
		if u.Key == "" {
			return &manifestError{line: u.line, msg: "unset: give path and key"}
		}
		if err := add(u.line, structuredOp{kind: "unset", path: u.Path, key: u.Key, mustExist: u.MustExist}); err != nil {
			return err
		}
	}
	for _, im := range man.SetImage {
		img := edits.Image{Name: im.Name, NewName: im.NewName, NewTag: im.NewTag, Digest: im.Digest}
		if im.Image != "" {
			if img != (edits.Image{}) {
				return &manifestError{line: im.line, msg: "set-image: give image, or name with new-name, new-tag and digest, not both"}
			}
			var err error
			if img, err = edits.ParseImage(im.Image); err != nil {
				return &manifestError{line: im.line, msg: "set-image: " + err.Error()}
			}
		}
		if img.Name == "" {
			return &manifestError{line: im.line, msg: "set-image: give image (api:1.2) or name"}
		}
		if err := add(im.line, structuredOp{kind: "set-image", path: im.Path, image: img}); err != nil {
			return err
		}
	}
	return nil
}

// addInline adds the manifest's text and base64 puts to the change set.
func (b *changeBuilder) addInline(puts []inlinePut) {
	for _, p := range puts {
		b.files++
		b.bytes += int64(len(p.data))
		b.cs.PutMode(p.path, p.data, p.mode)
	}
}

func newSchemaCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "schema manifest",
		Short: "Print the JSON Schema of a --manifest file",
		Long: `Schema prints the JSON Schema (draft 2020-12) that a change manifest for
commit --manifest follows, for editors and for checking manifests in CI. The
file is cmd/ghcommitter/manifest.schema.json in the repository.`,
		Example: `  # Point an editor's YAML language server at it:
  ghcommitter schema manifest > manifest.schema.json

  # Then commit a whole promotion from one file:
  ghcommitter commit -R acme/mono --manifest promotion.yaml`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"manifest"},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if args[0] != "manifest" {
				return usageErrorf("the one schema is: manifest", "no schema %q", args[0])
			}
			_, err := e.stdout.Write(manifestSchema)
			return err
		}),
	}
}
