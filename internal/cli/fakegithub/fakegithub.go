// Package fakegithub is the fake-github command: the stateful fake of
// GitHub (committer/githubtest) served on a port.
package fakegithub

import (
	"context"
	"errors"
	"fmt"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"math"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/spf13/cobra"
)

type fakeFlags struct {
	listen      string
	token       string
	latency     time.Duration
	repos       []string
	emptyRepos  []string
	seed        string
	limits      string
	limitsScale float64
	limitsSeed  uint64
	treeEntries int
	treeBytes   int64
	sshKeys     []string
	mergeFlags
	checkFlags // checks.go
}

// NewCmd is the fake-github command.
func NewCmd(e *cmdutil.Env) *cobra.Command {
	f := &fakeFlags{}
	cmd := &cobra.Command{
		Use:   "fake-github",
		Short: "Serve an in-memory fake of GitHub's REST API, for trying ghcommitter and for tests",
		Long: `fake-github serves the stateful, in-memory fake of GitHub's REST API that
ghcommitter's own tests use (git data, refs, branches, contents). State lives
in memory and is gone when it stops.

The first line on stdout is the API base URL, ending in "/": pass it to
--api-url. It runs until interrupted (SIGINT or SIGTERM), then exits 0.

--token makes the fake require that token. This is a test-only fake, so the
token is a flag here; never pass a real token on a command line.

--limits github turns on GitHub's per-token rate limits, which then emerge
from load: 5,000 requests an hour; 80 content-creating requests a minute and
500 an hour; 900 points a minute per endpoint (GET 1, writes 5); 100
concurrent requests. Requests over them get GitHub's 403 or 429 replies,
with retry-after on some (drawn from --limits-seed). --limits-scale F makes
every window F times shorter (the counts stay), so a run finishes quickly;
retry-after and x-ratelimit-reset stay real time (retry-after rounded up to
whole seconds, at least 1), to be honoured as sent.
Counters per token (writes refused, writes sent inside a retry-after the
fake had told that token, and inside one told to the same client, named by
an X-Githubtest-Client request header) are served at GET /_githubtest/limits
and printed to stderr on exit.

Create-tree requests with more than --tree-timeout-entries entries or a body
over --tree-timeout-bytes get GitHub's "Sorry, your request timed out" 422,
as on github.com (0 turns a measure off).

--ssh-signing-key EMAIL=FILE registers the public key in FILE (a .pub, as
ssh-keygen writes it) as an SSH signing key of the user whose verified email
is EMAIL: commits signed with its private key (ghcommitter --sign-key, git's
gpg.format=ssh) by that committer are Verified.`,
		Example: `  # Serve two repositories on a free port, requiring a token:
  ghcommitter fake-github --listen 127.0.0.1:0 --repo acme/mono --repo acme/site --token test

  # In another shell, with the URL it printed:
  GH_TOKEN=test ghcommitter commit --api-url http://127.0.0.1:41234/ -R acme/mono -m hi README.md

  # Seed the repository with a local directory's files (modes and symlinks kept):
  ghcommitter fake-github --repo acme/mono --seed ./testdata/mono

  # GitHub's rate limits, with every window 60 times shorter (a minute is 1 s):
  ghcommitter fake-github --repo acme/mono --limits github --limits-scale 60

  # Verify commits Jane signs with her SSH key (ghcommitter --sign-key ~/.ssh/id_ed25519):
  ghcommitter fake-github --repo acme/mono --ssh-signing-key jane@example.com=$HOME/.ssh/id_ed25519.pub

  # An empty repository (no commits), as GitHub creates without auto_init:
  ghcommitter fake-github --empty-repo acme/new`,
		Args: cobra.NoArgs,
		RunE: cmdutil.RunE(func(cmd *cobra.Command, _ []string) error {
			return f.run(cmd.Context(), e)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8080", "listen on `ADDR` (127.0.0.1:0 picks a free port)")
	fl.StringVar(&f.token, "token", "", "require this `TOKEN` (test-only fake: a flag is fine here); default: accept any")
	fl.DurationVar(&f.latency, "latency", 0, "add `DURATION` to every request, e.g. 5ms, so races happen")
	fl.StringArrayVar(&f.repos, "repo", nil, "create repository `OWNER/NAME` with an initial commit on main (repeatable)")
	fl.StringVar(&f.seed, "seed", "", "the initial commit of each --repo holds the files of `DIR`")
	fl.StringArrayVar(&f.emptyRepos, "empty-repo", nil, "create empty repository `OWNER/NAME`, no commits (repeatable)")
	fl.StringVar(&f.limits, "limits", "none", "rate limits: github (emergent per-token limits) or none")
	fl.Float64Var(&f.limitsScale, "limits-scale", 1, "with --limits github, make every window `F` times shorter")
	fl.Uint64Var(&f.limitsSeed, "limits-seed", 1, "with --limits github, `SEED` of the 403/429 and retry-after choices")
	fl.IntVar(&f.treeEntries, "tree-timeout-entries", githubtest.DefaultTreeTimeoutEntries,
		"create-tree requests with more than `N` entries of inline content time out (422); 0: never")
	fl.Int64Var(&f.treeBytes, "tree-timeout-bytes", githubtest.DefaultTreeTimeoutBytes,
		"create-tree requests with more than `N` bytes of inline content time out (422); 0: never")
	f.mergeFlags.add(fl)
	f.checkFlags.add(fl)
	fl.StringArrayVar(&f.sshKeys, "ssh-signing-key", nil, "register the SSH public key in `EMAIL=FILE` as a signing key of EMAIL's user (repeatable)")
	return cmd
}

func (f *fakeFlags) run(ctx context.Context, e *cmdutil.Env) error {
	if f.latency < 0 {
		return cmdutil.UsageErrorf("", "--latency must not be negative")
	}
	if f.seed != "" && len(f.repos) == 0 {
		return cmdutil.UsageErrorf("add --repo OWNER/NAME to seed", "--seed given without --repo")
	}
	opts, err := f.options()
	if err != nil {
		return err
	}
	srv := githubtest.New(opts...)
	if err := f.createRepos(srv); err != nil {
		return err
	}
	if err := f.addMergeRules(srv); err != nil {
		return err
	}
	if err := f.addCheckRules(srv); err != nil {
		return err
	}
	if err := f.addSSHKeys(srv); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return cmdutil.UsageErrorf("pick another address, or 127.0.0.1:0 for a free port", "--listen %s: %v", f.listen, err)
	}
	base := "http://" + reachable(ln.Addr()) + "/"
	fmt.Fprintln(e.Stdout, base)
	fmt.Fprintf(e.Stderr, "fake GitHub API at %s (repositories: %s); stop with Ctrl-C\n", base,
		orNone(append(append([]string(nil), f.repos...), f.emptyRepos...)))
	defer f.printLimitStats(e, srv)
	return serveUntilDone(ctx, ln, srv)
}

// options turns the flags into server options.
func (f *fakeFlags) options() ([]githubtest.Option, error) {
	var opts []githubtest.Option
	if f.token != "" {
		opts = append(opts, githubtest.WithToken(f.token))
	}
	if f.latency > 0 {
		opts = append(opts, githubtest.WithLatency(f.latency))
	}
	if f.treeEntries < 0 || f.treeBytes < 0 {
		return nil, cmdutil.UsageErrorf("", "--tree-timeout-entries and --tree-timeout-bytes must not be negative")
	}
	opts = append(opts, githubtest.WithTreeTimeout(f.treeEntries, f.treeBytes))
	ms, err := f.mergeSettings()
	if err != nil {
		return nil, err
	}
	if f.mergeabilityLag < 0 {
		return nil, cmdutil.UsageErrorf("", "--mergeability-lag must not be negative")
	}
	ms.AllowAutoMerge = f.allowAutoMerge
	opts = append(opts, githubtest.WithMergeSettings(ms), githubtest.WithMergeabilityLag(f.mergeabilityLag))
	checks, err := f.autoCheckOptions()
	if err != nil {
		return nil, err
	}
	opts = append(opts, checks...)
	if f.limitsScale <= 0 || math.IsInf(f.limitsScale, 0) || math.IsNaN(f.limitsScale) {
		return nil, cmdutil.UsageErrorf("", "--limits-scale must be a positive number, got %v", f.limitsScale)
	}
	switch f.limits {
	case "none":
	case "github":
		l := githubtest.GitHubLimits
		l.Scale, l.Seed = f.limitsScale, f.limitsSeed
		opts = append(opts, githubtest.WithLimits(l))
	default:
		return nil, cmdutil.UsageErrorf("use --limits github or --limits none", "--limits %q: unknown", f.limits)
	}
	return opts, nil
}

// printLimitStats writes the rate-limit counters of every token to stderr.
func (f *fakeFlags) printLimitStats(e *cmdutil.Env, srv *githubtest.Server) {
	stats := srv.AllLimitStats()
	ids := make([]string, 0, len(stats))
	for id := range stats {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		st := stats[id]
		fmt.Fprintf(e.Stderr, "token %s: %d requests, %d writes, %d limited (%d writes; %d primary, %d secondary), "+
			"%d writes inside a retry-after (%d inside one told to the same X-Githubtest-Client), "+
			"%d within a minute of a bare secondary limit\n",
			id, st.Requests, st.Writes, st.Limited, st.WritesLimited, st.Primary, st.Secondary,
			st.WritesInRetryAfter, st.WritesInOwnRetryAfter, st.WritesAfterBare)
	}
}

// createRepos creates the --repo and --empty-repo repositories.
func (f *fakeFlags) createRepos(srv *githubtest.Server) error {
	var seed []githubtest.File
	if f.seed != "" {
		var err error
		if seed, err = loadSeed(f.seed); err != nil {
			return cmdutil.UsageErrorf("", "--seed: %v", err)
		}
	}
	for _, r := range f.repos {
		owner, name, err := committer.ParseRepo(r)
		if err != nil {
			return cmdutil.UsageErrorf("", "--repo %q: %v", r, err)
		}
		if len(seed) > 0 {
			_, err = srv.Seed(owner, name, "main", "Initial commit", seed...)
		} else {
			err = srv.CreateRepo(owner, name, true)
		}
		if err != nil {
			return fmt.Errorf("create %s: %w", r, err)
		}
	}
	for _, r := range f.emptyRepos {
		owner, name, err := committer.ParseRepo(r)
		if err != nil {
			return cmdutil.UsageErrorf("", "--empty-repo %q: %v", r, err)
		}
		if err := srv.CreateRepo(owner, name, false); err != nil {
			return cmdutil.UsageErrorf("", "--empty-repo %s: %v", r, err)
		}
	}
	return nil
}

// addSSHKeys registers the --ssh-signing-key keys.
func (f *fakeFlags) addSSHKeys(srv *githubtest.Server) error {
	for _, kv := range f.sshKeys {
		email, file, ok := strings.Cut(kv, "=")
		if !ok || email == "" || file == "" {
			return cmdutil.UsageErrorf("give EMAIL=FILE, FILE a public key (.pub)", "--ssh-signing-key %q: no EMAIL=FILE", kv)
		}
		key, err := os.ReadFile(file)
		if err != nil {
			return cmdutil.UsageErrorf("", "--ssh-signing-key: %v", err)
		}
		if err := srv.AddSSHSigningKey(string(key), email); err != nil {
			return cmdutil.UsageErrorf("give the public key (.pub), never the private one", "--ssh-signing-key %s: %v", file, err)
		}
	}
	return nil
}

// serveUntilDone serves srv on ln until ctx is done, then shuts down.
func serveUntilDone(ctx context.Context, ln net.Listener, srv http.Handler) error {
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shut down: %w", err)
	}
	return nil
}

// loadSeed reads a local directory as fake files, modes and symlinks kept.
func loadSeed(dir string) ([]githubtest.File, error) {
	local, err := committer.LoadDir(dir, committer.LoadOptions{})
	if err != nil {
		return nil, err
	}
	files := make([]githubtest.File, 0, len(local))
	for _, lf := range local {
		data := lf.Data
		if data == nil && lf.LocalPath != "" {
			if data, err = os.ReadFile(lf.LocalPath); err != nil {
				return nil, err
			}
		}
		files = append(files, githubtest.File{Path: lf.Path, Content: data, Mode: string(lf.Mode)})
	}
	return files, nil
}

// reachable turns a listener address into host:port a local client can
// dial: an unspecified host (0.0.0.0, ::) becomes loopback.
func reachable(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	ip := ta.IP
	if ip == nil || ip.IsUnspecified() {
		if ip != nil && ip.To4() == nil {
			ip = net.IPv6loopback
		} else {
			ip = net.IPv4(127, 0, 0, 1)
		}
	}
	return net.JoinHostPort(ip.String(), fmt.Sprint(ta.Port))
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
