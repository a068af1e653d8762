// Package target holds what the example programs under examples/ share
// besides the committer calls they demonstrate: their main function, the
// -repo, -branch and -from flags, and the repository they write to, which is
// acme/monorepo on an embedded fake GitHub (committer/githubtest) by default
// and a repository on GitHub when -repo names one.
package target

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/signal"
	"slices"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// The repository the embedded fake holds.
const (
	FakeOwner = "acme"
	FakeName  = "monorepo"
)

// DefaultAPI is the REST API root used against GitHub when GITHUB_API_URL
// is not set.
const DefaultAPI = "https://api.github.com/"

// RunFunc runs an example with the command-line arguments args, writing its
// output to stdout. It returns the embedded fake it ran against (nil against
// GitHub), so that tests can inspect the repository afterwards.
type RunFunc func(ctx context.Context, args []string, stdout io.Writer) (*githubtest.Server, error)

// Main runs the example called name with the process's arguments and
// standard output, under a context cancelled by an interrupt. On error it
// prints "name: error" to standard error and exits with status 1.
func Main(name string, run RunFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	_, err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Flags holds the flags every example takes.
type Flags struct {
	Repo   string // -repo: owner/name on GitHub; "" for the embedded fake
	Branch string // -branch: the branch to commit to
	From   string // -from: the branch to create Branch from when it does not exist
}

// DefineFlags defines -repo, -branch and -from on fs and returns where their
// values land after fs.Parse. repoNeeds says what -repo needs besides the
// repository (as "GITHUB_TOKEN"); branchUsage is -branch's usage line.
func DefineFlags(fs *flag.FlagSet, repoNeeds, branchUsage string) *Flags {
	f := new(Flags)
	fs.StringVar(&f.Repo, "repo", "", "`owner/name` on GitHub (needs "+repoNeeds+"); default: an embedded fake")
	fs.StringVar(&f.Branch, "branch", "main", branchUsage)
	fs.StringVar(&f.From, "from", "main", "branch to create -branch from when it does not exist")
	return f
}

// CommitOptions returns the options that make a commit to f.Branch create it
// from f.From when it does not exist: none when they name the same branch.
func (f *Flags) CommitOptions() []committer.CommitOption {
	if f.Branch == f.From {
		return nil
	}
	return []committer.CommitOption{committer.CreateBranchFrom(f.From)}
}

// Target is the repository an example writes to. Close it when done.
type Target struct {
	Owner, Name string
	// Where says where the repository is, for the example's output: "embedded
	// fake GitHub", or the API root on GitHub.
	Where string
	// Fake is the embedded fake GitHub; nil against GitHub.
	Fake *githubtest.Server
	// Committer commits to the repository. Connect sets it; Open leaves it
	// nil for the caller, who authenticates in its own way.
	Committer *committer.Committer

	api   string
	close func()
}

// Open returns the repository repo ("owner/name") on GitHub, at the API root
// in GITHUB_API_URL (DefaultAPI if unset), or, when repo is "", acme/monorepo
// on an embedded fake GitHub served on a local httptest server.
func Open(repo string) (*Target, error) {
	if repo != "" {
		owner, name, err := committer.ParseRepo(repo)
		if err != nil {
			return nil, err
		}
		api := os.Getenv("GITHUB_API_URL")
		if api == "" {
			api = DefaultAPI
		}
		return &Target{Owner: owner, Name: name, Where: api, api: api, close: func() {}}, nil
	}
	fake := githubtest.New()
	if err := fake.CreateRepo(FakeOwner, FakeName, true); err != nil {
		return nil, err
	}
	hs := httptest.NewServer(fake)
	return &Target{Owner: FakeOwner, Name: FakeName, Where: "embedded fake GitHub", Fake: fake, api: hs.URL, close: hs.Close}, nil
}

// Connect is Open followed by a Committer made with opts that, on GitHub,
// authenticates with the token in GITHUB_TOKEN. The embedded fake needs no
// token.
func Connect(ctx context.Context, repo string, opts ...committer.Option) (*Target, error) {
	var auth []ghclient.Option
	if repo != "" {
		token := os.Getenv("GITHUB_TOKEN")
		if token == "" {
			return nil, errors.New("-repo needs a token in GITHUB_TOKEN")
		}
		auth = append(auth, ghclient.WithToken(token))
	}
	t, err := Open(repo)
	if err != nil {
		return nil, err
	}
	gh, err := t.Client(ctx, auth...)
	if err == nil {
		t.Committer, err = committer.New(t.Owner, t.Name, append([]committer.Option{committer.WithHTTPClient(gh.Client())}, opts...)...)
	}
	if err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// Client returns a GitHub client for t's API root, made by ghclient.New with
// opts (authentication, say) followed by the base URL.
func (t *Target) Client(ctx context.Context, opts ...ghclient.Option) (*github.Client, error) {
	opts = append(slices.Clip(opts), ghclient.WithBaseURL(t.api))
	if t.Fake != nil {
		// The embedded fake has no rate limits to stay under.
		opts = append(opts, ghclient.WithRateLimits(ghclient.RateLimits{Pacing: &ghclient.Pacing{}}))
	}
	return ghclient.New(ctx, opts...)
}

// Close stops the embedded fake's server, if any.
func (t *Target) Close() { t.close() }
