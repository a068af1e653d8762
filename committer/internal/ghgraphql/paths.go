package ghgraphql

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"
)

// Entry is what a commit's tree has at one path: Commit.file(path:)'s
// TreeEntry.
type Entry struct {
	Mode string // git's mode in octal, as REST tree listings give it: "100644", "040000", ...
	Type string // "blob", "tree" or "commit" (a submodule)
	OID  string
	// Text is the blob's content, when its text was asked for and GitHub
	// gave it whole (Blob.text of a blob neither binary nor truncated);
	// nil otherwise. It is GitHub's UTF-8 rendering: the caller checks it
	// against OID (git's blob hash) before trusting it as the bytes.
	Text []byte
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
//
// For the paths in texts, and every .gitattributes file, the same query
// asks for the blob's text too (TreeEntry.object's Blob.text, isBinary,
// isTruncated), so that an edit's file, or the attributes that say which
// paths go through Git LFS, cost no request of their own (see Entry.Text).
func (c *Client) Paths(ctx context.Context, owner, name, oid string, paths []string, texts map[string]bool) (entries map[string]Entry, repositoryID string, err error) {
	out := make(map[string]Entry, len(paths))
	for i := 0; i < len(paths); i += MaxPathsPerQuery {
		id, err := c.paths(ctx, owner, name, oid, paths[i:min(i+MaxPathsPerQuery, len(paths))], texts, out)
		if err != nil {
			return nil, "", err
		}
		repositoryID = id
	}
	return out, repositoryID, nil
}

func (c *Client) paths(ctx context.Context, owner, name, oid string, paths []string, texts map[string]bool, out map[string]Entry) (string, error) {
	vars := map[string]any{"owner": owner, "name": name, "oid": oid}
	withText := make([]bool, len(paths))
	for i, p := range paths {
		vars["p"+strconv.Itoa(i)] = p
		withText[i] = texts[p] || path.Base(p) == attributesFile
	}
	look := refLookOf(ctx)
	if look != nil {
		vars["ref"] = "refs/heads/" + look.Branch
	}
	query := pathsQuery(withText, look != nil, look != nil && look.History)
	var reply struct {
		Repository *struct {
			ID     string         `json:"id"`
			Object map[string]any `json:"object"`
			Head   *lookedHead    `json:"head"`
		} `json:"repository"`
	}
	sent := time.Now()
	if err := c.Do(ctx, "Paths", false, query, vars, &reply); err != nil {
		return "", err
	}
	if look != nil && reply.Repository != nil {
		reply.Repository.Head.recordIn(look, sent)
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
		out[p] = Entry{Mode: fmt.Sprintf("%06o", int64(mode)), Type: typ, OID: oid, Text: blobText(m["object"])}
	}
	return reply.Repository.ID, nil
}

// lookedHead is the branch's head as a Paths query with a RefLook reads
// it: nil when the branch is not there.
type lookedHead struct {
	Target struct {
		OID     string `json:"oid"`
		History *struct {
			Nodes []struct {
				OID string `json:"oid"`
			} `json:"nodes"`
		} `json:"history"`
	} `json:"target"`
}

func (h *lookedHead) recordIn(look *RefLook, sent time.Time) {
	head, history := "", []string(nil)
	if h != nil {
		head = h.Target.OID
		if h.Target.History != nil {
			for _, n := range h.Target.History.Nodes {
				history = append(history, n.OID)
			}
		}
	}
	look.record(head, history, sent)
}

// blobText is the content of a TreeEntry.object asked for with its text:
// nil unless it is a Blob that GitHub gave whole as text.
func blobText(raw any) []byte {
	m, _ := raw.(map[string]any)
	text, ok := m["text"].(string)
	if !ok || m["isBinary"] != false || m["isTruncated"] != false {
		return nil
	}
	return []byte(text)
}

// pathsQuery is the Paths document for len(withText) paths, passed as $p0
// .. $p(n-1); the entries of those with withText[i] carry their blob's
// text. With withRef it also reads the head of the branch $ref, and with
// withHistory its latest commits (see RefLook).
func pathsQuery(withText []bool, withRef, withHistory bool) string {
	var decl, sel strings.Builder
	for i, text := range withText {
		k := "p" + strconv.Itoa(i)
		fmt.Fprintf(&decl, ", $%s: String!", k)
		obj := ""
		if text {
			obj = " object { ... on Blob { isBinary isTruncated text } }"
		}
		fmt.Fprintf(&sel, " %s: file(path: $%s) { mode type oid%s }", k, k, obj)
	}
	head, refDecl := "", ""
	if withRef {
		history := ""
		if withHistory {
			history = " ... on Commit { history(first: " + strconv.Itoa(LookHistory) + ") { nodes { oid } } }"
		}
		head, refDecl = "    head: ref(qualifiedName: $ref) { target { oid"+history+" } }\n", ", $ref: String!"
	}
	return "query Paths($owner: String!, $name: String!, $oid: GitObjectID!" + refDecl + decl.String() + ") {\n" +
		"  repository(owner: $owner, name: $name) {\n" +
		"    id\n" + head +
		"    object(oid: $oid) { __typename ... on Commit {" + sel.String() + " } }\n" +
		"  }\n}"
}
