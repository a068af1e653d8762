package githubtest

import (
	"crypto/rsa"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/limits"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rest"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/sign"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// Server is a stateful, in-memory fake of the parts of GitHub's REST API that
// ghcommitter uses. It implements http.Handler and answers both at "/" and at
// "/api/v3/" (the GitHub Enterprise Server prefix).
type Server struct {
	token      string
	latency    atomic.Int64
	now        func() time.Time
	skew       atomic.Int64 // Pass's, added to now
	tokenTTL   time.Duration
	mux        *routeMux
	reqSeq     atomic.Int64
	rulesetSeq atomic.Int64 // AddRuleset's ids
	lim        limits.Limiter
	treeMax    rest.TreeLimits
	rest       *rest.Handler // the git data routes

	mu            sync.Mutex // guards the fields below
	repos         map[string]*state.Repo
	nextID        int64
	faults        []*faultEntry
	apps          map[int64]*rsa.PublicKey
	installs      map[int64]*installation
	tokens        map[string]*instToken
	issued        map[int64]int
	moved         map[string]string  // old "owner/name" key -> new key (RenameRepo)
	gpgKeys       openpgp.EntityList // AddGPGKey (keys.go)
	mergeDefaults *MergeSettings     // WithMergeSettings (merge.go)
	mergeLag      time.Duration      // WithMergeabilityLag (merge.go)
	sshKeys       []sign.SSHKey      // AddSSHSigningKey (keys.go)
	autoChecks    []state.AutoCheck  // WithAutoCheck (checks.go)

	logMu sync.Mutex
	log   []Request

	contentsRaces rest.Races // routes_contents_write.go
	mutationRaces rest.Races // MoveBranchBeforeNextMutation (faults.go)
}

// Option configures a Server.
type Option func(*Server)

// WithToken makes the server require "Authorization: token T" or
// "Bearer T" (installation tokens the server issued are accepted too).
// Missing or wrong credentials get 401 Bad credentials. The default accepts
// any token, or none.
func WithToken(token string) Option { return func(s *Server) { s.token = token } }

// WithLatency adds d to every request. The default is no latency.
func WithLatency(d time.Duration) Option { return func(s *Server) { s.latency.Store(int64(d)) } }

// WithNow sets the clock used for dates, rate-limit resets and token expiry.
// The default is time.Now.
func WithNow(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// WithInstallationTokenTTL sets how long installation tokens issued by
// POST /app/installations/{id}/access_tokens stay valid. The default is 1h.
func WithInstallationTokenTTL(d time.Duration) Option {
	return func(s *Server) { s.tokenTTL = d }
}

// New returns a fake GitHub with no repositories.
func New(opts ...Option) *Server {
	s := &Server{
		now:      time.Now,
		tokenTTL: time.Hour,
		repos:    map[string]*state.Repo{},
		apps:     map[int64]*rsa.PublicKey{},
		installs: map[int64]*installation{},
		tokens:   map[string]*instToken{},
		issued:   map[int64]int{},
		moved:    map[string]string{},
		treeMax:  defaultTreeLimits,
		nextID:   1000,
	}
	for _, o := range opts {
		o(s)
	}
	clock := s.now
	s.now = func() time.Time { return clock().Add(time.Duration(s.skew.Load())) }
	s.rest = &rest.Handler{Now: s.now, TreeMax: s.treeMax, VerifySig: s.verifyClientSignature, ContentsRaces: &s.contentsRaces}
	s.mux = &routeMux{ServeMux: http.NewServeMux()}
	s.routes()
	return s
}

// Pass lets d go by on the fake's clock at once (on top of WithNow's): the
// commits made before look d older in the replies that date them and in
// the Date header, and every window the fake keeps by its clock (rate
// limits, token lifetimes) moves on by d. A test seeds a branch, then lets
// time pass, to commit to a branch nobody else just committed to.
func (s *Server) Pass(d time.Duration) { s.skew.Add(int64(d)) }

// SetLatency changes the latency added to every request.
func (s *Server) SetLatency(d time.Duration) { s.latency.Store(int64(d)) }

// TestServer is a Server listening on a local httptest server.
type TestServer struct {
	*Server
	URL    string         // base URL, ends in "/"
	Client *github.Client // go-github client pointed at URL (with the token of WithToken, if any)
}

// NewServer starts a Server on an httptest server that t.Cleanup closes.
func NewServer(t testing.TB, opts ...Option) *TestServer {
	t.Helper()
	s := New(opts...)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	u := hs.URL + "/"
	c := github.NewClient(hs.Client())
	if s.token != "" {
		c = c.WithAuthToken(s.token)
	}
	base, _ := url.Parse(u)
	c.BaseURL = base
	c.UploadURL = base
	return &TestServer{Server: s, URL: u, Client: c}
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	prefix := ""
	if strings.HasPrefix(r.URL.Path, "/api/v3/") || r.URL.Path == "/api/v3" {
		prefix = "/api/v3"
		r2 := new(http.Request)
		*r2 = *r
		u := *r.URL
		u.Path = strings.TrimPrefix(r.URL.Path, "/api/v3")
		if u.Path == "" {
			u.Path = "/"
		}
		u.RawPath = strings.TrimPrefix(r.URL.RawPath, "/api/v3")
		r2.URL = &u
		r = r2
	}
	if p, ok := s.repositoryPath(r.URL.EscapedPath()); ok {
		r = withEscapedPath(r, p)
	}
	r = r.WithContext(wire.WithPrefix(r.Context(), prefix))
	s.serve(w, r)
}

func (s *Server) sleep(r *http.Request, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
	}
}

// withEscapedPath returns a shallow copy of r whose URL path is escaped.
func withEscapedPath(r *http.Request, escaped string) *http.Request {
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	if p, err := url.PathUnescape(escaped); err == nil {
		u.Path, u.RawPath = p, escaped
		if u.EscapedPath() == p {
			u.RawPath = ""
		}
	}
	r2.URL = &u
	return r2
}
