package githubtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rest"
)

// tree100k is a create-tree request body with n entries in nested dirs.
func tree100k(n int) []byte {
	entries := make([]map[string]any, n)
	for i := range n {
		entries[i] = map[string]any{
			"path":    fmt.Sprintf("d%02d/s%03d/f%05d.txt", i%50, (i/50)%200, i),
			"mode":    "100644",
			"type":    "blob",
			"content": fmt.Sprint(i),
		}
	}
	b, _ := json.Marshal(map[string]any{"tree": entries})
	return b
}

func post(b *testing.B, url string, body []byte) []byte {
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 201 {
		b.Fatalf("status %d: %.200s", resp.StatusCode, out)
	}
	return out
}

// BenchmarkTree100k creates a 100,000-entry tree through POST git/trees and
// reads it back with GET git/trees?recursive=1.
func BenchmarkTree100k(b *testing.B) {
	ts, _ := seeded(b)
	body := tree100k(100000)
	base := strings.TrimSuffix(ts.URL, "/") + "/repos/acme/mono/git/trees"
	b.ResetTimer()
	for range b.N {
		var created struct {
			SHA string `json:"sha"`
		}
		if err := json.Unmarshal(post(b, base, body), &created); err != nil {
			b.Fatal(err)
		}
		resp, err := http.Get(base + "/" + created.SHA + "?recursive=1")
		if err != nil {
			b.Fatal(err)
		}
		var got struct {
			Tree      []json.RawMessage `json:"tree"`
			Truncated bool              `json:"truncated"`
		}
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
		// 100,000 files + 10,050 directories: truncated at 100,000 entries.
		if len(got.Tree) != rest.MaxTreeEntries || !got.Truncated {
			b.Fatalf("got %d entries, truncated=%v", len(got.Tree), got.Truncated)
		}
	}
}

func TestSeed200kFiles(t *testing.T) {
	if testing.Short() && raceEnabled {
		t.Skip("slow under -race -short")
	}
	files := make([]File, 200000)
	for i := range files {
		files[i] = File{Path: fmt.Sprintf("a%02d/b%03d/f%06d", i%40, (i/40)%100, i), Content: []byte(fmt.Sprint(i))}
	}
	s := New()
	start := time.Now()
	sha, err := s.Seed("acme", "big", "main", "big", files...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Seed of 200,000 files: %v", time.Since(start))
	if b, _, err := s.ReadFile("acme", "big", sha, "a07/b032/f001287"); err != nil || string(b) != "1287" {
		t.Fatalf("ReadFile %q %v", b, err)
	}
}
