// Command etcd is the upstream etcd server (go.etcd.io/etcd/server/v3), built for the
// real-cluster test tier by build-assets.sh.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
