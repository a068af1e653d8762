package lfs

import (
	"strings"
	"testing"
)

// The pointer of docs/spec.md's example, byte for byte.
const specExample = "version https://git-lfs.github.com/spec/v1\n" +
	"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n" +
	"size 12345\n"

func TestPointerIsTheSpecs(t *testing.T) {
	got := Pointer("4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393", 12345)
	if string(got) != specExample {
		t.Fatalf("Pointer = %q, want %q", got, specExample)
	}
	// The empty file's object: SHA-256 of nothing.
	o, err := Hash(strings.NewReader(""))
	if err != nil || o.OID != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" || o.Size != 0 {
		t.Fatalf("Hash(\"\") = %v, %v", o, err)
	}
}

func TestParsePointer(t *testing.T) {
	oid := "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393"
	good := map[string]int64{
		specExample: 12345,
		"version https://git-lfs.github.com/spec/v1\next-0-foo sha256:" + oid + "\noid sha256:" + oid + "\nsize 0\n": 0,
		"version https://hawser.github.com/spec/v1\noid sha256:" + oid + "\nsize 7\n":                                7,
	}
	for in, size := range good {
		o, ok := ParsePointer([]byte(in))
		if !ok || o.OID != oid || o.Size != size {
			t.Errorf("ParsePointer(%q) = %v, %v; want %s, %d", in, o, ok, oid, size)
		}
	}
	bad := []string{
		"",
		strings.TrimSuffix(specExample, "\n"), // no final newline
		strings.ReplaceAll(specExample, "\n", "\r\n"),                // CRLF
		strings.Replace(specExample, "4d7a", "4D7A", 1),              // upper case
		strings.Replace(specExample, "sha256:", "sha1:", 1),          // another hash
		strings.Replace(specExample, "size 12345", "size 012345", 1), // not canonical
		strings.Replace(specExample, "size 12345", "size -1", 1),
		strings.Replace(specExample, "size 12345", "size", 1),
		"version https://git-lfs.github.com/spec/v1\nsize 12345\noid sha256:" + oid + "\n", // unsorted
		"oid sha256:" + oid + "\nversion https://git-lfs.github.com/spec/v1\nsize 1\n",     // version not first
		"version https://git-lfs.github.com/spec/v2\noid sha256:" + oid + "\nsize 1\n",
		"version https://git-lfs.github.com/spec/v1\noid sha256:" + oid + "\n", // no size
		specExample + strings.Repeat("x", 1024),
		"version https://git-lfs.github.com/spec/v1\nOid sha256:" + oid + "\nsize 1\n",
		"version https://git-lfs.github.com/spec/v1\noid sha256:" + oid + "\noid sha256:" + oid + "\nsize 1\n", // a key twice
	}
	for _, in := range bad {
		if o, ok := ParsePointer([]byte(in)); ok {
			t.Errorf("ParsePointer(%q) = %v, want not a pointer", in, o)
		}
	}
}

func TestEndpoint(t *testing.T) {
	for api, want := range map[string]string{
		"https://api.github.com/":         "https://github.com/o/r.git/info/lfs",
		"https://ghe.example.com/api/v3/": "https://ghe.example.com/o/r.git/info/lfs",
		"http://127.0.0.1:8080/":          "http://127.0.0.1:8080/o/r.git/info/lfs",
		"https://API.GitHub.com/":         "https://github.com/o/r.git/info/lfs",
		"https://api.ghe.example.com/":    "https://api.ghe.example.com/o/r.git/info/lfs",
	} {
		if got, err := Endpoint(api, "o", "r"); err != nil || got != want {
			t.Errorf("Endpoint(%s) = %s, %v; want %s", api, got, err, want)
		}
	}
}
