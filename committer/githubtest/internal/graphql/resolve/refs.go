package resolve

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rules"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// updateRefs: GitHub's atomic multi-ref compare-and-swap (Mutation.updateRefs,
// RefUpdate, UpdateRefsInput). Each RefUpdate names a full ref (branches
// and refs/tags/* alike); beforeOid, when given, is the value the ref must
// have (all zeros: it must not exist); afterOid is the new value (all zeros:
// delete it); force allows a non-fast-forward move. Every update is checked
// first and then all are applied under the repository lock, or none.
//
// It is a schema preview on github.com ("Update refs preview", GitHub's
// schema-previews page): members of a preview exist only for requests that
// send its media type in Accept, so without
// `Accept: application/vnd.github.update-refs-preview+json` the fake answers
// as GitHub answers for a member it does not have: a validation error, no
// data.

// PreviewUpdateRefs is the Accept media type that enables updateRefs.
const PreviewUpdateRefs = "application/vnd.github.update-refs-preview+json"

// ZeroOid is the object ID that stands for "no object" in a RefUpdate.
const ZeroOid = "0000000000000000000000000000000000000000"

// PreviewTypes are the preview's members: the mutation field and the types only it uses.
var PreviewTypes = map[string]bool{"UpdateRefsInput": true, "RefUpdate": true, "GitRefname": true, "UpdateRefsPayload": true}

// wantsPreview reports whether r sent PreviewUpdateRefs.
func wantsPreview(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), PreviewUpdateRefs)
}

// previewErrors refuses a document that uses the update-refs preview
// without its media type. The messages and extensions follow graphql-ruby,
// which GitHub's validation errors come from; the exact entries GitHub
// sends for a hidden preview member are a guess (the -tags github probe
// TestGitHubProbeUpdateRefs records the real ones).
func previewErrors(r *http.Request, doc *ast.QueryDocument, op *ast.OperationDefinition) []*graphql.Error {
	if strings.Contains(r.Header.Get("Accept"), PreviewUpdateRefs) {
		return nil
	}
	var errs []*graphql.Error
	opPath := string(op.Operation)
	if op.Name != "" {
		opPath += " " + op.Name
	}
	for _, v := range op.VariableDefinitions {
		t := v.Type
		for t.Elem != nil {
			t = t.Elem
		}
		if PreviewTypes[t.NamedType] {
			errs = append(errs, &graphql.Error{
				Path: []any{opPath}, Locations: loc(v.Position),
				Message:    t.NamedType + " isn't a defined input type (on $" + v.Variable + ")",
				Extensions: map[string]any{"code": "variableRequiresValidType", "typeName": t.NamedType, "variableName": v.Variable},
			})
		}
	}
	if op.Operation == ast.Mutation {
		var walk func(ast.SelectionSet)
		walk = func(set ast.SelectionSet) {
			for _, sel := range set {
				switch s := sel.(type) {
				case *ast.Field:
					if s.Name == "updateRefs" {
						errs = append(errs, &graphql.Error{
							Path: []any{opPath, "updateRefs"}, Locations: loc(s.Position),
							Message:    "Field 'updateRefs' doesn't exist on type 'Mutation'",
							Extensions: map[string]any{"code": "undefinedField", "typeName": "Mutation", "fieldName": "updateRefs"},
						})
					}
				case *ast.InlineFragment:
					walk(s.SelectionSet)
				case *ast.FragmentSpread:
					if f := doc.Fragments.ForName(s.Name); f != nil {
						walk(f.SelectionSet)
					}
				}
			}
		}
		walk(op.SelectionSet)
	}
	return errs
}

func loc(p *ast.Position) []gqlerror.Location {
	if p == nil {
		return nil
	}
	return []gqlerror.Location{{Line: p.Line, Column: p.Column}}
}

// refUpdate is one decoded RefUpdate.
type refUpdate struct {
	name          string
	before, after string // "" when beforeOid is not given
	hasBefore     bool
	force         bool
}

// updateRefs applies input.refUpdates atomically.
//
// Error entries: GitHub's replies to a refused updateRefs are not recorded.
// The fake answers, in GitHub's general GraphQL error format ({type, path,
// locations, message}; data.updateRefs null), with guesses marked here:
//   - repositoryId not a repository: NOT_FOUND "Could not resolve to a node
//     with the global id of '<id>'" (GitHub's wording for node IDs);
//   - a beforeOid that does not match: STALE_DATA, naming the ref (guess:
//     the type createCommitOnBranch uses for its expectedHeadOid);
//   - any other refusal of one ref (no such object, not a fast forward, ref
//     exists for a zero beforeOid, deleting what does not exist, a bad
//     name, a rule): UNPROCESSABLE, the message naming the ref (guess).
//
// The first refused ref is reported; nothing is applied.
func (s *Env) updateRefs(x *graphql.Exec, in map[string]any) (graphql.Object, error) {
	id, _ := in["repositoryId"].(string)
	node := s.gqlNode(id)
	repoNode, ok := node.(gqlRepo)
	if !ok {
		return nil, graphql.Errorf("NOT_FOUND", "Could not resolve to a node with the global id of '"+id+"'")
	}
	list, _ := in["refUpdates"].([]any)
	ups := make([]refUpdate, 0, len(list))
	seen := map[string]bool{}
	for _, v := range list {
		m, _ := v.(map[string]any)
		u := refUpdate{}
		u.name, _ = m["name"].(string)
		u.after, _ = m["afterOid"].(string)
		u.after = strings.ToLower(u.after)
		if b, ok := m["beforeOid"].(string); ok {
			u.before, u.hasBefore = strings.ToLower(b), true
		}
		u.force, _ = m["force"].(bool)
		if seen[u.name] {
			return nil, graphql.Errorf("UNPROCESSABLE", "Reference "+u.name+" is updated more than once.") // wording a guess
		}
		seen[u.name] = true
		ups = append(ups, u)
	}
	rp := repoNode.rp
	for _, u := range ups {
		s.MutationRaces.Run(rp.FullName(), u.name)
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	for _, u := range ups {
		if err := checkRefUpdateLocked(rp, u, seen); err != nil {
			return nil, err
		}
	}
	if err := s.rulesRefuseRefUpdates(rp, ups, wire.IdentOf(x.R)); err != nil {
		return nil, err
	}
	now := s.Now()
	for _, u := range ups {
		old, had := rp.Refs[u.name]
		h := plumbing.NewHash(u.after)
		if u.after == ZeroOid {
			h = plumbing.ZeroHash
		}
		if had && old == h {
			continue
		}
		rp.SetRef(u.name, h, u.force && had && !h.IsZero() && !rp.IsAncestor(old, h), now)
	}
	return gqlUpdateRefsPayload{clientMutationID: in["clientMutationId"]}, nil
}

// checkRefUpdateLocked checks one update against the repository as it is.
// batch names every ref of the call (a created ref may not clash with a
// ref the same call keeps). Caller holds mu.
func checkRefUpdateLocked(rp *state.Repo, u refUpdate, batch map[string]bool) error {
	refuse := func(typ, msg string) error { return graphql.Errorf(typ, msg) }
	if !state.ValidRefName(u.name) {
		return refuse("UNPROCESSABLE", "Reference name "+strconv.Quote(u.name)+" is invalid.")
	}
	old, had := rp.Refs[u.name]
	if u.hasBefore {
		switch {
		case u.before == ZeroOid && had:
			return refuse("STALE_DATA", "Reference "+u.name+" already exists (expected it not to exist).")
		case u.before != ZeroOid && !had:
			return refuse("STALE_DATA", "Reference "+u.name+" does not exist (expected it at "+u.before+").")
		case u.before != ZeroOid && old.String() != u.before:
			return refuse("STALE_DATA", "Reference "+u.name+" is at "+old.String()+" but expected "+u.before+".")
		}
	}
	if u.after == ZeroOid {
		if !had {
			return refuse("UNPROCESSABLE", "Reference "+u.name+" does not exist.")
		}
		if u.name == "refs/heads/"+rp.DefaultBranch {
			return refuse("UNPROCESSABLE", "Reference "+u.name+" is the default branch and cannot be deleted.")
		}
		return nil
	}
	h := plumbing.NewHash(u.after)
	typ := rp.ObjType(h)
	if typ == plumbing.InvalidObject {
		return refuse("UNPROCESSABLE", "Reference "+u.name+": object "+u.after+" does not exist.")
	}
	if strings.HasPrefix(u.name, "refs/heads/") && typ != plumbing.CommitObject {
		return refuse("UNPROCESSABLE", "Reference "+u.name+": object "+u.after+" is not a commit.")
	}
	if !had {
		if c := rp.RefNameClash(u.name); c != "" && !batch[c] {
			return refuse("UNPROCESSABLE", "Reference "+u.name+" cannot be created beside "+c+".")
		}
		return nil
	}
	if old == h || u.force {
		return nil
	}
	if strings.HasPrefix(u.name, "refs/tags/") {
		// git refuses to move an existing tag without force.
		return refuse("UNPROCESSABLE", "Reference "+u.name+" already exists; moving a tag needs force.")
	}
	if rp.ObjType(old) != plumbing.CommitObject || typ != plumbing.CommitObject || !rp.IsAncestor(old, h) {
		return refuse("UNPROCESSABLE", "Reference "+u.name+": update is not a fast forward.")
	}
	return nil
}

type gqlUpdateRefsPayload struct{ clientMutationID any }

func (gqlUpdateRefsPayload) TypeName() string { return "UpdateRefsPayload" }

func (g gqlUpdateRefsPayload) Field(_ *graphql.Exec, name string, _ map[string]any) (any, error) {
	if name == "clientMutationId" {
		return g.clientMutationID, nil
	}
	return nil, graphql.Unserved("UpdateRefsPayload", name)
}

// createRef, updateRef and deleteRef: the single-ref mutations (no preview).
// updateRef has no beforeOid: like REST PATCH git/refs it is a fast-forward
// check unless force, not a compare-and-swap. They share updateRefs'
// checks and rules; their error entries are the same guesses.
func (s *Env) refMutation(x *graphql.Exec, name string, in map[string]any) (graphql.Object, error) {
	var rp *state.Repo
	u := refUpdate{}
	str := func(k string) string { v, _ := in[k].(string); return v }
	switch name {
	case "createRef":
		repoNode, ok := s.gqlNode(str("repositoryId")).(gqlRepo)
		if !ok {
			return nil, graphql.Errorf("NOT_FOUND", "Could not resolve to a node with the global id of '"+str("repositoryId")+"'")
		}
		rp = repoNode.rp
		u = refUpdate{name: str("name"), after: strings.ToLower(str("oid")), before: ZeroOid, hasBefore: true}
	default:
		refNode, ok := s.gqlNode(str("refId")).(gqlRef)
		if !ok {
			return nil, graphql.Errorf("NOT_FOUND", "Could not resolve to a node with the global id of '"+str("refId")+"'")
		}
		rp = refNode.rp
		u = refUpdate{name: refNode.ref, after: ZeroOid}
		if name == "updateRef" {
			u.after = strings.ToLower(str("oid"))
			u.force, _ = in["force"].(bool)
		}
	}
	s.MutationRaces.Run(rp.FullName(), u.name)
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	if _, exists := rp.Refs[u.name]; name == "createRef" && exists {
		// Wording a guess.
		return nil, graphql.Errorf("UNPROCESSABLE", "A ref named \""+u.name+"\" already exists in the repository.")
	}
	if name != "createRef" {
		if _, exists := rp.Refs[u.name]; !exists {
			return nil, graphql.Errorf("NOT_FOUND", "Could not resolve to a node with the global id of '"+str("refId")+"'")
		}
	}
	if err := checkRefUpdateLocked(rp, u, map[string]bool{u.name: true}); err != nil {
		return nil, err
	}
	if err := s.rulesRefuseRefUpdates(rp, []refUpdate{u}, wire.IdentOf(x.R)); err != nil {
		return nil, err
	}
	old, had := rp.Refs[u.name]
	h := plumbing.ZeroHash
	if u.after != ZeroOid {
		h = plumbing.NewHash(u.after)
	}
	if !had || old != h {
		rp.SetRef(u.name, h, u.force && had && !h.IsZero() && !rp.IsAncestor(old, h), s.Now())
	}
	return gqlRefPayload{typ: strings.ToUpper(name[:1]) + name[1:] + "Payload", rp: rp, ref: u.name, oid: h, clientMutationID: in["clientMutationId"]}, nil
}

type gqlRefPayload struct {
	typ              string
	rp               *state.Repo
	ref              string
	oid              plumbing.Hash
	clientMutationID any
}

func (g gqlRefPayload) TypeName() string { return g.typ }

func (g gqlRefPayload) Field(_ *graphql.Exec, name string, _ map[string]any) (any, error) {
	switch name {
	case "clientMutationId":
		return g.clientMutationID, nil
	case "ref":
		if g.oid.IsZero() {
			return nil, nil
		}
		return gqlRef{rp: g.rp, ref: g.ref, oid: g.oid}, nil
	}
	return nil, graphql.Unserved(g.typ, name)
}

// rulesRefuseRefUpdates checks updateRefs' changes. Caller holds rp.mu.
func (s *Env) rulesRefuseRefUpdates(rp *state.Repo, ups []refUpdate, id state.Identity) error {
	changes := make([]rules.Change, 0, len(ups))
	for _, u := range ups {
		ch := rules.Change{Ref: u.name, Old: rp.Refs[u.name]}
		if u.after != ZeroOid {
			ch.New = plumbing.NewHash(u.after)
		}
		changes = append(changes, ch)
	}
	if e := state.Refusal(rp, id, changes...); e != nil {
		return e.GQLError()
	}
	return nil
}
