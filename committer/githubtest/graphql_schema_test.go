package githubtest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
)

// The fake serves GitHub's whole published schema: the embedded copy is the
// vendored one byte for byte (scripts/gen-graphql-schema.sh writes both),
// and it loads with the types and members real clients use.
func TestGraphQLSchemaVendored(t *testing.T) {
	vendored, err := os.ReadFile(filepath.Join("..", "..", "testdata", "graphql", "github-schema.graphql.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(vendored, graphql.SchemaGz) {
		t.Fatal("committer/githubtest/internal/graphql/graphql_schema.graphql.gz differs from testdata/graphql/github-schema.graphql.gz: run make graphql-schema")
	}
	schema, err := graphql.Schema()
	if err != nil {
		t.Fatalf("GitHub's schema does not load: %v", err)
	}
	for typ, field := range map[string]string{
		"Mutation": "updateRefs", "Tag": "target", "Commit": "file", "TreeEntry": "mode",
		"Repository": "rulesets", "Query": "node",
	} {
		d := schema.Types[typ]
		if d == nil || d.Fields.ForName(field) == nil {
			t.Errorf("%s.%s: not in the served schema", typ, field)
		}
	}
	if n := len(schema.Types); n < 1000 {
		t.Errorf("%d types: not GitHub's whole schema", n)
	}
}

// checkGraphQLReply checks a reply's data against the schema, walking the
// query: every selected key is present, non-null fields are not null,
// scalars have the JSON type of their GraphQL type, and __typename names a
// type that fits where it appears. It is independent of the executor.
// Replies to queries that do not validate (tests of the error path) are
// only checked to be JSON.
func checkGraphQLReply(t testing.TB, query string, vars map[string]any, raw []byte) {
	t.Helper()
	schema, err := graphql.Schema()
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Data   map[string]any    `json:"data"`
		Errors []json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("reply is not JSON: %v: %s", err, raw)
	}
	doc, perr := parser.ParseQuery(&ast.Source{Input: query})
	if perr != nil || len(validator.ValidateWithRules(schema, doc, nil)) > 0 {
		if body.Data != nil {
			t.Fatalf("data for an invalid query: %s", raw)
		}
		return
	}
	if body.Data == nil {
		if len(body.Errors) == 0 {
			t.Fatalf("reply has neither data nor errors: %s", raw)
		}
		return
	}
	op := doc.Operations[0]
	root := schema.Query
	if op.Operation == ast.Mutation {
		root = schema.Mutation
	}
	rc := replyChecker{t: t, schema: schema, doc: doc, vars: vars, raw: raw}
	rc.object(root, op.SelectionSet, body.Data, "data")
}

type replyChecker struct {
	t      testing.TB
	schema *ast.Schema
	doc    *ast.QueryDocument
	vars   map[string]any
	raw    []byte
}

func (c replyChecker) object(def *ast.Definition, set ast.SelectionSet, data map[string]any, where string) {
	typ := def.Name
	if tn, ok := data["__typename"].(string); ok {
		typ = tn
	}
	concrete := c.schema.Types[typ]
	if concrete == nil || !c.fits(def.Name, typ, concrete) {
		c.t.Fatalf("%s: __typename %q does not fit %s: %s", where, typ, def.Name, c.raw)
	}
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if !c.included(s.Directives) {
				continue
			}
			key := s.Alias
			if key == "" {
				key = s.Name
			}
			v, ok := data[key]
			if !ok {
				c.t.Fatalf("%s: %s missing: %s", where, key, c.raw)
			}
			if s.Name != "__typename" {
				c.value(s.Definition.Type, s.SelectionSet, v, where+"."+key)
			}
		case *ast.InlineFragment:
			if c.included(s.Directives) && c.fits(s.TypeCondition, typ, concrete) {
				c.object(c.on(s.TypeCondition, def), s.SelectionSet, data, where)
			}
		case *ast.FragmentSpread:
			f := c.doc.Fragments.ForName(s.Name)
			if c.included(s.Directives) && c.fits(f.TypeCondition, typ, concrete) {
				c.object(c.on(f.TypeCondition, def), f.SelectionSet, data, where)
			}
		}
	}
}

func (c replyChecker) fits(cond, typ string, _ *ast.Definition) bool {
	if cond == "" || cond == typ {
		return true
	}
	return slices.ContainsFunc(c.schema.GetPossibleTypes(c.schema.Types[cond]), func(d *ast.Definition) bool { return d.Name == typ })
}

// on is the type a fragment's selections are checked against.
func (c replyChecker) on(cond string, def *ast.Definition) *ast.Definition {
	if cond == "" {
		return def
	}
	return c.schema.Types[cond]
}

// included evaluates @skip and @include.
func (c replyChecker) included(ds ast.DirectiveList) bool {
	if d := ds.ForName("skip"); d != nil && d.ArgumentMap(c.vars)["if"] == true {
		return false
	}
	if d := ds.ForName("include"); d != nil && d.ArgumentMap(c.vars)["if"] != true {
		return false
	}
	return true
}

func (c replyChecker) value(t *ast.Type, set ast.SelectionSet, v any, where string) {
	if v == nil {
		if t.NonNull {
			c.t.Fatalf("%s: null for %s: %s", where, t, c.raw)
		}
		return
	}
	if t.Elem != nil {
		list, ok := v.([]any)
		if !ok {
			c.t.Fatalf("%s: not a list: %s", where, c.raw)
		}
		for _, e := range list {
			c.value(t.Elem, set, e, where+"[]")
		}
		return
	}
	def := c.schema.Types[t.NamedType]
	var ok bool
	switch {
	case def.Kind == ast.Object || def.Kind == ast.Interface || def.Kind == ast.Union:
		m, isObj := v.(map[string]any)
		ok = isObj
		if isObj {
			c.object(def, set, m, where)
		}
	case t.NamedType == "Int" || t.NamedType == "Float":
		_, ok = v.(float64)
	case t.NamedType == "Boolean":
		_, ok = v.(bool)
	case def.Kind == ast.Enum:
		s, isStr := v.(string)
		ok = isStr && def.EnumValues.ForName(s) != nil
	default: // String, ID and GitHub's string scalars
		_, ok = v.(string)
	}
	if !ok {
		c.t.Fatalf("%s: %v is not a %s: %s", where, v, t.NamedType, c.raw)
	}
}
