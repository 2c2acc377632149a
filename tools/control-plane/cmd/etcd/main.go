// Command etcd is the etcd server the test control plane stores its objects
// in: etcd's own entry point, built from go.etcd.io/etcd/server/v3 at the
// version k8s.io/kubernetes itself requires (go.mod), so the apiserver talks
// to the etcd it was released with.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
