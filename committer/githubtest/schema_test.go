package githubtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var apiDir = filepath.Join("..", "..", "testdata", "github-api")

type schemaSet struct {
	mu    sync.Mutex
	cache map[string]*jsonschema.Schema
}

var schemas = &schemaSet{cache: map[string]*jsonschema.Schema{}}

func readJSON(t testing.TB, path string) any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func (s *schemaSet) compile(t testing.TB, key string, doc any) *jsonschema.Schema {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.cache[key]; ok {
		return sch
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "mem://" + key
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatalf("compile %s: %v", key, err)
	}
	s.cache[key] = sch
	return sch
}

// named returns schemas/<name>.json.
func (s *schemaSet) named(t testing.TB, name string) *jsonschema.Schema {
	t.Helper()
	return s.compile(t, "schemas/"+name, readJSON(t, filepath.Join(apiDir, "schemas", name+".json")))
}

// response returns the schema of an operation's reply for status, or nil
// when the operation documents no schema for it.
func (s *schemaSet) response(t testing.TB, op string, status int) *jsonschema.Schema {
	t.Helper()
	doc := readJSON(t, filepath.Join(apiDir, "operations", op+".json"))
	resp, ok := doc.(map[string]any)["responses"].(map[string]any)[strconv.Itoa(status)].(map[string]any)
	if !ok || resp["schema"] == nil {
		return nil
	}
	return s.compile(t, fmt.Sprintf("ops/%s/%d", op, status), resp["schema"])
}

// validateReply checks a reply body: against the operation's documented
// schema for its status when there is one, else against basic-error or
// validation-error for errors. op may be "" for undocumented routes.
func validateReply(t testing.TB, op string, status int, body []byte) {
	t.Helper()
	if status == 204 {
		if len(body) != 0 {
			t.Fatalf("204 with body %s", body)
		}
		return
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("reply is not JSON: %v: %s", err, body)
	}
	var sch *jsonschema.Schema
	if op != "" {
		sch = schemas.response(t, op, status)
	}
	if sch == nil && status >= 400 {
		sch = schemas.named(t, "basic-error")
		if m, ok := inst.(map[string]any); ok && m["errors"] != nil {
			sch = schemas.named(t, "validation-error")
		}
	}
	if sch == nil {
		return
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("%s %d reply does not match schema: %v\n%s", op, status, err, body)
	}
}
