// Command dryrun runs the bench's floor (package dryrun) on a file of objects:
//
//	dryrun -kubeconfig FILE -f objects.yaml [-workers 16]
//
// It prints `dryrun: N objects in D (W workers, unthrottled)`, or exits 1 naming the
// first object the API server refused.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/aksml/aksml/tests/cluster/dryrun"
)

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster")
	file := flag.String("f", "", "multi-document YAML file of the objects")
	workers := flag.Int("workers", 16, "requests in flight")
	flag.Parse()
	if err := run(*kubeconfig, *file, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "dryrun:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, file string, workers int) error {
	if file == "" || kubeconfig == "" {
		return errors.New("-f and -kubeconfig (or KUBECONFIG) are required")
	}
	objs, err := dryrun.ReadObjects(file)
	if err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	took, err := dryrun.Apply(context.Background(), cfg, objs, workers)
	if err != nil {
		return err
	}
	fmt.Printf("dryrun: %d objects in %v (%d workers, unthrottled)\n", len(objs), took.Round(time.Millisecond), workers)
	return nil
}
