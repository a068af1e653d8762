package lfs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// attributeFiles are .gitattributes files with patterns meant to catch a
// matcher out, checked against git's own check-attr.
var attributeFiles = map[string]string{
	".gitattributes": strings.Join([]string{
		"# a comment",
		"*.bin filter=lfs diff=lfs merge=lfs -text",
		"*.BIG filter=lfs",
		"/rooted.dat filter=lfs",
		"**/deep/*.iso filter=lfs",
		"a/**/b.img filter=lfs",
		"[xy].pak filter=lfs",
		`"sp ace.bin" -filter`,
		"dir/ filter=lfs",
		"!negated.bin",
		"set.dat filter",
		"other.dat filter=lfs2",
		"[attr]big filter=lfs -text",
		"*.huge big",
		"*.later filter=lfs",
		"*.later -filter",
		"both.txt filter=lfs -filter filter=lfs",
		"*.tar filter=lfs",
		"*.tar.gz filter=lfs",
		"mid\\#hash.bin -filter",
		"   *.spaced   filter=lfs   ",
	}, "\n") + "\n",
	"sub/.gitattributes":   "*.bin -filter\n/only.dat filter=lfs\nx/*.dat filter=lfs\n[attr]sub filter=lfs\n*.m sub\nrooted.dat !filter\n",
	"sub/x/.gitattributes": "keep.bin filter=lfs\n",
}

var attributeProbes = []string{
	"a.bin", "d/a.bin", "A.BIN", "x.BIG", "x.big", "rooted.dat", "d/rooted.dat", "deep/x.iso", "p/deep/x.iso", "p/q/deep/x.iso",
	"a/b.img", "a/m/b.img", "a/m/n/b.img", "x.pak", "z.pak", "sp ace.bin", "dir", "dir/f", "negated.bin", "set.dat",
	"other.dat", "f.huge", "f.later", "both.txt", "f.tar", "f.tar.gz", "mid#hash.bin", "f.spaced",
	"sub/a.bin", "sub/only.dat", "sub/d/only.dat", "sub/x/a.dat", "sub/x/y/a.dat", "sub/f.m", "sub/rooted.dat",
	"sub/x/keep.bin", "sub/x/drop.bin", "sub/x/y/keep.bin",
}

func TestRulesMatchGitCheckAttr(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for p, content := range attributeFiles {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_ATTR_NOSYSTEM=1")
		out, err := cmd.Output() // git warns of ignored lines on stderr
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	out := git(append([]string{"check-attr", "-z", "filter", "--"}, attributeProbes...)...)
	fields := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	gitSays := map[string]bool{}
	for i := 0; i+2 < len(fields); i += 3 {
		gitSays[fields[i]] = fields[i+2] == "lfs"
	}
	lfsCount := 0
	for _, v := range gitSays {
		if v {
			lfsCount++
		}
	}
	if len(gitSays) != len(attributeProbes) || lfsCount < 10 || lfsCount > len(attributeProbes)-10 {
		t.Fatalf("git check-attr answered %d of %d paths, %d with filter=lfs: the probes no longer test both ways", len(gitSays), len(attributeProbes), lfsCount)
	}
	for _, p := range attributeProbes {
		var r Rules
		for _, ap := range AttributePaths(p) {
			d := filepath.Dir(ap)
			if d == "." {
				d = ""
			}
			r.Add(d, []byte(attributeFiles[ap]))
		}
		if got, want := r.IsLFS(p), gitSays[p]; got != want {
			t.Errorf("%s: IsLFS = %v, git check-attr says filter=lfs: %v", p, got, want)
		}
	}
}

func TestAttributePaths(t *testing.T) {
	got := strings.Join(AttributePaths("a/b/c.bin"), " ")
	if want := ".gitattributes a/.gitattributes a/b/.gitattributes"; got != want {
		t.Fatalf("AttributePaths = %s, want %s", got, want)
	}
	if got := strings.Join(AttributePaths("c.bin"), " "); got != ".gitattributes" {
		t.Fatalf("AttributePaths(c.bin) = %s", got)
	}
}
