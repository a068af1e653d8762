package lfs

import (
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitattributes"
)

// AttributesFile is the name of the files that hold attributes.
const AttributesFile = ".gitattributes"

// AttributePaths are the .gitattributes files that can decide the
// attributes of p: the root's and each directory's above p, root first.
func AttributePaths(p string) []string {
	out := []string{AttributesFile}
	dir := path.Dir(p)
	if dir == "." {
		return out
	}
	segs := strings.Split(dir, "/")
	for i := range segs {
		out = append(out, strings.Join(segs[:i+1], "/")+"/"+AttributesFile)
	}
	return out
}

// Rules are the attribute lines of the .gitattributes files on one path,
// in git's order of increasing priority.
type Rules struct {
	stack  []gitattributes.MatchAttribute
	macros map[string]gitattributes.MatchAttribute
}

// Add adds the content of the .gitattributes file of directory dir ("" for
// the root). Files must be added root first, then down the path. Macros
// ([attr]name) count only in the root's file, as git has it.
func (r *Rules) Add(dir string, content []byte) {
	var domain []string
	if dir != "" {
		domain = strings.Split(dir, "/")
	}
	// Line by line: a line git would ignore (a bad attribute name) must
	// not drop the file's other lines.
	for _, line := range strings.Split(string(content), "\n") {
		line = strings.TrimSuffix(line, "\r")
		m, err := gitattributes.ParseAttributesLine(line, domain, dir == "")
		if err != nil || m.Name == "" || strings.HasPrefix(m.Name, "!") || strings.HasSuffix(m.Name, "/") {
			// git ignores negative patterns, and a pattern with a trailing
			// slash matches only directories, never a file (go-git's
			// matcher panics on one).
			continue
		}
		if m.Pattern == nil {
			if r.macros == nil {
				r.macros = map[string]gitattributes.MatchAttribute{}
			}
			r.macros[m.Name] = m
			continue
		}
		r.stack = append(r.stack, m)
	}
}

// IsLFS reports whether p's filter attribute is "lfs": the line of highest
// priority that says anything of filter (itself or through a macro)
// decides, and within a line the last word does.
func (r *Rules) IsLFS(p string) bool {
	segs := strings.Split(p, "/")
	for i := len(r.stack) - 1; i >= 0; i-- {
		m := r.stack[i]
		if !match(m.Pattern, segs) {
			continue
		}
		if v, decided := r.filterOf(m.Attributes); decided {
			return v
		}
	}
	return false
}

// filterOf says what attrs set filter to, reading them last first.
func (r *Rules) filterOf(attrs []gitattributes.Attribute) (lfs, decided bool) {
	for j := len(attrs) - 1; j >= 0; j-- {
		a := attrs[j]
		if a.Name() == "filter" {
			return a.IsValueSet() && a.Value() == "lfs", true
		}
		if macro, ok := r.macros[a.Name()]; ok && a.IsSet() {
			for k := len(macro.Attributes) - 1; k >= 0; k-- {
				if b := macro.Attributes[k]; b.Name() == "filter" {
					return b.IsValueSet() && b.Value() == "lfs", true
				}
			}
		}
	}
	return false, false
}

// match is pattern.Match(segs), a panic of go-git's matcher on a pattern
// not foreseen here being no match rather than a crash.
func match(pattern gitattributes.Pattern, segs []string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return pattern.Match(segs)
}
