package edits

import (
	"go/build"
	"strings"
	"testing"
)

// TestCommitterDoesNotImportEdits keeps YAML and JSON editing out of
// programs that use only package committer.
func TestCommitterDoesNotImportEdits(t *testing.T) {
	const mod = "github.com/ghcommitter/ghcommitter/"
	seen := map[string]bool{}
	var visit func(path string)
	visit = func(path string) {
		if seen[path] || !strings.HasPrefix(path, mod) {
			return
		}
		seen[path] = true
		p, err := build.Import(path, ".", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range p.Imports {
			if imp == mod+"committer/edits" || strings.Contains(imp, "yaml") {
				t.Errorf("%s imports %s", path, imp)
			}
			visit(imp)
		}
	}
	visit(mod + "committer")
}
