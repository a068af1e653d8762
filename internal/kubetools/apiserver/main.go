// Command kube-apiserver is Kubernetes' API server built from
// k8s.io/kubernetes through the Go module proxy, for the tests of
// committer/turns/kubelease (see its kubetest package). It is a tool
// module of its own: its 33 staging replaces stay here, and nothing in the
// Lease module depends on it.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
