package input

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// indexModes returns, when core.fileMode is false, the mode git add takes
// for each of paths (relative to the top level) that is a regular file on
// disk: its index entry's mode, or 100644 when it has none. The map is
// empty when core.fileMode is true (the default): the mode on disk holds.
func (g *GitCheckout) indexModes(paths []string) (map[string]string, error) {
	modes := map[string]string{}
	if len(paths) == 0 {
		return modes, nil
	}
	out, err := g.git(g.top, "config", "--bool", "core.fileMode")
	if err != nil || strings.TrimSpace(string(out)) != "false" {
		return modes, nil // unset (git config exits 1) or true
	}
	index := map[string]string{}
	for rest := paths; len(rest) > 0; {
		n := min(len(rest), 500)
		out, err := g.git(g.top, append([]string{"ls-files", "-s", "-z", "--full-name", "--"}, rest[:n]...)...)
		if err != nil {
			return nil, err
		}
		rest = rest[n:]
		for _, rec := range strings.Split(string(out), "\x00") {
			// MODE SP SHA SP STAGE TAB PATH
			meta, p, ok := strings.Cut(rec, "\t")
			if f := strings.Fields(meta); ok && len(f) == 3 && f[2] == "0" {
				index[p] = f[0]
			}
		}
	}
	for _, p := range paths {
		info, err := os.Lstat(filepath.Join(g.top, filepath.FromSlash(p)))
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		modes[p] = "100644"
		if m := index[p]; m == "100755" || m == "100644" {
			modes[p] = m
		}
	}
	return modes, nil
}

// beyondSymlink reports whether a directory on the way from top to p (/
// separated, relative to top) is a symbolic link: git does not follow one,
// so to git there is nothing at p.
func beyondSymlink(top, p string) bool {
	dir := top
	parts := strings.Split(p, "/")
	for _, part := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, part)
		info, err := os.Lstat(dir)
		if err != nil || info.Mode()&fs.ModeSymlink != 0 {
			return err == nil
		}
	}
	return false
}
