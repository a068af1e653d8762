package resolve

import (
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rest"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// GraphQL: the fake serves POST /graphql (github.com) and POST /api/graphql
// (GitHub Enterprise Server). Requests are parsed and validated by gqlparser
// against GitHub's whole published schema (internal/graphql embeds it), so
// every document valid on github.com is valid here. A small executor
// (package graphql's Exec) answers the validated document from the same
// repositories the REST routes serve. A field the fake does not model
// answers null where the schema lets it be null, as GitHub does for data it
// does not have; a non-null one fails with one error naming the field
// ("githubtest: the fake does not model Type.field"), and the null
// propagates to the nearest nullable parent as GraphQL requires.

const (
	docGraphQL = "https://docs.github.com/graphql"
	// RouteGraphQL is the endpoint's route on github.com.
	RouteGraphQL = "POST /graphql"
	// RouteGraphQLGHES is the endpoint's route on GitHub Enterprise Server.
	RouteGraphQLGHES  = "POST /api/graphql"
	graphqlMaxRecords = 100 // first/last limit of every connection

	// MaxCommitBytes is where the fake fails createCommitOnBranch. GitHub
	// fails it when the files add up to about 40 MB ("40MiB will already fail": grafana/github-api-commit-action#66).
	// The fake fails from 40,000,000 bytes of decoded contents, with the
	// error GitHub gives for queries it gives up on; the exact threshold and
	// answer are a guess.
	MaxCommitBytes = 40_000_000
	// The fake reads at most this much of a request body (a guess: GitHub
	// documents no limit); past it, 502 as for requests GitHub gives up on.
	graphqlMaxBody = 128 << 20
)

// Env is what the GraphQL endpoint and its resolvers use of the Server.
type Env struct {
	Now       func() time.Time
	Repo      func(owner, name string) *state.Repo // nil when there is none
	MovedRepo func(owner, name string) *state.Repo // follows renames, nil when none
	// ChargeMutation is called once a request is known to be a mutation;
	// false when it wrote a rate-limit reply and the handler must stop.
	ChargeMutation func(w http.ResponseWriter, r *http.Request) bool
	// MarkWrite records that the request is content-creating.
	MarkWrite func(r *http.Request)
	// MutationRaces runs the hooks of MoveBranchBeforeNextMutation.
	MutationRaces *rest.Races
}

type graphqlRequest struct {
	Query         *string         `json:"query"`
	Variables     json.RawMessage `json:"variables"`
	OperationName string          `json:"operationName"`
}

func (s *Env) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
		graphql.Write(w, nil, []*graphql.Error{{Message: "A query attribute must be specified and must be a string."}})
		return
	}
	doc, op, vars, errs := graphql.Prepare(*req.Query, req.OperationName, req.Variables)
	if errs == nil {
		errs = previewErrors(r, doc, op)
	}
	if errs != nil {
		graphql.Write(w, nil, errs)
		return
	}
	if op.Operation == ast.Mutation {
		s.MarkWrite(r)
	}
	if op.Operation == ast.Mutation && !s.ChargeMutation(w, r) {
		return // over a rate limit: chargeMutation wrote the reply
	}
	x := &graphql.Exec{Env: s, R: r, Doc: doc, Vars: vars}
	data := x.Run(op, gqlQuery{}, gqlMutation{})
	graphql.Write(w, data, x.Errs)
}

// srvOf is the Server an operation runs against.
func srvOf(x *graphql.Exec) *Env { return x.Env.(*Env) }
