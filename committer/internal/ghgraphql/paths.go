package ghgraphql

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Entry is what a commit's tree has at one path: Commit.file(path:)'s
// TreeEntry.
type Entry struct {
	Mode string // git's mode in octal, as REST tree listings give it: "100644", "040000", ...
	Type string // "blob", "tree" or "commit" (a submodule)
	OID  string
	Text *string // a .gitattributes file's content (see entrySelection)
}

// MaxPathsPerQuery is how many Commit.file(path:) aliases one Paths request
// carries at most. Each alias is one node of GitHub's node limit (500,000)
// and a few dozen bytes of query; the bound keeps a query far under both,
// and under the query size GitHub accepts, whatever the paths.
const MaxPathsPerQuery = 250

// Paths looks up paths in the tree of the commit oid in owner/name, with one
// GraphQL query per MaxPathsPerQuery paths: an aliased Commit.file(path:)
// each, the paths passed as variables. A path that is not there (or goes
// through a file) is absent from the map. A commit that is not in the
// repository is an error. repositoryID is the repository's node ID
// (Repository.id, which Mutation.updateRefs names the repository by), asked
// for in the same query so that it costs no request of its own; "" when
// paths is empty (no query is sent).
//
// See https://docs.github.com/graphql/reference/objects#commit (file).
func (c *Client) Paths(ctx context.Context, owner, name, oid string, paths []string) (entries map[string]Entry, repositoryID string, err error) {
	out := make(map[string]Entry, len(paths))
	for i := 0; i < len(paths); i += MaxPathsPerQuery {
		id, err := c.paths(ctx, owner, name, oid, paths[i:min(i+MaxPathsPerQuery, len(paths))], out)
		if err != nil {
			return nil, "", err
		}
		repositoryID = id
	}
	return out, repositoryID, nil
}

func (c *Client) paths(ctx context.Context, owner, name, oid string, paths []string, out map[string]Entry) (string, error) {
	vars := map[string]any{"owner": owner, "name": name, "oid": oid}
	for i, p := range paths {
		vars["p"+strconv.Itoa(i)] = p
	}
	query := pathsQuery(paths)
	var reply struct {
		Repository *struct {
			ID     string         `json:"id"`
			Object map[string]any `json:"object"`
		} `json:"repository"`
	}
	if err := c.Do(ctx, "Paths", false, query, vars, &reply); err != nil {
		return "", err
	}
	if reply.Repository == nil || reply.Repository.Object == nil || reply.Repository.Object["__typename"] != "Commit" {
		return "", fmt.Errorf("GitHub GraphQL Paths: %s/%s has no commit %s", owner, name, oid)
	}
	for i, p := range paths {
		raw, ok := reply.Repository.Object["p"+strconv.Itoa(i)]
		if !ok {
			return "", fmt.Errorf("GitHub GraphQL Paths: reply has no entry for %q", p)
		}
		if raw == nil {
			continue
		}
		m, _ := raw.(map[string]any)
		mode, okMode := m["mode"].(float64)
		typ, _ := m["type"].(string)
		oid, _ := m["oid"].(string)
		if !okMode || mode < 0 || mode != float64(int64(mode)) || (typ != "blob" && typ != "tree" && typ != "commit") || len(oid) != 40 {
			return "", fmt.Errorf("GitHub GraphQL Paths: malformed entry for %q: %v", p, raw)
		}
		out[p] = Entry{Mode: fmt.Sprintf("%06o", int64(mode)), Type: typ, OID: oid, Text: textOf(m)}
	}
	return reply.Repository.ID, nil
}

// pathsQuery is the Paths document for paths, passed as $p0 .. $p(n-1).
func pathsQuery(paths []string) string {
	var decl, sel strings.Builder
	for i, p := range paths {
		k := "p" + strconv.Itoa(i)
		fmt.Fprintf(&decl, ", $%s: String!", k)
		fmt.Fprintf(&sel, " %s: file(path: $%s) { mode type oid%s }", k, k, entrySelection(p))
	}
	return "query Paths($owner: String!, $name: String!, $oid: GitObjectID!" + decl.String() + ") {\n" +
		"  repository(owner: $owner, name: $name) {\n" +
		"    id\n" +
		"    object(oid: $oid) { __typename ... on Commit {" + sel.String() + " } }\n" +
		"  }\n}"
}
