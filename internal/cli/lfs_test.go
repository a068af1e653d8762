package cli

import (
	"strconv"
	"strings"
	"testing"
)

func lfsPointer(oid string, size int) string {
	return "version https://git-lfs.github.com/spec/v1\noid sha256:" + oid + "\nsize " + strconv.Itoa(size) + "\n"
}

// A checkout made without git-lfs holds pointer files under the LFS
// pattern: --changed commits them as they are, the tree git add -A makes
// (a pointer taken for content would land as the pointer of a pointer).
func TestChangedLFSPointersAsTheyAre(t *testing.T) {
	bothWays(t, func(t *testing.T, noGit bool) {
		g := newGitRepo(t)
		g.write(".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n", 0o644)
		g.write("m.bin", lfsPointer(strings.Repeat("a", 64), 10), 0o644)
		g.git("add", "-A")
		g.git("commit", "-q", "-m", "HEAD")
		g.write("m.bin", lfsPointer(strings.Repeat("b", 64), 2000000), 0o644)
		g.write("new.bin", lfsPointer(strings.Repeat("c", 64), 7), 0o644)
		wantLikeGit(t, g, noGit)
	})
}
