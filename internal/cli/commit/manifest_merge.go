package commit

import (
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"github.com/ghcommitter/ghcommitter/internal/cli/input"
	"path/filepath"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/edits"
	"go.yaml.in/yaml/v3"
)

// loadManifest reads the manifest, when there is one, and merges it into f: its
// lists are added to the flags' (the manifest's first), and its single
// values fill those the flags leave unset. Everything wrong is a usage
// error naming the manifest's line; nothing has been sent yet.
func loadManifest(m *manifestFlags, in *stdinOnce, f *commitFlags) error {
	if m.file == "" {
		if m.allowCommands {
			return cmdutil.UsageErrorf("", "--allow-commands is for --manifest: give one, or drop it")
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
		return cmdutil.UsageErrorf("", "--manifest: %v", err)
	}
	man, err := input.ParseManifest(data)
	if err == nil {
		err = m.merge(man, f, dir)
	}
	if err != nil {
		var me *input.ManifestError
		if errors.As(err, &me) {
			return cmdutil.UsageErrorf("see `ghcommitter schema manifest` for what a manifest holds", "%s:%d: %s", m.name, me.Line, me.Msg)
		}
		return cmdutil.UsageErrorf("see `ghcommitter schema manifest` for what a manifest holds", "%s: %v", m.name, err)
	}
	return nil
}

func (m *manifestFlags) merge(man *input.Manifest, f *commitFlags, dir string) error {
	// Local paths stay inside the manifest's directory: a manifest from a
	// pull request's checkout must not commit the runner's other files.
	local := func(line int, what, p string) (string, error) {
		if p == "-" {
			return p, nil
		}
		clean := filepath.Clean(filepath.FromSlash(p))
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return "", &input.ManifestError{Line: line, Msg: fmt.Sprintf("%s %q: local paths must be relative and inside the manifest's directory", what, p)}
		}
		full := filepath.Join(dir, clean)
		root, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return "", &input.ManifestError{Line: line, Msg: fmt.Sprintf("%s %q: %v", what, p, err)}
		}
		resolved, err := filepath.EvalSymlinks(full)
		if err != nil {
			return "", &input.ManifestError{Line: line, Msg: fmt.Sprintf("%s %q: no such file or directory", what, p)}
		}
		if rel, err := filepath.Rel(root, resolved); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", &input.ManifestError{Line: line, Msg: fmt.Sprintf("%s %q: a symlink out of the manifest's directory", what, p)}
		}
		return full, nil
	}
	checkPath := func(line int, what, p string) error {
		if err := committer.ValidatePath(p); err != nil {
			return &input.ManifestError{Line: line, Msg: fmt.Sprintf("%s: path %q: %v", what, p, err)}
		}
		return nil
	}
	if f.message == "" && f.messageFile == "" {
		f.message = man.Message
	}
	var trailers []string
	for _, tr := range man.Trailers {
		if _, err := parseTrailer(tr.Value); err != nil {
			return &input.ManifestError{Line: tr.Line, Msg: fmt.Sprintf("trailer %q: %v (write KEY=VALUE or \"KEY: VALUE\")", tr.Value, err)}
		}
		trailers = append(trailers, tr.Value)
	}
	f.trailers.trailers = append(trailers, f.trailers.trailers...)
	if man.Author != "" {
		if _, err := parseAuthor(man.Author); err != nil {
			return &input.ManifestError{Line: man.Lines["author"], Msg: fmt.Sprintf("author %q: want \"Name <email>\"", man.Author)}
		}
	}
	if man.Branch != "" {
		if err := committer.ValidateBranch(man.Branch); err != nil {
			return &input.ManifestError{Line: man.Lines["branch"], Msg: err.Error()}
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
		if err := checkPath(p.Line, "put", p.Path); err != nil {
			return err
		}
		n := 0
		for _, s := range []*string{p.File, p.Text, p.Base64} {
			if s != nil {
				n++
			}
		}
		if n != 1 {
			return &input.ManifestError{Line: p.Line, Msg: fmt.Sprintf("put %q: give exactly one of file, text and base64", p.Path)}
		}
		mode := committer.ModeFile
		if p.Executable {
			mode = committer.ModeExecutable
		}
		switch {
		case p.File != nil:
			if *p.File == "-" && m.file == "-" {
				return &input.ManifestError{Line: p.Line, Msg: fmt.Sprintf("put %q reads stdin, which holds the manifest: write it to a file", p.Path)}
			}
			if p.Executable {
				return &input.ManifestError{Line: p.Line, Msg: fmt.Sprintf("put %q: executable is for text and base64; a file keeps its own mode", p.Path)}
			}
			if strings.Contains(p.Path, "=") {
				return &input.ManifestError{Line: p.Line, Msg: fmt.Sprintf("put %q: a put from a file cannot have \"=\" in its path", p.Path)}
			}
			lp, err := local(p.Line, "put file", *p.File)
			if err != nil {
				return err
			}
			adds = append(adds, p.Path+"="+lp)
		case p.Text != nil:
			m.puts = append(m.puts, inlinePut{path: p.Path, data: []byte(*p.Text), mode: mode})
		default:
			data, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(*p.Base64), ""))
			if err != nil {
				return &input.ManifestError{Line: p.Line, Msg: fmt.Sprintf("put %q: base64: %v", p.Path, err)}
			}
			m.puts = append(m.puts, inlinePut{path: p.Path, data: data, mode: mode})
		}
	}
	f.adds = append(adds, f.adds...)
	var dels []string
	for _, d := range man.Delete {
		if err := checkPath(d.Line, "delete", strings.TrimSuffix(d.Value, "/")); err != nil {
			return err
		}
		dels = append(dels, d.Value)
	}
	f.deletes = append(dels, f.deletes...)
	var syncs []string
	for _, s := range man.Sync {
		if s.Local == "" || s.Remote == "" {
			return &input.ManifestError{Line: s.Line, Msg: `sync: give local and remote (remote "." is the root)`}
		}
		if strings.Contains(s.Remote, "=") {
			return &input.ManifestError{Line: s.Line, Msg: fmt.Sprintf("sync: remote %q: cannot hold \"=\"", s.Remote)}
		}
		if _, err := repoDir("sync", s.Remote); err != nil {
			return &input.ManifestError{Line: s.Line, Msg: err.Error()}
		}
		if s.Local == "-" {
			return &input.ManifestError{Line: s.Line, Msg: "sync: local is a directory, not stdin"}
		}
		lp, err := local(s.Line, "sync local", s.Local)
		if err != nil {
			return err
		}
		syncs = append(syncs, lp+"="+s.Remote)
	}
	f.syncs = append(syncs, f.syncs...)
	if len(man.Edit) > 0 && !m.allowCommands {
		return &input.ManifestError{Line: man.Edit[0].Line, Msg: "edit: the manifest runs commands: pass --allow-commands if you trust where it comes from"}
	}
	var cmds []string
	for _, e := range man.Edit {
		if err := checkPath(e.Line, "edit", e.Path); err != nil {
			return err
		}
		if strings.Contains(e.Path, "=") || strings.TrimSpace(e.Command) == "" {
			return &input.ManifestError{Line: e.Line, Msg: fmt.Sprintf("edit %q: want a path without \"=\" and a command", e.Path)}
		}
		cmds = append(cmds, e.Path+"="+e.Command)
	}
	f.edits = append(cmds, f.edits...)
	var shas []string
	for _, x := range man.ExpectSHA {
		if err := checkPath(x.Line, "expect-sha", x.Path); err != nil {
			return err
		}
		if !shaRE.MatchString(x.SHA) {
			return &input.ManifestError{Line: x.Line, Msg: fmt.Sprintf("expect-sha %q: sha %q is not a 40-digit blob SHA", x.Path, x.SHA)}
		}
		shas = append(shas, x.Path+"="+x.SHA)
	}
	f.expectSHAs = append(shas, f.expectSHAs...)
	var absent []string
	for _, a := range man.ExpectAbsent {
		if err := checkPath(a.Line, "expect-absent", a.Value); err != nil {
			return err
		}
		absent = append(absent, a.Value)
	}
	f.absent = append(absent, f.absent...)
	if err := m.structuredOps(man); err != nil {
		return err
	}
	f.structured.ops = append(append([]input.StructuredOp(nil), m.ops...), f.structured.ops...)
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
			return &input.ManifestError{Line: pr.Line, Msg: "pull-request cannot be combined with --dry-run"}
		}
	}
	return nil
}

// structuredOps turns the manifest's set, unset and set-image into ops.
func (m *manifestFlags) structuredOps(man *input.Manifest) error {
	add := func(line int, op input.StructuredOp) error {
		op.Where = fmt.Sprintf("%s:%d: %s", m.name, line, op.Kind)
		if err := op.Check(); err != nil {
			var ee *cmdutil.ExitError
			if errors.As(err, &ee) {
				return &input.ManifestError{Line: line, Msg: strings.TrimPrefix(ee.Err.Error(), op.Where+": ")}
			}
			return err
		}
		m.ops = append(m.ops, op)
		return nil
	}
	for _, s := range man.Set {
		if s.Value.Kind != yaml.ScalarNode || s.Value.Tag == "!!null" && s.Value.Value == "" && s.Value.Line == 0 {
			return &input.ManifestError{Line: s.Line, Msg: fmt.Sprintf("set %q: give a scalar value", s.Key)}
		}
		kind := "set"
		if s.String {
			kind = "set-string"
		}
		if s.Key == "" {
			return &input.ManifestError{Line: s.Line, Msg: "set: give path, key and value"}
		}
		// The value's text as written: 1.20 stays "1.20", not 1.2.
		if err := add(s.Line, input.StructuredOp{Kind: kind, Path: s.Path, Key: s.Key, Value: s.Value.Value, MustExist: s.MustExist}); err != nil {
			return err
		}
	}
	for _, u := range man.Unset {
		if u.Key == "" {
			return &input.ManifestError{Line: u.Line, Msg: "unset: give path and key"}
		}
		if err := add(u.Line, input.StructuredOp{Kind: "unset", Path: u.Path, Key: u.Key, MustExist: u.MustExist}); err != nil {
			return err
		}
	}
	for _, im := range man.SetImage {
		img := edits.Image{Name: im.Name, NewName: im.NewName, NewTag: im.NewTag, Digest: im.Digest}
		if im.Image != "" {
			if img != (edits.Image{}) {
				return &input.ManifestError{Line: im.Line, Msg: "set-image: give image, or name with new-name, new-tag and digest, not both"}
			}
			var err error
			if img, err = edits.ParseImage(im.Image); err != nil {
				return &input.ManifestError{Line: im.Line, Msg: "set-image: " + err.Error()}
			}
		}
		if img.Name == "" {
			return &input.ManifestError{Line: im.Line, Msg: "set-image: give image (api:1.2) or name"}
		}
		if err := add(im.Line, input.StructuredOp{Kind: "set-image", Path: im.Path, Image: img}); err != nil {
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
