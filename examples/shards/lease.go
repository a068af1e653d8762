package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ghcommitter/ghcommitter/committer/turns"
	"github.com/ghcommitter/ghcommitter/committer/turns/kubelease"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// leaseTurns is the shard's turns on the Leases of the API server its
// kubeconfig names, under the name "shard-N" (kubelease makes each turn's
// holder identity its own: a shard started again after a crash does not
// take its dead self's turn for its own).
func leaseTurns(f shardFlags) (*kubelease.Turns, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", f.kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("shard: kubeconfig: %w", err)
	}
	// client-go's default (5 requests a second) is low for a turn per
	// attempt of several writers.
	cfg.QPS, cfg.Burst = 50, 100
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	opts := []kubelease.Option{kubelease.WithIdentity(fmt.Sprintf("shard-%d", f.index)), kubelease.WithLeaseDuration(f.lease)}
	if f.verbose {
		opts = append(opts, kubelease.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	}
	return kubelease.New(cs.CoordinationV1(), f.ns, opts...)
}

// writeKubeconfig writes a kubeconfig for cfg (a bearer token and the
// server's CA) to path, readable by its owner alone.
func writeKubeconfig(path string, cfg *rest.Config) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["shards"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["shards"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["shards"] = &clientcmdapi.Context{Cluster: "shards", AuthInfo: "shards"}
	kc.CurrentContext = "shards"
	return clientcmd.WriteToFile(*kc, path) // mode 0600
}

// countedTurns counts the turns a shard takes and says when it first asks
// for one.
type countedTurns struct {
	next          turns.Turns
	out           *lines
	first         sync.Once
	taken, queued atomic.Int32
}

func (c *countedTurns) Take(ctx context.Context, key turns.Key) (turns.Turn, error) {
	c.first.Do(func() { c.out.say(sayTaking) })
	t, err := c.next.Take(ctx, key)
	if err != nil {
		return nil, err
	}
	c.taken.Add(1)
	if t.Queued() {
		c.queued.Add(1)
	}
	return t, nil
}

// stallLanding holds the first landing write (a ref update, or a GraphQL
// mutation: updateRefs on the git-data engine) and never sends it: the
// shard holds its turn, renewing the Lease, until it is killed.
type stallLanding struct {
	next    http.RoundTripper
	stalled func()
	once    sync.Once
}

func (s *stallLanding) RoundTrip(req *http.Request) (*http.Response, error) {
	if landing, err := isLanding(req); err != nil {
		return nil, err
	} else if landing {
		s.once.Do(s.stalled)
		<-req.Context().Done() // never sent: the process is killed first
		return nil, req.Context().Err()
	}
	return s.next.RoundTrip(req)
}

// isLanding reports whether req lands a change, reading a GraphQL body
// through GetBody (req itself is left as it is).
func isLanding(req *http.Request) (bool, error) {
	switch {
	case req.Method == http.MethodPatch && strings.Contains(req.URL.Path, "/git/refs/"):
		return true, nil
	case req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/graphql") || req.GetBody == nil:
		return false, nil
	}
	rc, err := req.GetBody()
	if err != nil {
		return false, err
	}
	defer func() { _ = rc.Close() }()
	body, err := io.ReadAll(rc)
	if err != nil {
		return false, err
	}
	return bytes.Contains(body, []byte("mutation")), nil
}
