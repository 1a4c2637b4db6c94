// Wrapper main: etcd server, in its own module so its dependencies do not mix with Kubernetes'.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
