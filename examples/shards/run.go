package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/committer/turns/kubelease/kubetest"
)

// runEnv is one run: its scratch directory, the fake GitHub, the API
// server (-turns lease) and the binary the shards run.
type runEnv struct {
	cfg       config
	log       io.Writer
	work, exe string
	token     string
	fake      *githubtest.Server
	ts        *httptest.Server
	kube      *kubetest.Server
	ns        string
}

// run starts the API server (-turns lease) and the fake, runs the shard
// processes, and reports what the fake counted and the shards said,
// every landed promotion checked on the branch.
func run(ctx context.Context, cfg config, log io.Writer) (*report, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	work, err := os.MkdirTemp("", "ghcommitter-shards-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(work) }()
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	e := &runEnv{cfg: cfg, log: log, work: work, exe: exe}
	if cfg.turns == turnsLease {
		if err := e.startKube(ctx); err != nil {
			return nil, err
		}
		defer e.kube.Stop()
	}
	if err := e.startFake(); err != nil {
		return nil, err
	}
	defer e.ts.Close()
	start := time.Now()
	var results []shardResult
	var kill *killReport
	if cfg.kill {
		results, kill, err = e.runKill(ctx)
	} else {
		results, err = e.runAll(ctx)
	}
	if err != nil {
		return nil, err
	}
	rep := e.summarize(results, time.Since(start))
	rep.Kill = kill
	if e.kube != nil {
		l, err := e.lease(ctx)
		if err != nil {
			return rep, err
		}
		rep.FinalHolder = holderOf(l)
	}
	return rep, e.verify(rep)
}

// startKube starts etcd and kube-apiserver (trying other ports when a
// port chosen free was taken meanwhile), makes the Leases' namespace and
// writes the shards' kubeconfig.
func (e *runEnv) startKube(ctx context.Context) error {
	s, err := kubetest.Start(ctx)
	for try := 1; try < 3 && err != nil && !errors.Is(err, kubetest.ErrNoBinaries); try++ {
		fmt.Fprintf(e.log, "shards: starting the API server again: %v\n", err)
		s, err = kubetest.Start(ctx)
	}
	if err != nil {
		return err
	}
	e.kube = s
	if e.ns, err = s.Namespace(ctx, "shards"); err != nil {
		s.Stop()
		return err
	}
	if err := writeKubeconfig(filepath.Join(e.work, "kubeconfig"), s.Config); err != nil {
		s.Stop()
		return err
	}
	fmt.Fprintf(e.log, "shards: API server at %s, Leases in namespace %s\n", s.Config.Host, e.ns)
	return nil
}

// startFake starts the fake GitHub on loopback with github.com's limits,
// every window cfg.scale times shorter, and writes its token to a file.
func (e *runEnv) startFake() error {
	var b [16]byte
	_, _ = rand.Read(b[:])
	e.token = hex.EncodeToString(b[:])
	if err := os.WriteFile(filepath.Join(e.work, "token"), []byte(e.token), 0o600); err != nil {
		return err
	}
	l := githubtest.GitHubLimits
	l.Scale, l.Seed = e.cfg.scale, 1
	e.fake = githubtest.New(githubtest.WithLatency(e.cfg.latency), githubtest.WithToken(e.token), githubtest.WithLimits(l))
	if _, err := e.fake.Seed(owner, repoName, branch, "Seed the repository",
		githubtest.File{Path: indexPath, Content: []byte("promotions:\n")},
		githubtest.File{Path: "README.md", Content: []byte("# deploy\n")}); err != nil {
		return fmt.Errorf("seeding the fake: %w", err)
	}
	e.ts = httptest.NewServer(e.fake)
	fmt.Fprintf(e.log, "shards: fake GitHub at %s (limits scaled %g×)\n", e.ts.URL, e.cfg.scale)
	return nil
}

// runAll starts every shard at once and waits for them.
func (e *runEnv) runAll(ctx context.Context) ([]shardResult, error) {
	procs := make([]*shardProc, e.cfg.shards)
	for i := range procs {
		p, err := e.start(ctx, i, false)
		if err != nil {
			killAll(procs)
			return nil, err
		}
		procs[i] = p
	}
	return waitAll(procs)
}

// shardProc is a running shard process.
type shardProc struct {
	index  int
	cmd    *exec.Cmd
	events chan string // the lines it says, but its result
	done   chan struct{}
	res    *shardResult
	err    error
	stderr bytes.Buffer
}

// start runs shard i as a process of its own, on a "machine" of its own:
// its own HOME and XDG_CACHE_HOME under the run's directory.
func (e *runEnv) start(ctx context.Context, i int, hang bool) (*shardProc, error) {
	machine := filepath.Join(e.work, fmt.Sprintf("machine-%d", i))
	home, cache := filepath.Join(machine, "home"), filepath.Join(machine, "cache")
	for _, d := range []string{home, cache} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	args := []string{shardCommand, "-index", strconv.Itoa(i), "-stages", strconv.Itoa(e.cfg.stages),
		"-api", e.ts.URL + "/", "-token-file", filepath.Join(e.work, "token"), "-turns", e.cfg.turns,
		"-scale", strconv.FormatFloat(e.cfg.scale, 'g', -1, 64), "-lease", e.cfg.lease.String()}
	if e.kube != nil {
		args = append(args, "-kubeconfig", filepath.Join(e.work, "kubeconfig"), "-namespace", e.ns)
	}
	if hang {
		args = append(args, "-hang")
	}
	if e.cfg.verbose {
		args = append(args, "-v")
	}
	p := &shardProc{index: i, events: make(chan string, 16), done: make(chan struct{})}
	p.cmd = exec.CommandContext(ctx, e.exe, args...) // #nosec G204 -- this program's own binary
	p.cmd.Env = machineEnv(home, cache)
	p.cmd.Stderr = &p.stderr
	if e.cfg.verbose {
		p.cmd.Stderr = io.MultiWriter(&p.stderr, e.log)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go p.read(out)
	return p, nil
}

// machineEnv is this process's environment with its own HOME and
// XDG_CACHE_HOME, without XDG_CONFIG_HOME and the tokens a user may have
// set (a shard reads its token from its file).
func machineEnv(home, cache string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "GH_TOKEN", "GITHUB_TOKEN", "KUBECONFIG":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "XDG_CACHE_HOME="+cache)
}

// read takes the shard's lines until it exits.
func (p *shardProc) read(out io.Reader) {
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, sayResult); ok {
			var r shardResult
			if err := json.Unmarshal([]byte(rest), &r); err == nil {
				p.res = &r
			}
			continue
		}
		select {
		case p.events <- line:
		default:
		}
	}
	p.err = p.cmd.Wait()
	close(p.done)
}

// result is the shard's result once it exited.
func (p *shardProc) result() (shardResult, error) {
	<-p.done
	switch {
	case p.err != nil:
		return shardResult{}, fmt.Errorf("shard %d: %w; its stderr ends:\n%s", p.index, p.err, tail(p.stderr.String()))
	case p.res == nil:
		return shardResult{}, fmt.Errorf("shard %d said no result; its stderr ends:\n%s", p.index, tail(p.stderr.String()))
	}
	return *p.res, nil
}

// waitAll waits for every shard and gathers their results.
func waitAll(procs []*shardProc) ([]shardResult, error) {
	var out []shardResult
	var errs []error
	for _, p := range procs {
		r, err := p.result()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

// killAll kills the shards started so far.
func killAll(procs []*shardProc) {
	for _, p := range procs {
		if p != nil {
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}
}

// tail is the last 2000 bytes of s.
func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}
