package githubtest

import (
	"net/http"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql/resolve"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// routeMux is a ServeMux that remembers its patterns (for the schema
// test's coverage check).
type routeMux struct {
	*http.ServeMux
	patterns []string
}

func (m *routeMux) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.HandleFunc(pattern, h)
}

func (m *routeMux) Handle(pattern string, h http.Handler) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.Handle(pattern, h)
}

// repoHandler is a handler for /repos/{owner}/{repo}/... routes.
type repoHandler func(w http.ResponseWriter, r *http.Request, rp *state.Repo)

func (s *Server) routes() {
	m := s.mux
	rt := s.rest
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", wire.DocRoot)
	})
	m.HandleFunc("POST /user/repos", s.handleCreateRepo)
	m.HandleFunc("POST /orgs/{org}/repos", s.handleCreateRepo)
	m.HandleFunc("GET /rate_limit", s.handleRateLimit)
	m.HandleFunc(routeLimitStats, s.handleLimitStats)
	m.HandleFunc("POST /app/installations/{installation_id}/access_tokens", s.handleAccessToken)
	s.graphqlRoutes()

	const rr = "/repos/{owner}/{repo}"
	s.handleRepo("GET "+rr, s.handleGetRepo)
	s.handleRepo("DELETE "+rr, s.handleDeleteRepo)
	s.handleRepo("GET "+rr+"/installation", s.handleRepoInstallation)

	s.handleRepo("GET "+rr+"/git/ref/{ref...}", s.rest.GetRef)
	s.handleRepo("GET "+rr+"/git/refs", s.rest.ListRefs)
	s.handleRepo("GET "+rr+"/git/refs/{ref...}", s.rest.ListRefs)
	s.handleRepo("GET "+rr+"/git/matching-refs/{ref...}", s.rest.MatchingRefs)
	s.handleRepo("POST "+rr+"/git/refs", s.rest.CreateRef)
	s.handleRepo("PATCH "+rr+"/git/refs/{ref...}", s.rest.UpdateRef)
	s.handleRepo("DELETE "+rr+"/git/refs/{ref...}", s.rest.DeleteRef)

	s.handleRepo("POST "+rr+"/git/blobs", s.rest.CreateBlob)
	s.handleRepo("GET "+rr+"/git/blobs/{sha}", s.rest.GetBlob)
	s.handleRepo("POST "+rr+"/git/trees", s.rest.CreateTree)
	s.handleRepo("GET "+rr+"/git/trees/{sha...}", s.rest.GetTree)
	s.handleRepo("POST "+rr+"/git/commits", s.rest.CreateCommit)
	s.handleRepo("GET "+rr+"/git/commits/{sha}", s.rest.GetCommit)
	s.handleRepo("POST "+rr+"/git/tags", s.rest.CreateTag)
	s.handleRepo("GET "+rr+"/git/tags/{sha}", s.rest.GetTag)

	s.handleRepo("GET "+rr+"/branches/{branch...}", rt.GetBranch)
	s.handleRepo("POST "+rr+"/branches/{branch...}", rt.BranchPost)
	s.handleRepo("GET "+rr+"/rules/branches/{branch...}", rt.BranchRules)
	s.handleRepo("GET "+rr+"/compare/{basehead...}", rt.Compare)
	s.handleRepo("GET "+rr+"/commits", rt.ListCommits)
	s.handleRepo("GET "+rr+"/commits/{ref...}", rt.RepoCommit)

	s.handleRepo("GET "+rr+"/contents", rt.GetContent)
	s.handleRepo("GET "+rr+"/contents/{path...}", rt.GetContent)
	s.handleRepo("PUT "+rr+"/contents/{path...}", rt.PutContent)
	s.handleRepo("DELETE "+rr+"/contents/{path...}", rt.DeleteContent)

	s.handleRepo("POST "+rr+"/pulls", rt.CreatePull)
	s.handleRepo("GET "+rr+"/pulls", rt.ListPulls)
	s.handleRepo("GET "+rr+"/pulls/{number}", rt.GetPull)
	s.handleRepo("PATCH "+rr+"/pulls/{number}", rt.UpdatePull)
	s.mergeRoutes(rr)
	s.checkRoutes(rr) // routes_checks.go
	s.handleRepo("POST "+rr+"/pulls/{number}/requested_reviewers", rt.RequestedReviewers)
	s.handleRepo("DELETE "+rr+"/pulls/{number}/requested_reviewers", rt.RequestedReviewers)
	s.handleRepo("POST "+rr+"/issues/{number}/labels", rt.IssueLabels)
	s.handleRepo("PUT "+rr+"/issues/{number}/labels", rt.IssueLabels)
	s.handleRepo("DELETE "+rr+"/issues/{number}/labels/{name}", rt.RemoveIssueLabel)
	s.handleRepo("POST "+rr+"/issues/{number}/assignees", rt.Assignees)
	s.handleRepo("DELETE "+rr+"/issues/{number}/assignees", rt.Assignees)
	s.handleRepo("POST "+rr+"/labels", s.handleCreateLabel)
}

func (s *Server) handleRepo(pattern string, h repoHandler) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		rp := s.getRepo(r.PathValue("owner"), r.PathValue("repo"))
		if rp == nil {
			s.repoGone(w, r)
			return
		}
		h(w, r, rp)
	})
}

// Documentation URLs used in error bodies.
const (
	docCreateRepo = "https://docs.github.com/rest/repos/repos#create-a-repository-for-the-authenticated-user"
	docSecondary  = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	docPrimary    = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-rate-limits"
	docApps       = "https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app"
)

type obj = map[string]any

// graphqlRoutes mounts the GraphQL endpoint at both paths.
func (s *Server) graphqlRoutes() {
	g := &resolve.Env{
		Now: s.now, Repo: s.getRepo, MovedRepo: s.movedRepo,
		ChargeMutation: s.chargeMutation, MarkWrite: markWrite, MutationRaces: &s.mutationRaces,
	}
	s.mux.HandleFunc(resolve.RouteGraphQL, g.ServeHTTP)
	s.mux.HandleFunc(resolve.RouteGraphQLGHES, g.ServeHTTP)
}

// PreviewUpdateRefs is the Accept media type that enables updateRefs.
const PreviewUpdateRefs = "application/vnd.github.update-refs-preview+json"

// (resolve.PreviewUpdateRefs holds the same value; the updateRefs tests send
// PreviewUpdateRefs, so the two cannot part.)
