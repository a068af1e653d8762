package graphql

// GitHub's whole published schema (graphql_schema.graphql.gz, a copy of
// testdata/graphql/github-schema.graphql.gz from the npm package
// @octokit/graphql-schema; `make graphql-schema` regenerates both),
// embedded and loaded once per process.

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"sync"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// SchemaGz is the embedded gzipped SDL schema.
//
//go:embed graphql_schema.graphql.gz
var SchemaGz []byte

var (
	gqlSchemaOnce sync.Once
	gqlSchema     *ast.Schema
	gqlSchemaErr  error
)

// Schema loads the embedded schema once per process.
func Schema() (*ast.Schema, error) {
	gqlSchemaOnce.Do(func() { gqlSchema, gqlSchemaErr = Load(SchemaGz) })
	return gqlSchema, gqlSchemaErr
}

// Load parses and validates a gzipped SDL schema.
func Load(gz []byte) (*ast.Schema, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	doc, err := parser.ParseSchemas(validator.Prelude, &ast.Source{Name: "github-schema.graphql", Input: string(raw)})
	if err != nil {
		return nil, err
	}
	// GitHub's published schema (15.26.1) defines
	// EnterpriseOwnerInfo.repositoryDeployKeySetting twice, which gqlparser
	// refuses; the two are the same field: keep the first of each name.
	for _, d := range doc.Definitions {
		seen := map[string]bool{}
		fields := d.Fields[:0:0]
		for _, f := range d.Fields {
			if !seen[f.Name] {
				seen[f.Name] = true
				fields = append(fields, f)
			}
		}
		d.Fields = fields
	}
	return validator.ValidateSchemaDocument(doc)
}
