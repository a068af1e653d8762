package githubtest

import (
	"encoding/base64"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// Resolvers for the query side: repository, ref, commit, tree, blob.
// Each field method takes the repository's read lock itself and never calls
// another method that does.

type gqlQuery struct{}

func (gqlQuery) typeName() string { return "Query" }

func (gqlQuery) field(x *gqlExec, name string, args map[string]any) (any, error) {
	switch name {
	case "id":
		return "MDU6UXVlcnk=", nil
	case "rateLimit":
		return gqlRateLimit{reset: srvOf(x).now().Add(time.Hour)}, nil
	case "viewer":
		return viewer(x), nil
	case "__schema":
		return gqlSchemaObj{in: newIntrospection(wantsPreview(x.r), previewTypes)}, nil
	case "__type":
		n, _ := args["name"].(string)
		return introspectType(newIntrospection(wantsPreview(x.r), previewTypes), n)
	case "repository":
		owner, _ := args["owner"].(string)
		repoName, _ := args["name"].(string)
		rp := srvOf(x).getRepo(owner, repoName)
		if rp == nil {
			return nil, gqlErrorf("NOT_FOUND", "Could not resolve to a Repository with the name '"+owner+"/"+repoName+"'.")
		}
		return gqlRepo{rp: rp}, nil
	case "node":
		id, _ := args["id"].(string)
		n := srvOf(x).gqlNode(id)
		if n == nil {
			return nil, gqlErrorf("NOT_FOUND", "Could not resolve to a node with the global id of '"+id+"'")
		}
		return n, nil
	case "nodes":
		ids, _ := args["ids"].([]any)
		var out []gqlObject
		for _, v := range ids {
			id, _ := v.(string)
			n := srvOf(x).gqlNode(id)
			if n == nil {
				return nil, gqlErrorf("NOT_FOUND", "Could not resolve to a node with the global id of '"+id+"'")
			}
			out = append(out, n)
		}
		return out, nil
	}
	return nil, errUnserved("Query", name)
}

// gqlNode resolves a node ID the fake issued (wire.NodeID): a repository, a ref
// or a git object; nil for any other.
func (s *Server) gqlNode(id string) gqlObject {
	kind, enc, ok := strings.Cut(id, "_")
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if !ok || err != nil {
		return nil
	}
	full, rest, _ := strings.Cut(string(raw), ":")
	owner, name, _ := strings.Cut(full, "/")
	rp := s.getRepo(owner, name)
	if rp == nil {
		rp = s.movedRepo(owner, name) // node IDs outlive renames, as on GitHub
	}
	if rp == nil {
		return nil
	}
	rp.mu.RLock()
	defer rp.mu.RUnlock()
	switch kind {
	case "R":
		if rest == "" {
			return gqlRepo{rp: rp}
		}
	case "REF":
		return rp.gqlRefLocked(rest)
	case "C", "T", "B", "TAG":
		if len(rest) == 40 {
			return rp.gqlGitObjectLocked(plumbing.NewHash(rest))
		}
	}
	return nil
}

// errUnserved answers a field the schema has but the fake does not model.
// The executor turns it into null where the field's type is nullable (as
// GitHub answers for data it does not have) and into one error naming the
// field where it is not.
func errUnserved(typ, field string) error { return &unmodelled{typ: typ, field: field} }

type unmodelled struct{ typ, field string }

func (e *unmodelled) Error() string {
	return "githubtest: the fake does not model " + e.typ + "." + e.field
}

type gqlRepo struct{ rp *repo }

func (gqlRepo) typeName() string { return "Repository" }

func (g gqlRepo) field(x *gqlExec, name string, args map[string]any) (any, error) {
	rp := g.rp
	rp.mu.RLock()
	defer rp.mu.RUnlock()
	switch name {
	case "id":
		return wire.NodeID("R", rp.fullName()), nil
	case "name":
		return rp.name, nil
	case "nameWithOwner":
		return rp.fullName(), nil
	case "url":
		return rp.htmlURL(x.r), nil
	case "isEmpty":
		return rp.empty(), nil
	case "owner":
		return rp.ownerAccount(), nil
	case "databaseId":
		return rp.id, nil
	case "resourcePath":
		return "/" + rp.fullName(), nil
	case "isPrivate":
		return rp.private, nil
	case "visibility":
		if rp.private {
			return "PRIVATE", nil
		}
		return "PUBLIC", nil
	case "isArchived", "isFork", "isTemplate", "isDisabled", "isLocked", "isMirror", "isInOrganization":
		return name == "isInOrganization" && rp.org, nil
	case "createdAt", "updatedAt":
		return rp.created.UTC().Format(time.RFC3339), nil
	case "viewerPermission":
		return "ADMIN", nil
	case "viewerCanAdminister":
		return true, nil
	case "stargazerCount", "forkCount":
		return 0, nil
	case "hasIssuesEnabled", "hasWikiEnabled", "hasProjectsEnabled", "mergeCommitAllowed", "squashMergeAllowed", "rebaseMergeAllowed":
		return true, nil
	case "defaultBranchRef":
		return rp.gqlRefLocked("refs/heads/" + rp.defaultBranch), nil
	case "ref":
		q, _ := args["qualifiedName"].(string)
		return rp.gqlRefLocked(qualifyRef(q)), nil
	case "object":
		return rp.gqlObjectLocked(args), nil
	case "refs":
		return rp.gqlRefsLocked(args)
	case "pullRequests":
		return rp.gqlPullsLocked(args, "")
	case "pullRequest":
		n, _ := argInt(args, "number")
		if n < 1 || int(n) > len(rp.pulls) {
			return nil, gqlErrorf("NOT_FOUND", "Could not resolve to a PullRequest with the number of "+strconv.FormatInt(n, 10)+".")
		}
		return gqlPull{rp: rp, p: rp.pulls[n-1]}, nil
	}
	return nil, errUnserved("Repository", name)
}

// gqlRefsLocked is Repository.refs(refPrefix:, query:, orderBy:): the refs
// under refPrefix (which ends in "/"), by name unless orderBy asks for
// TAG_COMMIT_DATE, paged as every connection. Caller holds mu.
func (rp *repo) gqlRefsLocked(args map[string]any) (any, error) {
	prefix, _ := args["refPrefix"].(string)
	query, _ := args["query"].(string)
	names := rp.sortedRefs(prefix)
	if order, ok := args["orderBy"].(map[string]any); ok {
		if order["field"] == "TAG_COMMIT_DATE" {
			when := func(n string) time.Time {
				if c, ok := rp.Commits[rp.peel(rp.refs[n])]; ok {
					return c.Committer.When
				}
				return time.Time{}
			}
			sort.SliceStable(names, func(i, j int) bool { return when(names[i]).Before(when(names[j])) })
		}
		if order["direction"] == "DESC" {
			slices.Reverse(names)
		}
	}
	var nodes []gqlObject
	for _, n := range names {
		if query == "" || strings.Contains(n[len(prefix):], query) {
			nodes = append(nodes, gqlRef{rp: rp, ref: n, oid: rp.refs[n]})
		}
	}
	return newConnection("RefConnection", "refs", plumbing.ComputeHash(plumbing.BlobObject, []byte(prefix+"\x00"+query)), nodes, args)
}

// qualifyRef turns "main" or "heads/main" into "refs/heads/main".
func qualifyRef(q string) string {
	switch {
	case strings.HasPrefix(q, "refs/"):
		return q
	case strings.HasPrefix(q, "heads/"), strings.HasPrefix(q, "tags/"):
		return "refs/" + q
	}
	return "refs/heads/" + q
}

// gqlRefLocked is the Ref for a qualified name, or nil. Caller holds mu.
func (rp *repo) gqlRefLocked(ref string) gqlObject {
	h, ok := rp.refs[ref]
	if !ok {
		return nil
	}
	return gqlRef{rp: rp, ref: ref, oid: h}
}

// gqlObjectLocked answers Repository.object(oid:|expression:). Caller holds mu.
func (rp *repo) gqlObjectLocked(args map[string]any) gqlObject {
	var h plumbing.Hash
	if oid, ok := args["oid"].(string); ok {
		h = plumbing.NewHash(oid)
	} else if expr, ok := args["expression"].(string); ok {
		rev, p, hasPath := strings.Cut(expr, ":")
		c, ok := rp.resolveRaw(rev)
		if !ok {
			return nil
		}
		h = c
		if hasPath {
			root, ok := rp.TreeOf(rp.peel(c))
			if !ok {
				return nil
			}
			e, ok := rp.LookupPath(root, strings.Trim(p, "/"))
			if !ok {
				return nil
			}
			if e.Mode == filemode.Dir {
				return gqlTree{rp: rp, oid: e.Hash, path: strings.Trim(p, "/")}
			}
			h = e.Hash
		}
	}
	return rp.gqlGitObjectLocked(h)
}

// gqlGitObjectLocked wraps a stored object. Caller holds mu.
func (rp *repo) gqlGitObjectLocked(h plumbing.Hash) gqlObject {
	switch rp.ObjType(h) {
	case plumbing.CommitObject:
		return gqlCommit{rp: rp, c: rp.Commits[h]}
	case plumbing.TreeObject:
		return gqlTree{rp: rp, oid: h}
	case plumbing.BlobObject:
		return gqlBlob{rp: rp, oid: h}
	case plumbing.TagObject:
		return gqlTag{rp: rp, t: rp.Tags[h]}
	}
	return nil
}

type gqlTag struct {
	rp *repo
	t  *object.Tag
}

func (gqlTag) typeName() string { return "Tag" }

func (g gqlTag) field(x *gqlExec, name string, _ map[string]any) (any, error) {
	g.rp.mu.RLock()
	defer g.rp.mu.RUnlock()
	if v, ok := gitObjectField(x, g.rp, g.t.Hash, "TAG", name); ok {
		return v, nil
	}
	switch name {
	case "name":
		return g.t.Name, nil
	case "message":
		return g.t.Message, nil
	case "tagger":
		return gqlActor{sig: g.t.Tagger}, nil
	case "target":
		return g.rp.gqlGitObjectLocked(g.t.Target), nil
	}
	return nil, errUnserved("Tag", name)
}

type gqlRef struct {
	rp  *repo
	ref string
	oid plumbing.Hash
}

func (gqlRef) typeName() string { return "Ref" }

func (g gqlRef) field(_ *gqlExec, name string, args map[string]any) (any, error) {
	g.rp.mu.RLock()
	defer g.rp.mu.RUnlock()
	switch name {
	case "id":
		return refNodeID(g.rp, g.ref), nil
	case "name":
		_, n := splitRef(g.ref)
		return n, nil
	case "prefix":
		p, _ := splitRef(g.ref)
		return p, nil
	case "repository":
		return gqlRepo{rp: g.rp}, nil
	case "target":
		return g.rp.gqlGitObjectLocked(g.oid), nil
	case "associatedPullRequests":
		if !strings.HasPrefix(g.ref, "refs/heads/") {
			return newConnection("PullRequestConnection", "associatedPullRequests", g.oid, nil, args)
		}
		return g.rp.gqlPullsLocked(args, strings.TrimPrefix(g.ref, "refs/heads/"))
	}
	return nil, errUnserved("Ref", name)
}

// splitRef splits "refs/heads/a/b" into "refs/heads/" and "a/b".
func splitRef(ref string) (prefix, name string) {
	for _, p := range []string{"refs/heads/", "refs/tags/"} {
		if strings.HasPrefix(ref, p) {
			return p, ref[len(p):]
		}
	}
	i := strings.LastIndex(ref, "/")
	return ref[:i+1], ref[i+1:]
}

// objNodeID is the node ID of a git object (kind C, T, B or TAG), the same
// in REST replies and GraphQL, so node(id:) resolves either.
func objNodeID(rp *repo, kind string, h plumbing.Hash) string {
	return wire.NodeID(kind, rp.fullName()+":"+h.String())
}

// refNodeID is the node ID (REST node_id, GraphQL id)  of a ref; CommittableBranch.id takes it.
func refNodeID(rp *repo, ref string) string { return wire.NodeID("REF", rp.fullName()+":"+ref) }

// gitObjectField answers the GitObject interface's fields. Caller holds mu.
func gitObjectField(x *gqlExec, rp *repo, oid plumbing.Hash, kind, name string) (any, bool) {
	sha := oid.String()
	path := "/" + rp.fullName() + "/commit/" + sha
	switch name {
	case "oid":
		return sha, true
	case "abbreviatedOid":
		return sha[:7], true
	case "id":
		return objNodeID(rp, kind, oid), true
	case "commitResourcePath":
		return path, true
	case "commitUrl":
		return wire.WebBase(x.r) + path, true
	case "repository":
		return gqlRepo{rp: rp}, true
	}
	return nil, false
}

type gqlTree struct {
	rp   *repo
	oid  plumbing.Hash
	path string // where the tree was reached, for its entries' paths
}

// isBinary is GitHub's Blob.isBinary: not UTF-8, or has a NUL.
func isBinary(data []byte) bool { return !utf8.Valid(data) || strings.IndexByte(string(data), 0) >= 0 }

func (gqlTree) typeName() string { return "Tree" }

func (g gqlTree) field(x *gqlExec, name string, _ map[string]any) (any, error) {
	g.rp.mu.RLock()
	defer g.rp.mu.RUnlock()
	if v, ok := gitObjectField(x, g.rp, g.oid, "T", name); ok {
		return v, nil
	}
	if name == "entries" {
		return g.rp.gqlEntriesLocked(g.oid, g.path), nil
	}
	return nil, errUnserved("Tree", name)
}

type gqlBlob struct {
	rp  *repo
	oid plumbing.Hash
}

func (gqlBlob) typeName() string { return "Blob" }

func (g gqlBlob) field(x *gqlExec, name string, _ map[string]any) (any, error) {
	g.rp.mu.RLock()
	defer g.rp.mu.RUnlock()
	if v, ok := gitObjectField(x, g.rp, g.oid, "B", name); ok {
		return v, nil
	}
	data, _ := g.rp.Blob(g.oid)
	binary := isBinary(data)
	switch name {
	case "byteSize":
		return len(data), nil
	case "isBinary":
		return binary, nil
	case "isTruncated":
		return false, nil
	case "text":
		if binary {
			return nil, nil
		}
		return string(data), nil
	}
	return nil, errUnserved("Blob", name)
}

type gqlActor struct{ sig object.Signature }

func (gqlActor) typeName() string { return "GitActor" }

func (g gqlActor) field(_ *gqlExec, name string, _ map[string]any) (any, error) {
	switch name {
	case "name":
		return g.sig.Name, nil
	case "email":
		return g.sig.Email, nil
	case "date":
		return g.sig.When.Format(time.RFC3339), nil
	}
	return nil, errUnserved("GitActor", name)
}

type gqlRateLimit struct{ reset time.Time }

func (gqlRateLimit) typeName() string { return "RateLimit" }

func (g gqlRateLimit) field(_ *gqlExec, name string, _ map[string]any) (any, error) {
	switch name {
	case "cost", "nodeCount":
		return 1, nil
	case "limit", "remaining":
		return 5000, nil
	case "used":
		return 0, nil
	case "resetAt":
		return g.reset.UTC().Format(time.RFC3339), nil
	}
	return nil, errUnserved("RateLimit", name)
}
