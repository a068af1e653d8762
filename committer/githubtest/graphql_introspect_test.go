package githubtest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql/resolve"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// graphql-js's getIntrospectionQuery (descriptions, deprecated members,
// directives, type references seven levels deep).
const qIntrospection = `query IntrospectionQuery {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types { ...FullType }
    directives { name description locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
}`

type introType struct {
	Kind, Name string
	Fields     []struct {
		Name string
		Type typeRef
	}
	PossibleTypes []struct{ Name string }
}

type typeRef struct {
	Kind, Name string
	OfType     *typeRef
}

func (t typeRef) String() string {
	switch t.Kind {
	case "NON_NULL":
		return t.OfType.String() + "!"
	case "LIST":
		return "[" + t.OfType.String() + "]"
	}
	return t.Name
}

// A client that introspects gets GitHub's schema, checked against the
// vendored SDL parsed on its own: every type, and every field of every
// object with its type; updateRefs only with its preview media type.
func TestGraphQLIntrospection(t *testing.T) {
	ts, _ := seeded(t)
	sdl := vendoredSDL(t)
	for _, preview := range []bool{false, true} {
		var hdr []string
		if preview {
			hdr = []string{"Accept", PreviewUpdateRefs}
		}
		r := gql(t, ts, "/graphql", qIntrospection, nil, hdr...)
		var body struct {
			Data struct {
				Schema struct {
					QueryType    struct{ Name string }
					MutationType struct{ Name string }
					Types        []introType
				} `json:"__schema"`
			}
			Errors []any
		}
		if err := json.Unmarshal(r.Raw, &body); err != nil || len(body.Errors) != 0 {
			t.Fatalf("introspection: %v %s", err, r.Raw[:min(len(r.Raw), 2000)])
		}
		s := body.Data.Schema
		if s.QueryType.Name != "Query" || s.MutationType.Name != "Mutation" {
			t.Fatalf("roots %+v", s)
		}
		got := map[string]introType{}
		for _, ty := range s.Types {
			got[ty.Name] = ty
		}
		for _, d := range sdl.Definitions {
			hiddenType := !preview && resolve.PreviewTypes[d.Name]
			ty, ok := got[d.Name]
			if ok == hiddenType {
				t.Errorf("preview %v: type %s served %v", preview, d.Name, ok)
				continue
			}
			if !ok || (d.Kind != ast.Object && d.Kind != ast.Interface) {
				continue
			}
			fields := map[string]string{}
			for _, f := range ty.Fields {
				fields[f.Name] = f.Type.String()
			}
			for _, f := range d.Fields {
				if d.Name == "Mutation" && f.Name == "updateRefs" && !preview {
					if _, there := fields[f.Name]; there {
						t.Error("updateRefs introspected without its preview")
					}
					continue
				}
				if fields[f.Name] != f.Type.String() {
					t.Errorf("%s.%s: introspected %q, SDL %q", d.Name, f.Name, fields[f.Name], f.Type.String())
				}
			}
		}
		if u := got["GitObject"]; !slices.ContainsFunc(u.PossibleTypes, func(p struct{ Name string }) bool { return p.Name == "Tag" }) {
			t.Errorf("GitObject's possible types %v", u.PossibleTypes)
		}
	}
	r := gql(t, ts, "/graphql", `{ __type(name: "RefUpdate") { name } t: __type(name: "TreeEntry") { name kind } }`, nil)
	if !bytes.Contains(r.Raw, []byte(`"__type":null`)) || !bytes.Contains(r.Raw, []byte(`"t":{"name":"TreeEntry","kind":"OBJECT"}`)) {
		t.Fatalf("__type: %s", r.Raw)
	}
}

// vendoredSDL parses testdata/graphql's schema on its own (not the fake's
// loader).
func vendoredSDL(t *testing.T) *ast.SchemaDocument {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "graphql", "github-schema.graphql.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	sdl, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parser.ParseSchema(&ast.Source{Name: "github", Input: string(sdl)})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
