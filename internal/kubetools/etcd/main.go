// Command etcd is etcd's server built from go.etcd.io/etcd/server/v3 through
// the Go module proxy: the storage of the kube-apiserver that the tests of
// committer/turns/kubelease start (see its kubetest package). A tool module
// of its own, so the Lease module links none of it.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
