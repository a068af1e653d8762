package resolve

import (
	"encoding/base64"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/gitobj"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rules"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/sign"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// msgGraphQLGaveUp is what GitHub answers when a query fails inside it
// (GitHub adds a request ID to it).
const msgGraphQLGaveUp = "Something went wrong while executing your query. This may be the result of a timeout, or it could be a GitHub bug."

type gqlMutation struct{}

func (gqlMutation) TypeName() string { return "Mutation" }

func (gqlMutation) Field(x *graphql.Exec, name string, args map[string]any) (any, error) {
	in, _ := args["input"].(map[string]any)
	switch name {
	case "createCommitOnBranch":
		return srvOf(x).createCommitOnBranch(x, in)
	case "updateRefs":
		return srvOf(x).updateRefs(x, in)
	case "mergePullRequest":
		return srvOf(x).mergePullRequest(x, in)
	case "enablePullRequestAutoMerge", "disablePullRequestAutoMerge", "enqueuePullRequest", "dequeuePullRequest":
		return srvOf(x).autoMergeMutation(x, name, in) // automerge.go
	case "createRef", "updateRef", "deleteRef":
		return srvOf(x).refMutation(x, name, in)
	}
	return nil, graphql.Unserved("Mutation", name)
}

// commitOnBranch is a decoded CreateCommitOnBranchInput.
type commitOnBranch struct {
	repo, ref, expected string
	message             string
	additions           map[string][]byte
	addOrder, deletions []string
	clientMutationID    any
}

// decodeCommitOnBranch reads the (already schema-validated) input.
func decodeCommitOnBranch(in map[string]any) (*commitOnBranch, error) {
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	branch, _ := in["branch"].(map[string]any)
	msg, _ := in["message"].(map[string]any)
	c := &commitOnBranch{expected: strings.ToLower(str(in, "expectedHeadOid")), additions: map[string][]byte{},
		clientMutationID: in["clientMutationId"]}
	switch id := str(branch, "id"); {
	case id != "":
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(id, "REF_"))
		repoName, ref, ok := strings.Cut(string(raw), ":")
		if err != nil || !ok || !strings.HasPrefix(id, "REF_") {
			return nil, graphql.Errorf("NOT_FOUND", "Could not resolve to a node with the global id of '"+id+"'")
		}
		c.repo, c.ref = repoName, ref
	case str(branch, "repositoryNameWithOwner") != "" && str(branch, "branchName") != "":
		c.repo, c.ref = str(branch, "repositoryNameWithOwner"), "refs/heads/"+str(branch, "branchName")
	default:
		// Wording not seen from GitHub (a guess).
		return nil, graphql.Errorf("UNPROCESSABLE", "A branch must be given by id or by repositoryNameWithOwner and branchName.")
	}
	c.message = str(msg, "headline")
	if body := str(msg, "body"); body != "" {
		c.message += "\n\n" + body
	}
	changes, _ := in["fileChanges"].(map[string]any)
	dels, _ := changes["deletions"].([]any)
	for _, d := range dels {
		dm, _ := d.(map[string]any)
		c.deletions = append(c.deletions, str(dm, "path"))
	}
	adds, _ := changes["additions"].([]any)
	total := 0
	for _, a := range adds {
		am, _ := a.(map[string]any)
		p := str(am, "path")
		data, err := base64.StdEncoding.DecodeString(str(am, "contents"))
		if err != nil {
			return nil, graphql.Errorf("UNPROCESSABLE", "The contents of "+p+" are not valid Base64.") // wording a guess
		}
		if total += len(data); total >= MaxCommitBytes {
			return nil, graphql.Errorf("", msgGraphQLGaveUp)
		}
		if _, dup := c.additions[p]; !dup {
			c.addOrder = append(c.addOrder, p)
		}
		c.additions[p] = data
	}
	return c, nil
}

// createCommitOnBranch commits fileChanges on the branch in one step, as
// GitHub does: the branch must exist and point at expectedHeadOid (else
// STALE_DATA), every deletion must name an existing file, and the commit is
// authored by the token's user and committed and signed by GitHub.
func (s *Env) createCommitOnBranch(x *graphql.Exec, in map[string]any) (graphql.Object, error) {
	c, err := decodeCommitOnBranch(in)
	if err != nil {
		return nil, err
	}
	owner, name, _ := strings.Cut(c.repo, "/")
	rp := s.Repo(owner, name)
	if rp == nil {
		return nil, graphql.Errorf("NOT_FOUND", "Could not resolve to a Repository with the name '"+c.repo+"'.")
	}
	s.MutationRaces.Run(rp.FullName(), c.ref)
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	head, ok := rp.Refs[c.ref]
	if !ok {
		// GitHub requires an existing branch; the wording is a guess.
		return nil, graphql.Errorf("NOT_FOUND", "Could not resolve to a Ref with the name '"+c.ref+"'.")
	}
	if head.String() != c.expected {
		return nil, graphql.Errorf("STALE_DATA", "Expected branch to point to \""+c.expected+"\" but it did not.  Pull and try again.")
	}
	tree, err := applyFileChanges(rp, head, c)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	id := wire.IdentOf(x.R)
	cm := &object.Commit{
		Author:    object.Signature{Name: id.Name, Email: id.Email, When: now},
		Committer: sign.WebFlowCommitter(now), Message: c.message, TreeHash: tree,
		ParentHashes: []plumbing.Hash{head},
	}
	h, err := rp.PutSignedCommit(cm, now)
	if err != nil {
		return nil, graphql.Errorf("", "Something went wrong while executing your query: "+err.Error())
	}
	if e := state.Refusal(rp, id, rules.Change{Ref: c.ref, Old: head, New: h}); e != nil {
		return nil, e.GQLError()
	}
	rp.SetRef(c.ref, h, false, now)
	return gqlCommitPayload{rp: rp, ref: c.ref, oid: h, clientMutationID: c.clientMutationID}, nil
}

// applyFileChanges writes the tree of head with c's deletions, then its
// additions. Caller holds mu for writing.
func applyFileChanges(rp *state.Repo, head plumbing.Hash, c *commitOnBranch) (plumbing.Hash, error) {
	root := rp.Commits[head].TreeHash
	b := gitobj.NewTreeBuilder(&rp.Store, root)
	for _, p := range c.deletions {
		e, ok := rp.LookupPath(root, strings.Trim(p, "/"))
		if !ok || e.Mode == filemode.Dir || b.Del(strings.Trim(p, "/")) != nil {
			// Message as GitHub users report it; the error type is a guess.
			return plumbing.ZeroHash, graphql.Errorf("UNPROCESSABLE",
				"A path was requested for deletion which does not exist as of commit oid `"+head.String()+"`")
		}
	}
	for _, p := range c.addOrder {
		if !gitobj.ValidPath(p) {
			return plumbing.ZeroHash, graphql.Errorf("UNPROCESSABLE", "Invalid path: "+p) // wording a guess
		}
		// GraphQL cannot carry file modes: an added file is a regular file,
		// even over an executable or a symlink (not confirmed against GitHub).
		b.Set(p, filemode.Regular, rp.PutBlob(c.additions[p]))
	}
	tree, err := b.Write()
	if err != nil {
		return plumbing.ZeroHash, graphql.Errorf("", "Something went wrong while executing your query: "+err.Error())
	}
	return tree, nil
}

type gqlCommitPayload struct {
	rp               *state.Repo
	ref              string
	oid              plumbing.Hash
	clientMutationID any
}

func (gqlCommitPayload) TypeName() string { return "CreateCommitOnBranchPayload" }

func (g gqlCommitPayload) Field(_ *graphql.Exec, name string, _ map[string]any) (any, error) {
	g.rp.Mu.RLock()
	defer g.rp.Mu.RUnlock()
	switch name {
	case "clientMutationId":
		return g.clientMutationID, nil
	case "commit":
		return gqlCommit{rp: g.rp, c: g.rp.Commits[g.oid]}, nil
	case "ref":
		return gqlRef{rp: g.rp, ref: g.ref, oid: g.oid}, nil
	}
	return nil, graphql.Unserved("CreateCommitOnBranchPayload", name)
}
