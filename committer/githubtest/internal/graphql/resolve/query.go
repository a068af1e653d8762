package resolve

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

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// Resolvers for the query side: repository, ref, commit, tree, blob.
// Each field method takes the repository's read lock itself and never calls
// another method that does.

type gqlQuery struct{}

func (gqlQuery) TypeName() string { return "Query" }

func (gqlQuery) Field(x *graphql.Exec, name string, args map[string]any) (any, error) {
	switch name {
	case "id":
		return "MDU6UXVlcnk=", nil
	case "rateLimit":
		return gqlRateLimit{reset: srvOf(x).Now().Add(time.Hour)}, nil
	case "viewer":
		return viewer(x), nil
	case "__schema":
		return graphql.SchemaObj{In: graphql.NewIntrospection(wantsPreview(x.R), PreviewTypes)}, nil
	case "__type":
		n, _ := args["name"].(string)
		return graphql.IntrospectType(graphql.NewIntrospection(wantsPreview(x.R), PreviewTypes), n)
	case "repository":
		owner, _ := args["owner"].(string)
		repoName, _ := args["name"].(string)
		rp := srvOf(x).Repo(owner, repoName)
		if rp == nil {
			return nil, graphql.Errorf("NOT_FOUND", "Could not resolve to a Repository with the name '"+owner+"/"+repoName+"'.")
		}
		return gqlRepo{rp: rp}, nil
	case "node":
		id, _ := args["id"].(string)
		n := srvOf(x).gqlNode(id)
		if n == nil {
			return nil, graphql.Errorf("NOT_FOUND", "Could not resolve to a node with the global id of '"+id+"'")
		}
		return n, nil
	case "nodes":
		ids, _ := args["ids"].([]any)
		var out []graphql.Object
		for _, v := range ids {
			id, _ := v.(string)
			n := srvOf(x).gqlNode(id)
			if n == nil {
				return nil, graphql.Errorf("NOT_FOUND", "Could not resolve to a node with the global id of '"+id+"'")
			}
			out = append(out, n)
		}
		return out, nil
	}
	return nil, graphql.Unserved("Query", name)
}

// gqlNode resolves a node ID the fake issued (wire.NodeID): a repository, a ref
// or a git object; nil for any other.
func (s *Env) gqlNode(id string) graphql.Object {
	kind, enc, ok := strings.Cut(id, "_")
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if !ok || err != nil {
		return nil
	}
	if kind == "PR" {
		return s.pullNode(id)
	}
	full, rest, _ := strings.Cut(string(raw), ":")
	owner, name, _ := strings.Cut(full, "/")
	rp := s.Repo(owner, name)
	if rp == nil {
		rp = s.MovedRepo(owner, name) // node IDs outlive renames, as on GitHub
	}
	if rp == nil {
		return nil
	}
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	switch kind {
	case "R":
		if rest == "" {
			return gqlRepo{rp: rp}
		}
	case "REF":
		return gqlRefLocked(rp, rest)
	case "C", "T", "B", "TAG":
		if len(rest) == 40 {
			return gqlGitObjectLocked(rp, plumbing.NewHash(rest))
		}
	}
	return nil
}

type gqlRepo struct{ rp *state.Repo }

func (gqlRepo) TypeName() string { return "Repository" }

func (g gqlRepo) Field(x *graphql.Exec, name string, args map[string]any) (any, error) {
	rp := g.rp
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	switch name {
	case "mergeQueue":
		b, _ := args["branch"].(string)
		if b == "" {
			b = rp.DefaultBranch
		}
		return mergeQueueOf(x, rp, b), nil // automerge.go
	case "id":
		return wire.NodeID("R", rp.FullName()), nil
	case "name":
		return rp.Name, nil
	case "nameWithOwner":
		return rp.FullName(), nil
	case "url":
		return wire.RepoHTMLURL(rp, x.R), nil
	case "isEmpty":
		return rp.Empty(), nil
	case "owner":
		return ownerAccount(rp), nil
	case "databaseId":
		return rp.ID, nil
	case "resourcePath":
		return "/" + rp.FullName(), nil
	case "isPrivate":
		return rp.Private, nil
	case "visibility":
		if rp.Private {
			return "PRIVATE", nil
		}
		return "PUBLIC", nil
	case "isArchived", "isFork", "isTemplate", "isDisabled", "isLocked", "isMirror", "isInOrganization":
		return name == "isInOrganization" && rp.Org, nil
	case "createdAt", "updatedAt":
		return rp.Created.UTC().Format(time.RFC3339), nil
	case "viewerPermission":
		return "ADMIN", nil
	case "viewerCanAdminister":
		return true, nil
	case "stargazerCount", "forkCount":
		return 0, nil
	case "hasIssuesEnabled", "hasWikiEnabled", "hasProjectsEnabled", "mergeCommitAllowed", "squashMergeAllowed", "rebaseMergeAllowed", "deleteBranchOnMerge", "autoMergeAllowed":
		return repoSetting(rp, name), nil
	case "defaultBranchRef":
		return gqlRefLocked(rp, "refs/heads/"+rp.DefaultBranch), nil
	case "ref":
		q, _ := args["qualifiedName"].(string)
		return gqlRefLocked(rp, qualifyRef(q)), nil
	case "object":
		return gqlObjectLocked(rp, args), nil
	case "refs":
		return gqlRefsLocked(rp, args)
	case "pullRequests":
		return gqlPullsLocked(rp, args, "")
	case "pullRequest":
		n, _ := graphql.ArgInt(args, "number")
		if n < 1 || int(n) > len(rp.Pulls) {
			return nil, graphql.Errorf("NOT_FOUND", "Could not resolve to a PullRequest with the number of "+strconv.FormatInt(n, 10)+".")
		}
		return gqlPull{rp: rp, p: rp.Pulls[n-1]}, nil
	}
	return nil, graphql.Unserved("Repository", name)
}

// gqlRefsLocked is Repository.refs(refPrefix:, query:, orderBy:): the refs
// under refPrefix (which ends in "/"), by name unless orderBy asks for
// TAG_COMMIT_DATE, paged as every connection. Caller holds mu.
func gqlRefsLocked(rp *state.Repo, args map[string]any) (any, error) {
	prefix, _ := args["refPrefix"].(string)
	query, _ := args["query"].(string)
	names := rp.SortedRefs(prefix)
	if order, ok := args["orderBy"].(map[string]any); ok {
		if order["field"] == "TAG_COMMIT_DATE" {
			when := func(n string) time.Time {
				if c, ok := rp.Commits[rp.Peel(rp.Refs[n])]; ok {
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
	var nodes []graphql.Object
	for _, n := range names {
		if query == "" || strings.Contains(n[len(prefix):], query) {
			nodes = append(nodes, gqlRef{rp: rp, ref: n, oid: rp.Refs[n]})
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
func gqlRefLocked(rp *state.Repo, ref string) graphql.Object {
	h, ok := rp.Refs[ref]
	if !ok {
		return nil
	}
	return gqlRef{rp: rp, ref: ref, oid: h}
}

// gqlObjectLocked answers Repository.object(oid:|expression:). Caller holds mu.
func gqlObjectLocked(rp *state.Repo, args map[string]any) graphql.Object {
	var h plumbing.Hash
	if oid, ok := args["oid"].(string); ok {
		h = plumbing.NewHash(oid)
	} else if expr, ok := args["expression"].(string); ok {
		rev, p, hasPath := strings.Cut(expr, ":")
		c, ok := rp.ResolveRaw(rev)
		if !ok {
			return nil
		}
		h = c
		if hasPath {
			root, ok := rp.TreeOf(rp.Peel(c))
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
	return gqlGitObjectLocked(rp, h)
}

// gqlGitObjectLocked wraps a stored object. Caller holds mu.
func gqlGitObjectLocked(rp *state.Repo, h plumbing.Hash) graphql.Object {
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
	rp *state.Repo
	t  *object.Tag
}

func (gqlTag) TypeName() string { return "Tag" }

func (g gqlTag) Field(x *graphql.Exec, name string, _ map[string]any) (any, error) {
	g.rp.Mu.RLock()
	defer g.rp.Mu.RUnlock()
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
		return gqlGitObjectLocked(g.rp, g.t.Target), nil
	}
	return nil, graphql.Unserved("Tag", name)
}

type gqlRef struct {
	rp  *state.Repo
	ref string
	oid plumbing.Hash
}

func (gqlRef) TypeName() string { return "Ref" }

func (g gqlRef) Field(_ *graphql.Exec, name string, args map[string]any) (any, error) {
	g.rp.Mu.RLock()
	defer g.rp.Mu.RUnlock()
	switch name {
	case "id":
		return wire.RefNodeID(g.rp, g.ref), nil
	case "name":
		_, n := splitRef(g.ref)
		return n, nil
	case "prefix":
		p, _ := splitRef(g.ref)
		return p, nil
	case "repository":
		return gqlRepo{rp: g.rp}, nil
	case "target":
		return gqlGitObjectLocked(g.rp, g.oid), nil
	case "associatedPullRequests":
		if !strings.HasPrefix(g.ref, "refs/heads/") {
			return newConnection("PullRequestConnection", "associatedPullRequests", g.oid, nil, args)
		}
		return gqlPullsLocked(g.rp, args, strings.TrimPrefix(g.ref, "refs/heads/"))
	}
	return nil, graphql.Unserved("Ref", name)
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

// gitObjectField answers the GitObject interface's fields. Caller holds mu.
func gitObjectField(x *graphql.Exec, rp *state.Repo, oid plumbing.Hash, kind, name string) (any, bool) {
	sha := oid.String()
	path := "/" + rp.FullName() + "/commit/" + sha
	switch name {
	case "oid":
		return sha, true
	case "abbreviatedOid":
		return sha[:7], true
	case "id":
		return wire.ObjNodeID(rp, kind, oid), true
	case "commitResourcePath":
		return path, true
	case "commitUrl":
		return wire.WebBase(x.R) + path, true
	case "repository":
		return gqlRepo{rp: rp}, true
	}
	return nil, false
}

type gqlTree struct {
	rp   *state.Repo
	oid  plumbing.Hash
	path string // where the tree was reached, for its entries' paths
}

// isBinary is GitHub's Blob.isBinary: not UTF-8, or has a NUL.
func isBinary(data []byte) bool { return !utf8.Valid(data) || strings.IndexByte(string(data), 0) >= 0 }

func (gqlTree) TypeName() string { return "Tree" }

func (g gqlTree) Field(x *graphql.Exec, name string, _ map[string]any) (any, error) {
	g.rp.Mu.RLock()
	defer g.rp.Mu.RUnlock()
	if v, ok := gitObjectField(x, g.rp, g.oid, "T", name); ok {
		return v, nil
	}
	if name == "entries" {
		return gqlEntriesLocked(g.rp, g.oid, g.path), nil
	}
	return nil, graphql.Unserved("Tree", name)
}

type gqlBlob struct {
	rp  *state.Repo
	oid plumbing.Hash
}

func (gqlBlob) TypeName() string { return "Blob" }

func (g gqlBlob) Field(x *graphql.Exec, name string, _ map[string]any) (any, error) {
	g.rp.Mu.RLock()
	defer g.rp.Mu.RUnlock()
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
	return nil, graphql.Unserved("Blob", name)
}

type gqlActor struct{ sig object.Signature }

func (gqlActor) TypeName() string { return "GitActor" }

func (g gqlActor) Field(_ *graphql.Exec, name string, _ map[string]any) (any, error) {
	switch name {
	case "name":
		return g.sig.Name, nil
	case "email":
		return g.sig.Email, nil
	case "date":
		return g.sig.When.Format(time.RFC3339), nil
	}
	return nil, graphql.Unserved("GitActor", name)
}

type gqlRateLimit struct{ reset time.Time }

func (gqlRateLimit) TypeName() string { return "RateLimit" }

func (g gqlRateLimit) Field(_ *graphql.Exec, name string, _ map[string]any) (any, error) {
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
	return nil, graphql.Unserved("RateLimit", name)
}
