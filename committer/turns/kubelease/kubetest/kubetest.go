// Package kubetest starts a real Kubernetes API server for tests: etcd and
// kube-apiserver, built from go.etcd.io/etcd/server/v3 and k8s.io/kubernetes
// by scripts/kube-tools.sh into a cache outside the repository, run on
// loopback with free ports the way controller-runtime's envtest runs them
// (no controller manager, no nodes: the API and its storage, which is all
// that Leases need).
//
// The binaries are named by KUBETEST_APISERVER and KUBETEST_ETCD (what
// scripts/kube-tools.sh prints; `make test-kube` sets them). Without them the
// tests that need a server are skipped, unless KUBETEST_REQUIRE=1, which
// make test-kube and CI set so that a missing binary fails instead.
//
// Children get SIGKILL when the test binary dies (Linux's parent-death
// signal), so a panic or a timeout leaves no server running; the temporary
// directory of a run whose process is gone is removed by the next Start.
package kubetest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Environment variables read by Start and written by make test-kube.
const (
	EnvAPIServer = "KUBETEST_APISERVER" // path of the kube-apiserver binary
	EnvEtcd      = "KUBETEST_ETCD"      // path of the etcd binary
	EnvRequire   = "KUBETEST_REQUIRE"   // "1": a missing binary fails the tests
)

// ErrNoBinaries is Start's error when KUBETEST_APISERVER or KUBETEST_ETCD is
// unset.
var ErrNoBinaries = errors.New("kubetest: KUBETEST_APISERVER and KUBETEST_ETCD are unset (make test-kube builds the binaries and sets them)")

// startTimeout bounds the wait for etcd and the API server to answer.
const startTimeout = 2 * time.Minute

// Server is a running etcd and kube-apiserver.
type Server struct {
	// Config reaches the API server as an admin (a bearer token in the
	// group system:masters), trusting its self-signed certificate.
	Config *rest.Config
	// Client is a clientset built from Config.
	Client kubernetes.Interface

	dir       string
	spawner   *spawner
	etcd      *process
	apiserver *process
}

// Start runs etcd and kube-apiserver and waits until the API server is
// ready. Stop ends them.
func Start(ctx context.Context) (_ *Server, err error) {
	apiserverBin, etcdBin := os.Getenv(EnvAPIServer), os.Getenv(EnvEtcd)
	if apiserverBin == "" || etcdBin == "" {
		return nil, ErrNoBinaries
	}
	sweepStaleDirs()
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, spawner: newSpawner()}
	defer func() {
		if err != nil {
			s.Stop() // s, not the nil returned with err
		}
	}()
	ports, err := freePorts(3) // etcd client, etcd peer, API server
	if err != nil {
		return nil, err
	}
	if err := s.startEtcd(ctx, etcdBin, ports[0], ports[1]); err != nil {
		return nil, err
	}
	if err := s.startAPIServer(ctx, apiserverBin, ports[0], ports[2]); err != nil {
		return nil, err
	}
	return s, nil
}

// Stop kills the servers and removes their files. It may be called more
// than once.
func (s *Server) Stop() {
	if s == nil {
		return
	}
	s.apiserver.kill()
	s.etcd.kill()
	s.spawner.stop()
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}

// Namespace creates a namespace named for prefix with a random suffix, for
// one test's objects.
func (s *Server) Namespace(ctx context.Context, prefix string) (string, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	got, err := s.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("kubetest: create namespace: %w", err)
	}
	return got.Name, nil
}

func (s *Server) startEtcd(ctx context.Context, bin string, clientPort, peerPort int) error {
	client := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peer := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	p, err := s.spawner.run("etcd", bin, filepath.Join(s.dir, "etcd.log"),
		"--name=kubetest",
		"--data-dir="+filepath.Join(s.dir, "etcd"),
		"--listen-client-urls="+client, "--advertise-client-urls="+client,
		"--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer,
		"--initial-cluster=kubetest="+peer,
		"--unsafe-no-fsync=true", // a test's data need not survive a crash
		"--log-level=warn",
	)
	if err != nil {
		return err
	}
	s.etcd = p
	return waitReady(ctx, p, func(ctx context.Context) error {
		return httpOK(ctx, http.DefaultClient, client+"/health")
	})
}

func (s *Server) startAPIServer(ctx context.Context, bin string, etcdPort, port int) error {
	sec, err := writeSecrets(s.dir)
	if err != nil {
		return err
	}
	p, err := s.spawner.run("kube-apiserver", bin, filepath.Join(s.dir, "kube-apiserver.log"),
		"--etcd-servers="+fmt.Sprintf("http://127.0.0.1:%d", etcdPort),
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		"--cert-dir="+filepath.Join(s.dir, "certs"),
		"--tls-cert-file="+sec.certFile, "--tls-private-key-file="+sec.keyFile,
		"--token-auth-file="+sec.tokenFile,
		"--authorization-mode=AlwaysAllow",
		"--service-account-issuer=https://127.0.0.1",
		"--service-account-key-file="+sec.saPublic,
		"--service-account-signing-key-file="+sec.saPrivate,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--endpoint-reconciler-type=none",
		"--enable-priority-and-fairness=false",
		"--v=0",
	)
	if err != nil {
		return err
	}
	s.apiserver = p
	s.Config = &rest.Config{
		Host:            fmt.Sprintf("https://127.0.0.1:%d", port),
		BearerToken:     sec.token,
		TLSClientConfig: rest.TLSClientConfig{CAData: sec.caPEM},
		QPS:             -1, // tests count requests, not client-side throttling
	}
	if s.Client, err = kubernetes.NewForConfig(s.Config); err != nil {
		return err
	}
	hc, err := rest.HTTPClientFor(s.Config)
	if err != nil {
		return err
	}
	return waitReady(ctx, p, func(ctx context.Context) error {
		return httpOK(ctx, hc, s.Config.Host+"/readyz")
	})
}

// waitReady polls ready until it succeeds, p exits, or startTimeout passes.
func waitReady(ctx context.Context, p *process, ready func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		attempt, stop := context.WithTimeout(ctx, 5*time.Second)
		last = ready(attempt)
		stop()
		if last == nil {
			return nil
		}
		select {
		case <-p.exited:
			return fmt.Errorf("kubetest: %s exited (%s) before it was ready; its output ends:\n%s", p.name, fmt.Sprint(p.err), p.tail())
		case <-ctx.Done():
			return fmt.Errorf("kubetest: %s not ready (%w, last: %w); its output ends:\n%s", p.name, ctx.Err(), last, p.tail())
		case <-tick.C:
		}
	}
}

// httpOK GETs url and wants 200.
func httpOK(ctx context.Context, hc *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}
