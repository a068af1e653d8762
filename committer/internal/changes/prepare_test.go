package changes

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/localfs"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

func put(p string) Op {
	return Op{Kind: OpPut, Path: p, Mode: object.ModeFile, Src: BytesSource([]byte(p))}
}
func del(p string) Op { return Op{Kind: OpDelete, Path: p} }
func edit(p string) Op {
	return Op{Kind: OpEdit, Path: p, Edit: func(old []byte, _ bool) ([]byte, error) { return old, nil }}
}
func sync(dir string, files ...string) SyncDir {
	s := SyncDir{Dir: dir}
	for _, f := range files {
		s.Files = append(s.Files, localfs.File{Path: f, Mode: object.ModeFile, Data: []byte(f), Size: int64(len(f))})
	}
	return s
}

// invalidAt checks that err is a kind.Invalid cause about path whose text
// holds want.
func invalidAt(t *testing.T, name string, err error, path, want string) {
	t.Helper()
	var c *kind.Cause
	if !errors.As(err, &c) || !errors.Is(c.Kind, kind.Invalid) || c.Path != path || !strings.Contains(c.Error(), want) {
		t.Errorf("%s: got %#v (%v), want kind.Invalid at %q containing %q", name, c, err, path, want)
	}
}

// TestClaims: which operations may share a path or a directory, in either
// order, and which path the refusal names.
func TestClaims(t *testing.T) {
	for _, tc := range []struct {
		name       string
		set        Set
		path, want string // path "" and want "": allowed
	}{
		{"delete then puts under it", Set{Ops: []Op{del("a"), put("a/b"), put("a/c/d")}}, "", ""},
		{"puts then the delete above them", Set{Ops: []Op{put("a/b"), del("a")}}, "", ""},
		{"delete replaced by a put", Set{Ops: []Op{put("a"), del("a")}}, "", ""},
		{"siblings", Set{Ops: []Op{put("a/b"), edit("a/c"), del("a/d")}, Syncs: []SyncDir{sync("a/e", "x")}}, "", ""},
		{"file then file under it", Set{Ops: []Op{put("a"), put("a/b")}}, "a/b", `("a" is written as a file)`},
		{"file then file above it", Set{Ops: []Op{put("a/b"), edit("a")}}, "a", `("a/b" is under it)`},
		{"delete inside a delete", Set{Ops: []Op{del("a"), del("a/b")}}, "a/b", `overlaps another Delete in this change set ("a" is deleted)`},
		{"delete around a delete", Set{Ops: []Op{del("a/b"), del("a")}}, "a", `overlaps another Delete in this change set ("a/b" is under it)`},
		{"delete above an edit", Set{Ops: []Op{edit("a/b"), del("a")}}, "a", `deletes "a/b", which this change set edits`},
		{"delete under a file", Set{Ops: []Op{put("a"), del("a/b")}}, "a/b", `is under "a", which this change set writes as a file`},
		{"delete of a synced directory", Set{Ops: []Op{del("a")}, Syncs: []SyncDir{sync("a")}}, "a", "is also synced"},
		{"delete around a synced directory", Set{Ops: []Op{del("a")}, Syncs: []SyncDir{sync("a/b")}}, "a", `contains the synced directory "a/b"`},
		{"delete inside a synced directory", Set{Ops: []Op{del("a/b")}, Syncs: []SyncDir{sync("a")}}, "a/b", `inside the synced directory "a"`},
		{"sync around a sync", Set{Syncs: []SyncDir{sync("a/b"), sync("a")}}, "a", `synced directory contains "a/b"`},
		{"sync inside a sync", Set{Syncs: []SyncDir{sync("a"), sync("a/b")}}, "a/b", `inside the synced directory "a"`},
		{"put with the root synced", Set{Ops: []Op{put("x")}, Syncs: []SyncDir{sync(".")}}, "x", "the repository root is synced"},
		{"root sync after another", Set{Syncs: []SyncDir{sync("cfg"), sync(".")}}, "", "syncing the repository root leaves no path"},
		{"sync file listed twice", Set{Syncs: []SyncDir{sync("d", "x", "x")}}, "d/x", "listed twice"},
		{"sync file and directory", Set{Syncs: []SyncDir{sync("d", "x/y", "x")}}, "d/x", "is both a file and a directory in the synced files"},
	} {
		_, err := Prepare("m", nil, nil, &tc.set)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v, want it allowed", tc.name, err)
			}
			continue
		}
		invalidAt(t, tc.name, err, tc.path, tc.want)
	}
}

// TestSyncRoot: only "." names the root; the spellings of an empty
// variable are refused; one trailing "/" is dropped.
func TestSyncRoot(t *testing.T) {
	for _, d := range []string{"", "/", "./", "//", ".//"} {
		p, err := Prepare("m", nil, nil, &Set{Syncs: []SyncDir{sync(d)}})
		var c *kind.Cause
		if p != nil || !errors.As(err, &c) || !errors.Is(c.Kind, kind.Invalid) || !strings.Contains(c.Hint, `"."`) {
			t.Errorf("sync %q: %v, want kind.Invalid with a hint to pass \".\"", d, err)
		}
	}
	for d, want := range map[string]string{".": "", "deploy/": "deploy", "a/b": "a/b"} {
		p, err := Prepare("m", nil, nil, &Set{Syncs: []SyncDir{sync(d, "f")}})
		if err != nil || p.Syncs[0].Dir != want || p.Syncs[0].Files[0].Src.SHA != BlobSHA([]byte("f")) {
			t.Errorf("sync %q: %+v, %v; want directory %q with its file hashed", d, p, err, want)
		}
	}
}

// TestPrepareRefusals: the message, the signatures, modes, SHAs and
// content are checked before anything else happens.
func TestPrepareRefusals(t *testing.T) {
	bad := &object.Signature{Name: "A", Email: "a"}
	if _, err := Prepare(" ", nil, nil, &Set{Ops: []Op{put("a")}}); err == nil || !strings.Contains(err.Error(), "message") {
		t.Errorf("blank message: %v", err)
	}
	if _, err := Prepare("m", nil, nil, &Set{}); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty set: %v", err)
	}
	if _, err := Prepare("m", nil, bad, &Set{Ops: []Op{put("a")}}); err == nil || !strings.HasPrefix(err.Error(), "committer: ") {
		t.Errorf("bad committer: %v", err)
	}
	link := put(".gitmodules")
	link.Mode = object.ModeSymlink
	sub := put("s")
	sub.Mode = object.ModeSubmodule
	short := Op{Kind: OpPut, Path: "r", Mode: object.ModeFile, Src: OpenSource(func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader("abc")), nil
	}, 4)}
	never := func() (io.ReadCloser, error) { t.Error("content opened"); return nil, errors.New("opened") }
	for name, tc := range map[string]struct {
		set        Set
		path, want string
	}{
		"symlink .gitmodules": {Set{Ops: []Op{link}}, ".gitmodules", "symlink must not be named .gitmodules"},
		"submodule mode":      {Set{Ops: []Op{sub}}, "s", "unknown file mode"},
		"nil edit":            {Set{Ops: []Op{{Kind: OpEdit, Path: "e"}}}, "e", "edit function must not be nil"},
		"short reader":        {Set{Ops: []Op{short}}, "r", "not 4 bytes long as declared"},
		"negative size":       {Set{Ops: []Op{{Kind: OpPut, Path: "n", Mode: object.ModeFile, Src: OpenSource(never, -1)}}}, "n", "negative"},
		"over the limit":      {Set{Ops: []Op{{Kind: OpPut, Path: "big", Mode: object.ModeFile, Src: OpenSource(never, MaxFileSize+1)}}}, "big", "100 MB"},
		"bad expected SHA":    {Set{Pres: []Precondition{{Path: "p", SHA: strings.Repeat("A", 40)}}}, "p", "40 lowercase hex"},
		"bad state of one of": {Set{Pres: []Precondition{{Path: "p", AnyOf: []string{"", "abc"}}}}, "p", "40 lowercase hex"},
		"no state of one of":  {Set{Pres: []Precondition{{Path: "p", AnyOf: []string{}}}}, "p", "at least one state"},
		"bad path":            {Set{Ops: []Op{put("a/../b")}}, "a/../b", `".."`},
	} {
		_, err := Prepare("m", nil, nil, &tc.set)
		invalidAt(t, name, err, tc.path, tc.want)
	}
}

// TestLocalSource: a small local file is read into memory when prepared;
// one inside a .git directory is refused.
func TestLocalSource(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Prepare("m", nil, nil, &Set{Ops: []Op{{Kind: OpPut, Path: "f", Mode: object.ModeFile, Src: LocalSource(f)}}})
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Ops[0].Src; !s.InMemory() || string(s.Data) != "hello" || s.SHA != BlobSHA([]byte("hello")) {
		t.Errorf("small local file: %+v, want it in memory and hashed", s)
	}
	g := filepath.Join(dir, ".Git", "config")
	if err := os.MkdirAll(filepath.Dir(g), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(g, []byte("[core]"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Prepare("m", nil, nil, &Set{Ops: []Op{{Kind: OpPut, Path: "c", Mode: object.ModeFile, Src: LocalSource(g)}}})
	invalidAt(t, "local file in .git", err, "c", "inside a .git directory")
}

// TestPreparedHelpers: the paths resolution looks up, the bytes known
// before any request, and the content of a written path.
func TestPreparedHelpers(t *testing.T) {
	p, err := Prepare("m", nil, nil, &Set{
		Ops:   []Op{put("a"), edit("b"), del("c")},
		Pres:  []Precondition{{Path: "d", Absent: true}},
		Syncs: []SyncDir{sync("s", "x/y", "zz")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Lookups(), []string{"a", "b", "c", "d", "s"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Lookups = %q, want %q", got, want)
	}
	if got := p.KnownBytes(); got != 1+3+2 {
		t.Errorf("KnownBytes = %d, want 6", got)
	}
	if b, err := p.Read("s/x/y"); err != nil || string(b) != "x/y" {
		t.Errorf("Read(s/x/y) = %q, %v", b, err)
	}
	if p.Source("b") != nil || p.Source("c") != nil {
		t.Error("an edit or a delete has a source")
	}
	if _, err := p.Read("nope"); err == nil {
		t.Error("Read of a path not written: no error")
	}
}

func TestAncestorsAndIsSHA(t *testing.T) {
	if got, want := Ancestors("a/b/c"), []string{"a/b", "a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Ancestors = %q, want %q", got, want)
	}
	if Ancestors("a") != nil {
		t.Error("a top-level path has ancestors")
	}
	for s, want := range map[string]bool{strings.Repeat("0a", 20): true, strings.Repeat("0A", 20): false, strings.Repeat("a", 39): false, strings.Repeat("g", 40): false} {
		if object.IsSHA(s) != want {
			t.Errorf("object.IsSHA(%q) = %v", s, !want)
		}
	}
}

// TestValidateEntry: a symlink may not be named .gitmodules in any of the
// spellings git refuses; a regular file may.
func TestValidateEntry(t *testing.T) {
	for _, name := range []string{".gitmodules", ".GitModules", ".gitmodules.", ".gitmodules :x", ".git\u200cmodules", "GITMOD~1", "gitmod~4", "gi7eba~9"} {
		if ValidateEntry("d/"+name, object.ModeSymlink) == nil {
			t.Errorf("symlink %q allowed", name)
		}
		if err := ValidateEntry("d/"+name, object.ModeFile); err != nil {
			t.Errorf("file %q: %v", name, err)
		}
	}
	for _, name := range []string{"gitmod~5", "gi7eba~0", ".gitmodulesx", "x.gitmodules"} {
		if err := ValidateEntry(name, object.ModeSymlink); err != nil {
			t.Errorf("symlink %q: %v", name, err)
		}
	}
	for m, want := range map[string]bool{object.ModeFile: true, object.ModeExecutable: true, object.ModeSymlink: true, object.ModeDir: false, object.ModeSubmodule: false, "644": false} {
		if ValidMode(m) != want {
			t.Errorf("ValidMode(%q) = %v", m, !want)
		}
	}
}
