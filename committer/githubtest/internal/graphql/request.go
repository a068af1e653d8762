package graphql

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// Error is one entry of a GraphQL errors[] array as GitHub writes it:
// GitHub's own errors carry a top-level "type" (NOT_FOUND, STALE_DATA, ...);
// parse and validation errors carry "extensions" instead.
type Error struct {
	Type       string              `json:"type,omitempty"`
	Path       []any               `json:"path,omitempty"`
	Locations  []gqlerror.Location `json:"locations,omitempty"`
	Message    string              `json:"message"`
	Extensions map[string]any      `json:"extensions,omitempty"`
}

// Error is the message.
func (e *Error) Error() string { return e.Message }

// Errorf is an error of GitHub's type typ (NOT_FOUND, UNPROCESSABLE, ...).
func Errorf(typ, msg string) *Error { return &Error{Type: typ, Message: msg} }

// Prepare parses and validates a document and coerces its variables.
func Prepare(query, opName string, rawVars json.RawMessage) (*ast.QueryDocument, *ast.OperationDefinition, map[string]any, []*Error) {
	schema, err := Schema()
	if err != nil {
		return nil, nil, nil, []*Error{{Message: "schema: " + err.Error()}}
	}
	doc, perr := parser.ParseQuery(&ast.Source{Input: query})
	if perr != nil {
		return nil, nil, nil, fromGQLErrors(perr)
	}
	if errs := validator.ValidateWithRules(schema, doc, rules.NewDefaultRules()); len(errs) > 0 {
		return nil, nil, nil, fromGQLErrors(errs)
	}
	op := doc.Operations.ForName(opName)
	if op == nil {
		msg := "An operation name is required"
		if opName != "" {
			msg = "No operation named \"" + opName + "\""
		}
		return nil, nil, nil, []*Error{{Message: msg}}
	}
	vars := map[string]any{}
	if len(rawVars) > 0 && string(rawVars) != "null" {
		if err := json.Unmarshal(rawVars, &vars); err != nil {
			return nil, nil, nil, []*Error{{Message: "Variables are invalid JSON: " + err.Error()}}
		}
	}
	coerced, verr := validator.VariableValues(schema, op, vars)
	if verr != nil {
		return nil, nil, nil, fromGQLErrors(verr)
	}
	return doc, op, coerced, nil
}

// fromGQLErrors converts gqlparser errors to GitHub's error entries.
func fromGQLErrors(err error) []*Error {
	var list gqlerror.List
	var one *gqlerror.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = gqlerror.List{one}
	default:
		return []*Error{{Message: err.Error()}}
	}
	out := make([]*Error, 0, len(list))
	for _, e := range list {
		ge := &Error{Message: e.Message, Locations: e.Locations}
		for _, p := range e.Path {
			switch v := p.(type) {
			case ast.PathName:
				ge.Path = append(ge.Path, string(v))
			case ast.PathIndex:
				ge.Path = append(ge.Path, int(v))
			}
		}
		if e.Rule != "" {
			ge.Extensions = map[string]any{"code": e.Rule}
		}
		out = append(out, ge)
	}
	return out
}

// Write writes a GraphQL reply: HTTP 200, with "data" when the
// operation ran and "errors" when there are any.
func Write(w http.ResponseWriter, data any, errs []*Error) {
	out := orderedObj{}
	if data != nil {
		out = append(out, kv{"data", data})
	}
	if len(errs) > 0 {
		out = append(out, kv{"errors", errs})
	}
	b, err := json.Marshal(out)
	if err != nil {
		b = []byte(`{"errors":[{"message":"Something went wrong while executing your query."}]}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

type unmodelled struct{ typ, field string }

func (e *unmodelled) Error() string {
	return "githubtest: the fake does not model " + e.typ + "." + e.field
}

// Unserved answers a field the schema has but the fake does not model.
// The executor turns it into null where the field's type is nullable (as
// GitHub answers for data it does not have) and into one error naming the
// field where it is not.
func Unserved(typ, field string) error { return &unmodelled{typ: typ, field: field} }
