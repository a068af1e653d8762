package githubtest

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// GraphQL: the fake serves POST /graphql (github.com) and POST /api/graphql
// (GitHub Enterprise Server). Requests are parsed and validated by gqlparser
// against GitHub's whole published schema (internal/graphql embeds it), so
// every document valid on github.com is valid here. A small executor
// (graphql_exec.go) answers the validated document from the same
// repositories the REST routes serve. A field the fake does not model
// answers null where the schema lets it be null, as GitHub does for data it
// does not have; a non-null one fails with one error naming the field
// ("githubtest: the fake does not model Type.field"), and the null
// propagates to the nearest nullable parent as GraphQL requires.

const (
	docGraphQL        = "https://docs.github.com/graphql"
	routeGraphQL      = "POST /graphql"
	routeGraphQLGHES  = "POST /api/graphql"
	graphqlMaxRecords = 100 // first/last limit of every connection

	// GitHub fails createCommitOnBranch when the files add up to about
	// 40 MB ("40MiB will already fail": grafana/github-api-commit-action#66).
	// The fake fails from 40,000,000 bytes of decoded contents, with the
	// error GitHub gives for queries it gives up on; the exact threshold and
	// answer are a guess.
	graphqlMaxCommitBytes = 40_000_000
	// The fake reads at most this much of a request body (a guess: GitHub
	// documents no limit); past it, 502 as for requests GitHub gives up on.
	graphqlMaxBody = 128 << 20
)

// graphqlRoutes mounts the GraphQL endpoint at both paths.
func (s *Server) graphqlRoutes() {
	s.mux.HandleFunc(routeGraphQL, s.handleGraphQL)
	s.mux.HandleFunc(routeGraphQLGHES, s.handleGraphQL)
}

// gqlError is one entry of a GraphQL errors[] array as GitHub writes it:
// GitHub's own errors carry a top-level "type" (NOT_FOUND, STALE_DATA, ...);
// parse and validation errors carry "extensions" instead.
type gqlError struct {
	Type       string              `json:"type,omitempty"`
	Path       []any               `json:"path,omitempty"`
	Locations  []gqlerror.Location `json:"locations,omitempty"`
	Message    string              `json:"message"`
	Extensions map[string]any      `json:"extensions,omitempty"`
}

func (e *gqlError) Error() string { return e.Message }

func gqlErrorf(typ, msg string) *gqlError { return &gqlError{Type: typ, Message: msg} }

type graphqlRequest struct {
	Query         *string         `json:"query"`
	Variables     json.RawMessage `json:"variables"`
	OperationName string          `json:"operationName"`
}

func (s *Server) handleGraphQL(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, graphqlMaxBody+1))
	if err != nil {
		wire.WriteError(w, r, http.StatusBadRequest, "Problems parsing JSON", docGraphQL)
		return
	}
	if len(body) > graphqlMaxBody {
		wire.WriteError(w, r, http.StatusBadGateway, "Server Error", docGraphQL)
		return
	}
	var req graphqlRequest
	if err := json.Unmarshal(body, &req); err != nil {
		wire.WriteError(w, r, http.StatusBadRequest, "Problems parsing JSON", docGraphQL)
		return
	}
	if req.Query == nil {
		writeGraphQL(w, nil, []*gqlError{{Message: "A query attribute must be specified and must be a string."}})
		return
	}
	doc, op, vars, errs := prepareGraphQL(*req.Query, req.OperationName, req.Variables)
	if errs == nil {
		errs = previewErrors(r, doc, op)
	}
	if errs != nil {
		writeGraphQL(w, nil, errs)
		return
	}
	if op.Operation == ast.Mutation {
		markWrite(r)
	}
	if op.Operation == ast.Mutation && !s.chargeMutation(w, r) {
		return // over a rate limit: chargeMutation wrote the reply
	}
	x := &gqlExec{env: s, r: r, doc: doc, vars: vars}
	data := x.run(op, gqlQuery{}, gqlMutation{})
	writeGraphQL(w, data, x.errs)
}

// srvOf is the Server an operation runs against.
func srvOf(x *gqlExec) *Server { return x.env.(*Server) }

// prepareGraphQL parses and validates a document and coerces its variables.
func prepareGraphQL(query, opName string, rawVars json.RawMessage) (*ast.QueryDocument, *ast.OperationDefinition, map[string]any, []*gqlError) {
	schema, err := graphql.Schema()
	if err != nil {
		return nil, nil, nil, []*gqlError{{Message: "schema: " + err.Error()}}
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
		return nil, nil, nil, []*gqlError{{Message: msg}}
	}
	vars := map[string]any{}
	if len(rawVars) > 0 && string(rawVars) != "null" {
		if err := json.Unmarshal(rawVars, &vars); err != nil {
			return nil, nil, nil, []*gqlError{{Message: "Variables are invalid JSON: " + err.Error()}}
		}
	}
	coerced, verr := validator.VariableValues(schema, op, vars)
	if verr != nil {
		return nil, nil, nil, fromGQLErrors(verr)
	}
	return doc, op, coerced, nil
}

// fromGQLErrors converts gqlparser errors to GitHub's error entries.
func fromGQLErrors(err error) []*gqlError {
	var list gqlerror.List
	var one *gqlerror.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = gqlerror.List{one}
	default:
		return []*gqlError{{Message: err.Error()}}
	}
	out := make([]*gqlError, 0, len(list))
	for _, e := range list {
		ge := &gqlError{Message: e.Message, Locations: e.Locations}
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

// writeGraphQL writes a GraphQL reply: HTTP 200, with "data" when the
// operation ran and "errors" when there are any.
func writeGraphQL(w http.ResponseWriter, data any, errs []*gqlError) {
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
