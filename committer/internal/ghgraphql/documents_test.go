package ghgraphql

import (
	"compress/gzip"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	gqlast "github.com/vektah/gqlparser/v2/ast"
	gqlparse "github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// gqlDocStart matches a string literal that is a GraphQL operation.
var gqlDocStart = regexp.MustCompile(`^\s*((query|mutation|subscription)\b[\s\w$:!(),\[\]=]*\{|fragment\s+\w+\s+on\s+\w+)`)

// Every GraphQL document the library can send, found in its source (any
// string literal of committer/ and cmd/ outside tests and the fake that
// starts as an operation), must be valid against GitHub's whole published
// schema, vendored in testdata/graphql: a document added later is checked
// without anyone listing it here.
func TestLibraryDocumentsValidAgainstGitHubSchema(t *testing.T) {
	schema := vendoredSchema(t)
	root := filepath.Join("..", "..", "..")
	found := 0
	for _, dir := range []string{"committer", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "githubtest" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil || !gqlDocStart.MatchString(s) {
					return true
				}
				found++
				if _, errs := gqlparser.LoadQueryWithRules(schema, s, rules.NewDefaultRules()); len(errs) > 0 {
					t.Errorf("%s: a GraphQL document GitHub's schema refuses: %v\n%s", p, errs, s)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d GraphQL documents checked", found)
	if found < 3 { // BranchHead, CreateCommitOnBranch, History at least
		t.Fatalf("found %d GraphQL documents in the library's source: the scan is broken", found)
	}
}

// A document GitHub's schema refuses is caught (the check can fail).
func TestVendoredSchemaRefusesUnknownFields(t *testing.T) {
	schema := vendoredSchema(t)
	bad := `query { repository(owner: "a", name: "b") { noSuchField } }`
	if !gqlDocStart.MatchString(bad) {
		t.Fatal("the scan would not find this document")
	}
	if _, errs := gqlparser.LoadQueryWithRules(schema, bad, rules.NewDefaultRules()); len(errs) == 0 {
		t.Fatal("an unknown field validated")
	}
}

func vendoredSchema(t *testing.T) *gqlast.Schema {
	t.Helper()
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
	doc, err := gqlparse.ParseSchemas(validator.Prelude, &gqlast.Source{Name: "github", Input: string(raw)})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range doc.Definitions { // a field GitHub defines twice (15.26.1)
		seen := map[string]bool{}
		var fields gqlast.FieldList
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
	return schema
}
