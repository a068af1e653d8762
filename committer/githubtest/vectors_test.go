package githubtest

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Hash vectors in testdata/githubtest/vectors.json were computed by real git
// (run with GITHUBTEST_WRITE_VECTORS=1 and git on PATH to regenerate). They
// are checked against the fake on every run, with or without git.

type vectorFile struct {
	Comment string         `json:"$comment"`
	Blobs   []blobVector   `json:"blobs"`
	Trees   []treeVector   `json:"trees"`
	Commits []commitVector `json:"commits"`
}

type blobVector struct {
	Name    string `json:"name"`
	Content string `json:"content_base64"`
	SHA     string `json:"sha"`
}

type treeVectorEntry struct {
	Path    string `json:"path"`
	Mode    string `json:"mode"`
	Content string `json:"content_base64,omitempty"`
	SHA     string `json:"sha,omitempty"` // submodules (160000)
}

type treeVector struct {
	Name    string            `json:"name"`
	Entries []treeVectorEntry `json:"entries"`
	SHA     string            `json:"sha"`
}

type sigVector struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"` // RFC 3339 with offset
}

type commitVector struct {
	Name      string    `json:"name"`
	TreeOf    string    `json:"tree_of"`
	ParentsOf []string  `json:"parents_of"`
	Message   string    `json:"message"`
	Author    sigVector `json:"author"`
	Committer sigVector `json:"committer"`
	Signature string    `json:"signature,omitempty"`
	SHA       string    `json:"sha"`
}

var vectorsPath = filepath.Join("..", "..", "testdata", "githubtest", "vectors.json")

func loadVectors(t *testing.T) vectorFile {
	t.Helper()
	raw, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	var v vectorFile
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// fakeHashes runs the vectors through the fake over HTTP and returns the
// SHAs it computed, by vector name.
func fakeHashes(t *testing.T, v vectorFile) map[string]string {
	t.Helper()
	ts, _ := seeded(t)
	rr := "/repos/acme/mono"
	got := map[string]string{}
	for _, b := range v.Blobs {
		r := call(t, ts, "POST", rr+"/git/blobs", map[string]any{"content": b.Content, "encoding": "base64"})
		expect(t, r, 201, "")
		got["blob:"+b.Name] = r.str(t, "sha")
	}
	for _, tv := range v.Trees {
		var entries []any
		for _, e := range tv.Entries {
			if e.SHA != "" {
				entries = append(entries, map[string]any{"path": e.Path, "mode": e.Mode, "type": "commit", "sha": e.SHA})
				continue
			}
			raw, _ := base64.StdEncoding.DecodeString(e.Content)
			sha := call(t, ts, "POST", rr+"/git/blobs", map[string]any{"content": base64.StdEncoding.EncodeToString(raw), "encoding": "base64"}).str(t, "sha")
			entries = append(entries, map[string]any{"path": e.Path, "mode": e.Mode, "type": "blob", "sha": sha})
		}
		r := call(t, ts, "POST", rr+"/git/trees", map[string]any{"tree": entries})
		expect(t, r, 201, "")
		got["tree:"+tv.Name] = r.str(t, "sha")
	}
	for _, c := range v.Commits {
		parents := []string{}
		for _, p := range c.ParentsOf {
			parents = append(parents, got["commit:"+p])
		}
		body := map[string]any{"message": c.Message, "tree": got["tree:"+c.TreeOf], "parents": parents,
			"author": c.Author, "committer": c.Committer}
		if c.Signature != "" {
			body["signature"] = c.Signature
		}
		r := call(t, ts, "POST", rr+"/git/commits", body)
		expect(t, r, 201, "")
		got["commit:"+c.Name] = r.str(t, "sha")
		if c.Signature != "" {
			cm, _ := ts.Commit("acme", "mono", r.str(t, "sha"))
			if cm.PGPSignature != c.Signature {
				t.Fatalf("signature not stored: %q", cm.PGPSignature)
			}
		}
	}
	return got
}

func TestHashVectors(t *testing.T) {
	v := loadVectors(t)
	got := fakeHashes(t, v)
	check := func(key, want string) {
		if got[key] != want {
			t.Errorf("%s: fake %s, git %s", key, got[key], want)
		}
	}
	for _, b := range v.Blobs {
		check("blob:"+b.Name, b.SHA)
	}
	for _, tv := range v.Trees {
		check("tree:"+tv.Name, tv.SHA)
	}
	for _, c := range v.Commits {
		check("commit:"+c.Name, c.SHA)
	}
}
