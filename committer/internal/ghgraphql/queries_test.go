package ghgraphql

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// The client's documents must be valid against GitHub's whole published
// schema (testdata/graphql), not only against the fake's subset of it.
func TestQueriesValidAgainstGitHubSchema(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "..", "testdata", "graphql", "github-schema.graphql.gz"))
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
	doc, err := parser.ParseSchemas(validator.Prelude, &ast.Source{Name: "github", Input: string(raw)})
	if err != nil {
		t.Fatal(err)
	}
	// GitHub's published schema defines EnterpriseOwnerInfo's
	// repositoryDeployKeySetting twice (15.26.1); keep the first.
	for _, d := range doc.Definitions {
		seen := map[string]bool{}
		var fields ast.FieldList
		for _, f := range d.Fields {
			if !seen[f.Name] {
				seen[f.Name] = true
				fields = append(fields, f)
			}
		}
		d.Fields = fields
	}
	schema, err := validator.ValidateSchemaDocument(doc)
	if err != nil {
		t.Fatal(err)
	}
	for name, q := range map[string]string{"head": queryHead, "commit": mutationCommit, "history": queryHistory, "paths": pathsQuery([]bool{false, true, false}, false, false), "paths+ref": pathsQuery([]bool{true}, true, false), "paths+history": pathsQuery([]bool{true}, true, true)} {
		if _, errs := gqlparser.LoadQueryWithRules(schema, q, rules.NewDefaultRules()); len(errs) > 0 {
			t.Errorf("%s: %v", name, errs)
		}
	}
}
