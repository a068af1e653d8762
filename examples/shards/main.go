// Command shards runs N controller shards as separate processes that share
// nothing local — each its own HOME and XDG_CACHE_HOME, as shards in
// separate clusters are — and promote their stages into one branch of one
// repository at once. They take turns at the branch through Kubernetes
// Leases (committer/turns/kubelease) on one API server, the way sharded
// controllers that report to one control plane would; with -turns local
// they take turns only through lock files in their own user cache
// directories, which they do not share: uncoordinated.
//
// The program is the whole set-up on one machine: it starts etcd and
// kube-apiserver on loopback (committer/turns/kubelease/kubetest; the
// binaries that `make kube-tools` builds), the fake GitHub in-process with
// github.com's per-token limits on, every window -scale times shorter
// (githubtest.GitHubLimits), then the shard processes (this binary again,
// with the "shard" subcommand), and checks every promotion on the branch:
//
//	eval "$(bash scripts/kube-tools.sh | sed 's/^/export /')"
//	go run -C examples/shards . -shards 4 -stages 5
//	go run -C examples/shards . -turns local       # uncoordinated, for comparison
//	go run -C examples/shards . -kill              # SIGKILL shard 0 in its turn
//
// Each shard runs one committer.Committer with -stages goroutines, one a
// stage: stage j of shard i syncs its directory stages/shard-i/stage-j (3
// files) and adds its line to the shared deploy/promotions.yaml, as a
// promotion does. A shard reaches the API server through a kubeconfig file
// and the fake through a token file (never its argv or environment).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := mainErr(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "shards:", err)
		stop()
		os.Exit(1)
	}
}

// mainErr runs a shard ("shard" and its flags) or the whole example.
func mainErr(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == shardCommand {
		return runShard(ctx, args[1:], stdout)
	}
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	rep, err := run(ctx, cfg, stderr)
	if rep != nil {
		if werr := rep.write(stdout, cfg.json); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}
