package layout

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxReadmeLines holds README.md to what a newcomer needs first (issue 41):
// what ghcommitter is, the two set-up commands, the quick starts, the
// guarantees in short, the exit codes and links into docs/. Details, and
// every later feature, are documented in docs/.
const maxReadmeLines = 350

// readmeLink is a Markdown link's target: ](TARGET) or ](TARGET "title").
var readmeLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// TestReadmeLength holds README.md to maxReadmeLines lines, and checks that
// every relative link in it names a file or directory of the repository.
func TestReadmeLength(t *testing.T) {
	root := filepath.Join("..", "..")
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimSuffix(string(data), "\n")
	if n := strings.Count(text, "\n") + 1; n > maxReadmeLines {
		t.Errorf("README.md has %d lines (at most %d): keep in it what a newcomer needs first and move the details into docs/ (docs/cli.md, docs/github-actions.md, docs/library.md, ...), linking them from README", n, maxReadmeLines)
	}
	links := 0
	for _, m := range readmeLink.FindAllStringSubmatch(string(data), -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
			continue
		}
		target, _, _ = strings.Cut(target, "#")
		links++
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
			t.Errorf("README.md links to %q, which does not exist: %v", m[1], err)
		}
	}
	if links < 5 {
		t.Errorf("found only %d relative links in README.md: the link pattern is broken, or README no longer links into docs/", links)
	}
}
