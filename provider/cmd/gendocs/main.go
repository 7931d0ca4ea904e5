// Command gendocs writes provider/docs_gen.go, the Go doc comments of the
// component types the schema's descriptions come from (see
// provider.GenerateDocs). Run it from provider/ (make schema does).
package main

import (
	"context"
	"flag"
	"log"
	"os"

	"github.com/aksml/aksml/provider"
)

func main() {
	components := flag.String("components", "../components", "the main module's components directory")
	out := flag.String("out", provider.DocsFile, "the file to write")
	flag.Parse()
	src, err := provider.GenerateDocs(context.Background(), *components)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}
