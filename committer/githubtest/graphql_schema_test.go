package githubtest

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// upstreamGraphQL parses GitHub's full published schema kept in testdata.
func upstreamGraphQL(t testing.TB) *ast.SchemaDocument {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "graphql", "github-schema.graphql.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parser.ParseSchema(&ast.Source{Name: "github", Input: string(raw)})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// The fake's schema must be a faithful subset of GitHub's: every type it
// has is in GitHub's schema with the same kind and description, every field
// with the same type, description and arguments (optional arguments may be
// left out), input types and enums whole.
func TestGraphQLSchemaSubsetIsFaithful(t *testing.T) {
	up := upstreamGraphQL(t)
	sub, err := parser.ParseSchema(&ast.Source{Name: "fake", Input: graphqlSchemaSDL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := graphqlSchema(); err != nil {
		t.Fatalf("the fake's schema does not load: %v", err)
	}
	for _, d := range sub.Definitions {
		u := up.Definitions.ForName(d.Name)
		if u == nil {
			t.Errorf("%s: not in GitHub's schema", d.Name)
			continue
		}
		if u.Kind != d.Kind || u.Description != d.Description {
			t.Errorf("%s: kind or description differs from GitHub's", d.Name)
		}
		for _, i := range d.Interfaces {
			if !slices.Contains(u.Interfaces, i) {
				t.Errorf("%s implements %s, GitHub's does not", d.Name, i)
			}
		}
		whole := d.Kind == ast.InputObject || d.Kind == ast.Enum
		if whole && (len(d.Fields) != len(u.Fields) || len(d.EnumValues) != len(u.EnumValues)) {
			t.Errorf("%s: input types and enums must be copied whole", d.Name)
		}
		for _, f := range d.Fields {
			checkFieldFaithful(t, d.Name, f, u.Fields.ForName(f.Name))
		}
		for _, v := range d.EnumValues {
			if u.EnumValues.ForName(v.Name) == nil {
				t.Errorf("%s.%s: not in GitHub's enum", d.Name, v.Name)
			}
		}
	}
}

func checkFieldFaithful(t *testing.T, typ string, f, u *ast.FieldDefinition) {
	t.Helper()
	if u == nil {
		t.Errorf("%s.%s: not in GitHub's schema", typ, f.Name)
		return
	}
	if f.Type.String() != u.Type.String() || f.Description != u.Description || defaultOf(f.DefaultValue) != defaultOf(u.DefaultValue) {
		t.Errorf("%s.%s: %s, GitHub has %s", typ, f.Name, f.Type, u.Type)
	}
	for _, ua := range u.Arguments {
		a := f.Arguments.ForName(ua.Name)
		if a == nil {
			if ua.Type.NonNull && ua.DefaultValue == nil {
				t.Errorf("%s.%s: required argument %s left out", typ, f.Name, ua.Name)
			}
			continue
		}
		if a.Type.String() != ua.Type.String() || defaultOf(a.DefaultValue) != defaultOf(ua.DefaultValue) {
			t.Errorf("%s.%s(%s): %s, GitHub has %s", typ, f.Name, a.Name, a.Type, ua.Type)
		}
	}
	for _, a := range f.Arguments {
		if u.Arguments.ForName(a.Name) == nil {
			t.Errorf("%s.%s(%s): not in GitHub's schema", typ, f.Name, a.Name)
		}
	}
}

func defaultOf(v *ast.Value) string {
	if v == nil {
		return ""
	}
	return v.String()
}

// checkGraphQLReply checks a reply's data against the schema, walking the
// query: every selected key is present, non-null fields are not null,
// scalars have the JSON type of their GraphQL type, and __typename names a
// type that fits where it appears. It is independent of the executor.
// Replies to queries that do not validate (tests of the error path) are
// only checked to be JSON.
func checkGraphQLReply(t testing.TB, query string, vars map[string]any, raw []byte) {
	t.Helper()
	schema, err := graphqlSchema()
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
	if concrete == nil || (typ != def.Name && !slices.Contains(concrete.Interfaces, def.Name)) {
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

func (c replyChecker) fits(cond, typ string, concrete *ast.Definition) bool {
	return cond == "" || cond == typ || slices.Contains(concrete.Interfaces, cond)
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
	case def.Kind == ast.Object || def.Kind == ast.Interface:
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
