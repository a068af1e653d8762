package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/turns"
	"github.com/ghcommitter/ghcommitter/internal/testseam"
)

// shardCommand is the subcommand that runs one shard.
const shardCommand = "shard"

// The repository and branch the shards promote into, and the shared index.
const (
	owner     = "acme"
	repoName  = "deploy"
	branch    = "main"
	indexPath = "deploy/promotions.yaml"
)

// What a shard prints on stdout, one line each: the run reads them.
const (
	sayTaking = "taking"  // the shard asks for its first turn
	sayInTurn = "in-turn" // -hang: the shard holds the turn, its landing write stalled
	sayResult = "result " // followed by the shard's shardResult as JSON
)

// stageResult is one stage's outcome.
type stageResult struct {
	Stage    int    `json:"stage"`
	Landed   bool   `json:"landed"`
	Attempts int    `json:"attempts"`
	Commit   string `json:"commit,omitempty"`
	Err      string `json:"error,omitempty"`
}

// shardResult is one shard process's outcome.
type shardResult struct {
	Shard  int           `json:"shard"`
	Stages []stageResult `json:"stages"`
	// LostRaces counts the stages' attempts that lost the race for the
	// branch (committer.EventLostRace, heard by each change set of a
	// batch).
	LostRaces int `json:"lost_races"`
	// Turns and Queued count the Lease turns the shard took, and those
	// it waited for (another shard held the Lease); 0 with -turns local.
	Turns  int `json:"turns"`
	Queued int `json:"queued"`
}

// shardFlags are the shard subcommand's flags.
type shardFlags struct {
	index, stages                  int
	api, tokenFile, kubeconfig, ns string
	turns                          string
	scale                          float64
	lease                          time.Duration
	hang, verbose                  bool
}

func parseShardFlags(args []string) (shardFlags, error) {
	fs := flag.NewFlagSet(shardCommand, flag.ContinueOnError)
	var f shardFlags
	fs.IntVar(&f.index, "index", 0, "this shard's number")
	fs.IntVar(&f.stages, "stages", 5, "stages to promote")
	fs.StringVar(&f.api, "api", "", "the GitHub API's URL")
	fs.StringVar(&f.tokenFile, "token-file", "", "file holding the GitHub token")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of the API server whose Leases the shards share")
	fs.StringVar(&f.ns, "namespace", "", "the Leases' namespace")
	fs.StringVar(&f.turns, "turns", turnsLease, "lease or local")
	fs.Float64Var(&f.scale, "scale", 1, "the client's rate-limit windows this many times shorter")
	fs.DurationVar(&f.lease, "lease", 5*time.Second, "the Leases' duration")
	fs.BoolVar(&f.verbose, "v", false, "log the Lease turns on stderr")
	fs.BoolVar(&f.hang, "hang", false, "stall the first landing write, holding the turn, until killed")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if f.api == "" || f.tokenFile == "" {
		return f, errors.New("shard: -api and -token-file are required")
	}
	if f.turns == turnsLease && (f.kubeconfig == "" || f.ns == "") {
		return f, errors.New("shard: -turns lease needs -kubeconfig and -namespace")
	}
	return f, nil
}

// runShard is one shard process: its stages promoted at once through one
// Committer, whose turns are the Leases' (or the shard's own lock files).
func runShard(ctx context.Context, args []string, stdout io.Writer) error {
	f, err := parseShardFlags(args)
	if err != nil {
		return err
	}
	out := &lines{w: stdout}
	var lost atomic.Int32
	opts := []committer.Option{committer.WithObserver(func(e committer.Event) {
		if e.Kind == committer.EventLostRace {
			lost.Add(1)
		}
	})}
	hc, err := shardClient(ctx, f, out)
	if err != nil {
		return err
	}
	opts = append(opts, committer.WithHTTPClient(hc))
	var counted *countedTurns
	if f.turns == turnsLease {
		lt, err := leaseTurns(f)
		if err != nil {
			return err
		}
		counted = &countedTurns{next: lt, out: out}
		opts = append(opts, committer.WithTurns(counted))
	} else {
		opts = append(opts, committer.WithTurnDir(turns.DefaultDir()))
	}
	c, err := committer.New(owner, repoName, opts...)
	if err != nil {
		return err
	}
	res := shardResult{Shard: f.index, Stages: promote(ctx, c, f.index, f.stages)}
	res.LostRaces = int(lost.Load())
	if counted != nil {
		res.Turns, res.Queued = int(counted.taken.Load()), int(counted.queued.Load())
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	out.say(sayResult + string(b))
	return nil
}

// shardClient is the shard's client of the fake: its token read from the
// token file, its rate-limit windows scaled as the fake's are, its name
// in the X-Githubtest-Client header (the fake's per-process counts), and
// with -hang the stall of its first landing write.
func shardClient(ctx context.Context, f shardFlags, out *lines) (*http.Client, error) {
	tok, err := os.ReadFile(f.tokenFile)
	if err != nil {
		return nil, fmt.Errorf("shard: the token file: %w", err)
	}
	var tr http.RoundTripper = http.DefaultTransport.(*http.Transport).Clone()
	if f.hang {
		tr = &stallLanding{next: tr, stalled: func() { out.say(sayInTurn) }}
	}
	base := testseam.Client(&http.Client{Transport: tr}, testseam.Seams{LimitScale: f.scale})
	return ghclient.NewHTTPClient(ctx, ghclient.WithBaseURL(f.api), ghclient.WithToken(strings.TrimSpace(string(tok))),
		ghclient.WithHTTPClient(base), ghclient.WithHeader("X-Githubtest-Client", fmt.Sprintf("shard-%d", f.index)))
}

// promote commits the shard's stages at once, one goroutine each.
func promote(ctx context.Context, c *committer.Committer, shard, stages int) []stageResult {
	out := make([]stageResult, stages)
	var wg sync.WaitGroup
	for j := range stages {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
			defer cancel()
			r := stageResult{Stage: j}
			res, err := c.Commit(ctx, branch, stageChange(shard, j))
			if err != nil {
				r.Err = err.Error()
			} else {
				r.Landed, r.Attempts, r.Commit = true, res.Attempts, res.Commit
			}
			out[j] = r
		})
	}
	wg.Wait()
	return out
}

// stageDir is stage j of shard i's directory.
func stageDir(i, j int) string { return fmt.Sprintf("stages/shard-%d/stage-%d", i, j) }

// indexLine is the line stage j of shard i adds to the shared index.
func indexLine(i, j int) string { return fmt.Sprintf("  shard-%d/stage-%d: v2.0.0\n", i, j) }

// stageFiles are the 3 files stage j of shard i syncs into its directory.
func stageFiles(i, j int) []committer.LocalFile {
	files := []committer.LocalFile{
		{Path: "values.yaml", Data: []byte(fmt.Sprintf("stage: shard-%d/stage-%d\nimage: registry.example.com/team/app:v2.0.0\n", i, j))},
		{Path: "image.txt", Data: []byte("registry.example.com/team/app:v2.0.0\n")},
		{Path: "notes.md", Data: []byte(fmt.Sprintf("# shard-%d/stage-%d\n\nPromoted to v2.0.0.\n", i, j))},
	}
	for k := range files {
		files[k].Mode = committer.ModeFile
		files[k].Size = int64(len(files[k].Data))
	}
	return files
}

// stageChange syncs the stage's directory and adds its line to the index
// unless the line is there (the edit runs again on the fresh index at
// every attempt, and a shard started again after a crash promotes again).
func stageChange(i, j int) *committer.ChangeSet {
	line := indexLine(i, j)
	return committer.NewChangeSet(fmt.Sprintf("Promote shard-%d/stage-%d to v2.0.0", i, j)).
		Sync(stageDir(i, j), stageFiles(i, j)).
		Edit(indexPath, func(old []byte, _ bool) ([]byte, error) {
			if bytes.Contains(old, []byte(line)) {
				return old, nil
			}
			return append(old[:len(old):len(old)], line...), nil
		})
}

// lines writes whole lines to the run, one writer at a time.
type lines struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lines) say(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = io.WriteString(l.w, s+"\n")
}
