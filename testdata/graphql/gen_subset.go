//go:build ignore

// gen_subset writes the part of GitHub's published GraphQL schema that the
// fake (committer/githubtest) serves: the named types, each with only the
// named fields and arguments, copied from the upstream definitions with their
// descriptions. Run from the repository root:
//
//	go run ./testdata/graphql/gen_subset.go > committer/githubtest/graphql_schema.graphql
//
// committer/githubtest's TestGraphQLSchemaSubsetIsFaithful checks the output
// against testdata/graphql/github-schema.graphql.gz again.
package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
	"github.com/vektah/gqlparser/v2/parser"
)

// subset: type name -> fields kept ("*" keeps all fields, enum values or
// input fields). A field may name the arguments it keeps: "history(first,after,path)".
var subset = map[string][]string{
	"Query":     {"id", "repository(owner,name,followRenames)", "rateLimit(dryRun)"},
	"Mutation":  {"createCommitOnBranch(input)"},
	"Node":      {"*"},
	"GitObject": {"*"},
	"Repository": {"id", "name", "nameWithOwner", "url", "isEmpty", "defaultBranchRef",
		"ref(qualifiedName)", "object(expression,oid)"},
	"Ref": {"id", "name", "prefix", "repository", "target"},
	"Commit": {"abbreviatedOid", "commitResourcePath", "commitUrl", "id", "oid", "repository",
		"message", "messageHeadline", "messageBody", "tree", "parents(after,before,first,last)",
		"history(after,before,first,last,path)", "committedDate", "authoredDate", "author", "committer",
		"signature", "url", "resourcePath"},
	"Tree": {"abbreviatedOid", "commitResourcePath", "commitUrl", "id", "oid", "repository"},
	"Blob": {"abbreviatedOid", "commitResourcePath", "commitUrl", "id", "oid", "repository",
		"byteSize", "isBinary", "isTruncated", "text"},
	"CommitConnection":        {"edges", "nodes", "pageInfo", "totalCount"},
	"CommitHistoryConnection": {"edges", "nodes", "pageInfo", "totalCount"},
	"CommitEdge":              {"*"},
	"PageInfo":                {"*"},
	"GitActor":                {"date", "email", "name"},
	"GitSignature":            {"email", "isValid", "payload", "signature", "state", "verifiedAt", "wasSignedByGitHub"},
	"GpgSignature":            {"email", "isValid", "keyId", "payload", "signature", "state", "verifiedAt", "wasSignedByGitHub"},
	"GitSignatureState":       {"*"},
	"RateLimit":               {"*"},

	"CreateCommitOnBranchInput":   {"*"},
	"CreateCommitOnBranchPayload": {"*"},
	"CommittableBranch":           {"*"},
	"FileChanges":                 {"*"},
	"FileAddition":                {"*"},
	"FileDeletion":                {"*"},
	"CommitMessage":               {"*"},

	"Base64String": nil, "DateTime": nil, "GitObjectID": nil, "GitTimestamp": nil, "URI": nil,
}

func main() {
	f, err := os.Open("testdata/graphql/github-schema.graphql.gz")
	check(err)
	zr, err := gzip.NewReader(f)
	check(err)
	raw, err := io.ReadAll(zr)
	check(err)
	doc, err := parser.ParseSchema(&ast.Source{Name: "github", Input: string(raw)})
	check(err)
	out := &ast.SchemaDocument{}
	for _, def := range doc.Definitions {
		keep, ok := subset[def.Name]
		if !ok {
			continue
		}
		d := *def
		d.Fields = pick(def.Fields, keep)
		d.EnumValues = def.EnumValues
		var ifaces []string
		for _, i := range def.Interfaces {
			if _, ok := subset[i]; ok {
				ifaces = append(ifaces, i)
			}
		}
		d.Interfaces = ifaces
		out.Definitions = append(out.Definitions, &d)
	}
	if len(out.Definitions) != len(subset) {
		panic(fmt.Sprintf("found %d of %d types", len(out.Definitions), len(subset)))
	}
	fmt.Println("# A subset of GitHub's public GraphQL schema (@octokit/graphql-schema 15.26.1,")
	fmt.Println("# schema.graphql; MIT, see testdata/graphql/LICENSE-octokit-graphql-schema.md),")
	fmt.Println("# written by testdata/graphql/gen_subset.go. Do not edit.")
	fmt.Println()
	formatter.NewFormatter(os.Stdout, formatter.WithIndent("  ")).FormatSchemaDocument(out)
}

func pick(fields ast.FieldList, keep []string) ast.FieldList {
	if slices.Contains(keep, "*") {
		return fields
	}
	var out ast.FieldList
	for _, k := range keep {
		name, args, hasArgs := strings.Cut(strings.TrimSuffix(k, ")"), "(")
		fd := fields.ForName(name)
		if fd == nil {
			panic("no field " + name)
		}
		c := *fd
		c.Arguments = nil
		if hasArgs {
			for _, a := range strings.Split(args, ",") {
				ad := fd.Arguments.ForName(a)
				if ad == nil {
					panic("no argument " + name + "." + a)
				}
				c.Arguments = append(c.Arguments, ad)
			}
		}
		for _, a := range fd.Arguments {
			if a.Type.NonNull && a.DefaultValue == nil && c.Arguments.ForName(a.Name) == nil {
				panic("required argument dropped: " + name + "." + a.Name)
			}
		}
		out = append(out, &c)
	}
	return out
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
