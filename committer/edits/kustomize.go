package edits

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer"
	"go.yaml.in/yaml/v3"
)

// Image is one entry of a kustomization's images: list. In SetImage, an
// empty NewName, NewTag or Digest is removed from the entry and "*" keeps
// the one the file has, as `kustomize edit set image` does.
type Image struct {
	Name    string
	NewName string
	NewTag  string
	Digest  string
}

// Preserve is the Image field value that keeps, in SetImage, the value
// the file has.
const Preserve = "*"

// ParseImage parses `kustomize edit set image`'s argument as kustomize
// (v5) does: NAME:TAG, NAME@DIGEST, NAME:TAG@DIGEST, NAME=NEWNAME, or
// NAME=NEWNAME with :TAG and/or @DIGEST; a ":" before the first "/" is a
// registry's port, not a tag. "*" as NEWNAME, TAG or DIGEST keeps the
// file's value. Unlike kustomize, "NAME=" with nothing after it is refused.
func ParseImage(arg string) (Image, error) {
	bad := fmt.Errorf("image %q: want NAME:TAG, NAME@DIGEST, NAME=NEWNAME, NAME=NEWNAME:TAG or NAME=NEWNAME@DIGEST", arg)
	key, value, renamed := strings.Cut(arg, "=")
	if !renamed {
		value = arg
	}
	name, tag, digest := splitImage(value)
	if name == arg || value == "" {
		return Image{}, bad
	}
	img := Image{Name: name, NewTag: tag, Digest: digest}
	if renamed {
		img.Name, img.NewName = key, name
	}
	if img.Name == "" || strings.ContainsAny(arg, " \t\r\n") {
		return Image{}, bad
	}
	return img, nil
}

// splitImage splits an image reference into name, tag and digest, as
// kustomize's image.Split does.
func splitImage(ref string) (name, tag, digest string) {
	search, off := ref, 0
	if i := strings.Index(ref, "/"); i > 0 {
		search, off = ref[i:], i
	}
	at, colon := strings.Index(search, "@"), strings.Index(search, ":")
	switch {
	case colon < 0 && at < 0:
		return ref, "", ""
	case at >= 0 && (at < colon || colon < 0):
		return ref[:at+off], "", ref[at+off+1:]
	case at >= 0:
		return ref[:colon+off], ref[colon+off+1 : at+off], ref[at+off+1:]
	}
	return ref[:colon+off], ref[colon+off+1:], ""
}

func (img Image) String() string {
	s := img.Name
	if img.NewName != "" {
		s += "=" + img.NewName
	}
	if img.NewName == "" && img.NewTag == "" && img.Digest == "" {
		return s + "="
	}
	if img.NewTag != "" {
		s += ":" + img.NewTag
	}
	if img.Digest != "" {
		s += "@" + img.Digest
	}
	return s
}

// SetImage returns an edit function that sets img in a kustomization's
// images: list: the entry named img.Name gets exactly img's fields (an
// empty field is removed, Preserve keeps the file's), and a missing entry
// is added at the end of the list (the list, or the file, is created when
// missing). Only the lines of that entry change.
func SetImage(img Image) committer.EditFunc {
	return func(old []byte, _ bool) ([]byte, error) {
		out, err := keepBOM(old, func(src []byte) ([]byte, error) {
			return lf(src, func(src []byte) ([]byte, error) { return setImage(src, img) })
		})
		if err != nil {
			return nil, &Error{Op: "set image", Key: img.String(), Err: err}
		}
		return out, nil
	}
}

var imageFields = []struct {
	key string
	get func(Image) string
}{
	{"newName", func(i Image) string { return i.NewName }},
	{"newTag", func(i Image) string { return i.NewTag }},
	{"digest", func(i Image) string { return i.Digest }},
}

func setImage(src []byte, img Image) ([]byte, error) {
	if img.Name == "" {
		return nil, errors.New("no image name")
	}
	d, err := parseYAML(src)
	if err != nil {
		return nil, err
	}
	if len(d.docs) > 1 {
		return nil, errors.New("a kustomization is one YAML document; this file has several")
	}
	root, err := d.root(key{})
	if err != nil {
		return nil, err
	}
	var list *yaml.Node
	if root != nil {
		if root.Kind != yaml.MappingNode {
			return nil, errors.New("the file is not a mapping: not a kustomization")
		}
		if j := mapIndex(root, "images"); j >= 0 {
			list = root.Content[j+1]
			if list.Kind != yaml.SequenceNode {
				return nil, errors.New("images is not a list")
			}
		}
	}
	at := -1
	if list != nil {
		for i, it := range list.Content {
			if it.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("images.%d is not a mapping", i)
			}
			if j := mapIndex(it, "name"); j >= 0 && it.Content[j+1].Value == img.Name {
				at = i
			}
		}
	}
	if at < 0 {
		return appendImage(src, d, root, list, img)
	}
	out := src
	for _, f := range imageFields {
		k := key{segs: []string{"images", fmt.Sprint(at), f.key}}
		v := f.get(img)
		switch v {
		case Preserve:
			continue
		case "":
			out, err = UnsetBytes(YAML, out, k.upTo(3))
		default:
			out, err = SetBytes(YAML, out, k.upTo(3), v, AsString())
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// appendImage adds an entry for img at the end of list (nil: no images:
// key yet).
func appendImage(src []byte, d *yamlDoc, root, list *yaml.Node, img Image) ([]byte, error) {
	fields := []string{"name: " + renderScalar(img.Name, stylePlain, true, false)}
	for _, f := range imageFields {
		if v := f.get(img); v != "" && v != Preserve {
			fields = append(fields, f.key+": "+renderScalar(v, stylePlain, true, false))
		}
	}
	entry := func(dash int) string {
		pad := strings.Repeat(" ", dash)
		return pad + "- " + strings.Join(fields, "\n"+pad+"  ") + "\n"
	}
	if list == nil {
		block := "images:\n" + entry(0)
		if root == nil || len(root.Content) == 0 {
			return append(nlTerminated(src), block...), nil
		}
		if root.Style&yaml.FlowStyle != 0 {
			return nil, errors.New("the kustomization is a flow mapping ({...}); images: cannot be added to it")
		}
		at := d.pairEnd(root, len(root.Content)-2)
		if at > 0 && src[at-1] != '\n' {
			block = "\n" + block
		}
		return splice(src, at, at, block), nil
	}
	if list.Style&yaml.FlowStyle != 0 {
		if len(list.Content) > 0 {
			return nil, errors.New("images is a flow list ([...]); an entry cannot be added to it in place")
		}
		// images: [] — the entries go on the lines below.
		open := d.t.offset(list.Line, list.Column)
		end, err := flowEnd(src, open)
		if err != nil {
			return nil, err
		}
		return splice(src, open, end, "\n"+strings.TrimSuffix(entry(0), "\n")), nil
	}
	last := list.Content[len(list.Content)-1]
	dash := d.t.offset(last.Line, last.Column) - 1
	for dash >= 0 && src[dash] == ' ' {
		dash--
	}
	if dash < 0 || src[dash] != '-' {
		return nil, errors.New("cannot find the images list's last dash")
	}
	n := dash - d.t.starts[d.t.lineOf(dash)]
	lastLine := d.t.lineOf(dash)
	for l := lastLine + 1; l < d.t.lines(); l++ {
		if d.t.blank(l) || d.t.comment(l) {
			continue
		}
		if d.t.indent(l) > n {
			lastLine = l
			continue
		}
		break
	}
	at := d.t.next(lastLine)
	block := entry(n)
	if at > 0 && src[at-1] != '\n' {
		block = "\n" + block
	}
	return splice(src, at, at, block), nil
}

func nlTerminated(src []byte) []byte {
	if len(src) == 0 || src[len(src)-1] == '\n' {
		return append([]byte(nil), src...)
	}
	return append(append([]byte(nil), src...), '\n')
}
