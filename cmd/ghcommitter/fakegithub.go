package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/spf13/cobra"
)

type fakeFlags struct {
	listen  string
	token   string
	latency time.Duration
	repos   []string
	seed    string
}

func newFakeGitHubCmd(e *env) *cobra.Command {
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
token is a flag here; never pass a real token on a command line.`,
		Example: `  # Serve two repositories on a free port, requiring a token:
  ghcommitter fake-github --listen 127.0.0.1:0 --repo acme/mono --repo acme/site --token test

  # In another shell, with the URL it printed:
  GH_TOKEN=test ghcommitter commit --api-url http://127.0.0.1:41234/ -R acme/mono -m hi README.md

  # Seed the repository with a local directory's files (modes and symlinks kept):
  ghcommitter fake-github --repo acme/mono --seed ./testdata/mono`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return f.run(cmd.Context(), e)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8080", "listen on `ADDR` (127.0.0.1:0 picks a free port)")
	fl.StringVar(&f.token, "token", "", "require this `TOKEN` (test-only fake: a flag is fine here); default: accept any")
	fl.DurationVar(&f.latency, "latency", 0, "add `DURATION` to every request, e.g. 5ms, so races happen")
	fl.StringArrayVar(&f.repos, "repo", nil, "create repository `OWNER/NAME` with an initial commit on main (repeatable)")
	fl.StringVar(&f.seed, "seed", "", "the initial commit of each --repo holds the files of `DIR`")
	return cmd
}

func (f *fakeFlags) run(ctx context.Context, e *env) error {
	if f.latency < 0 {
		return usageErrorf("", "--latency must not be negative")
	}
	if f.seed != "" && len(f.repos) == 0 {
		return usageErrorf("add --repo OWNER/NAME to seed", "--seed given without --repo")
	}
	var opts []githubtest.Option
	if f.token != "" {
		opts = append(opts, githubtest.WithToken(f.token))
	}
	if f.latency > 0 {
		opts = append(opts, githubtest.WithLatency(f.latency))
	}
	srv := githubtest.New(opts...)
	var seed []githubtest.File
	if f.seed != "" {
		var err error
		if seed, err = loadSeed(f.seed); err != nil {
			return usageErrorf("", "--seed: %v", err)
		}
	}
	for _, r := range f.repos {
		owner, name, err := committer.ParseRepo(r)
		if err != nil {
			return usageErrorf("", "--repo %q: %v", r, err)
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
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return usageErrorf("pick another address, or 127.0.0.1:0 for a free port", "--listen %s: %v", f.listen, err)
	}
	base := "http://" + reachable(ln.Addr()) + "/"
	fmt.Fprintln(e.stdout, base)
	fmt.Fprintf(e.stderr, "fake GitHub API at %s (repositories: %s); stop with Ctrl-C\n", base, orNone(f.repos))

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
