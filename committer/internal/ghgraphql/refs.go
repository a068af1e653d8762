package ghgraphql

import (
	"context"
	"errors"
	"strings"
)

// PreviewUpdateRefs is the media type of GitHub's "Update refs preview"
// (GitHub's schema-previews page): Mutation.updateRefs exists only for
// requests that send it in Accept.
const PreviewUpdateRefs = "application/vnd.github.update-refs-preview+json"

// ZeroOID as a RefUpdate's BeforeOID means the ref must not exist; as its
// AfterOID, delete the ref.
const ZeroOID = "0000000000000000000000000000000000000000"

// RefUpdate is one ref of an updateRefs call.
type RefUpdate struct {
	Name      string // the full ref name: refs/heads/B, refs/tags/T
	BeforeOID string // the value the ref must have (ZeroOID: absent); "" is not checked
	AfterOID  string // the value it gets
	Force     bool   // allow a move that is not a fast-forward (a tag's)
}

const mutationUpdateRefs = `mutation UpdateRefs($input: UpdateRefsInput!) {
  updateRefs(input: $input) { clientMutationId }
}`

// UpdateRefs applies ups atomically: every ref whose BeforeOID is given
// must have that value, or nothing is applied. It sends the update-refs
// preview's media type. A lost reply is a *NoReplyError with Mutation set:
// the refs may have moved. A server without the mutation answers with an
// error IsUnavailable reports (nothing applied). See
// https://docs.github.com/graphql/reference/mutations#updaterefs.
func (c *Client) UpdateRefs(ctx context.Context, repositoryID string, ups []RefUpdate) error {
	list := make([]map[string]any, 0, len(ups))
	for _, u := range ups {
		m := map[string]any{"name": u.Name, "afterOid": u.AfterOID}
		if u.BeforeOID != "" {
			m["beforeOid"] = u.BeforeOID
		}
		if u.Force {
			m["force"] = true
		}
		list = append(list, m)
	}
	vars := map[string]any{"input": map[string]any{"repositoryId": repositoryID, "refUpdates": list}}
	var out struct {
		UpdateRefs *struct {
			ClientMutationID *string `json:"clientMutationId"`
		} `json:"updateRefs"`
	}
	if err := c.do(ctx, "updateRefs", true, PreviewUpdateRefs+", application/json", mutationUpdateRefs, vars, &out); err != nil {
		return err
	}
	if out.UpdateRefs == nil {
		// Data without the payload and no errors: GitHub did not say
		// what it did.
		return &Errors{Op: "updateRefs", Errors: []Error{{Message: "reply has no updateRefs payload"}}}
	}
	return nil
}

// IsUnavailable reports an answer that says the server has no updateRefs
// (an older GitHub Enterprise Server, the preview gone, no GraphQL
// endpoint): graphql-ruby's validation errors for a member the schema does
// not have (undefinedField, variableRequiresValidType, undefinedType), or
// HTTP 404 from the endpoint. Such a document was never executed: nothing
// was applied.
func IsUnavailable(err error) bool {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Status == 404
	}
	var ge *Errors
	if !errors.As(err, &ge) || len(ge.Errors) == 0 {
		return false
	}
	for _, x := range ge.Errors {
		code, _ := x.Extensions["code"].(string)
		switch {
		case code == "undefinedField" || code == "variableRequiresValidType" || code == "undefinedType":
		case code == "" && x.Type == "" && (strings.Contains(x.Message, "doesn't exist on type 'Mutation'") || strings.Contains(x.Message, "isn't a defined input type")):
		default:
			return false
		}
	}
	return true
}

// NamesRef reports whether an error entry's message names ref (a full
// ref name), as a whole name: "refs/heads/main" is not named by a message
// about refs/heads/main2.
func NamesRef(message, ref string) bool {
	for rest := message; ; {
		i := strings.Index(rest, ref)
		if i < 0 {
			return false
		}
		after := rest[i+len(ref):]
		before := byte(' ')
		if i > 0 {
			before = rest[i-1]
		}
		if !refChar(before) && before != '.' && endsName(after) {
			return true
		}
		rest = rest[i+len(ref):]
	}
}

// endsName reports whether what follows a ref name in a message ends it:
// nothing, a separator, or a '.' that ends the sentence (git refuses ref
// names ending in '.', so "refs/tags/v1." names refs/tags/v1 but
// "refs/tags/v1.2" does not).
func endsName(after string) bool {
	switch {
	case after == "":
		return true
	case after[0] == '.':
		return len(after) == 1 || !refChar(after[1])
	}
	return !refChar(after[0])
}

// refChar reports bytes that can be part of a ref name in a message.
func refChar(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '"', '\'', '`', ',', ';', ':', '(', ')', '[', ']':
		return false
	}
	return true
}
