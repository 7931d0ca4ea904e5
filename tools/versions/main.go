// Command versions checks that every third-party module compiled by more than one of
// aksml's builds is compiled at one version: the five Go modules (their packages and
// tests) and the control-plane binaries of the cluster tier (tests/cluster/tools). Two
// versions of a module, or the binaries built with other flags, make `.ci/run` compile
// the same packages twice: with k8s.io/* at v0.35 in the tests and v0.37 in the binaries,
// k8s.io/api, client-go, grpc and OpenTelemetry were compiled twice, about a quarter of
// the Go source a cold run compiled (issue 30).
//
// It also checks that the modules tests/cluster/build-assets.sh compiles with its own flags
// (own_packages: the control plane's own code, without inlining) are compiled by no other
// build: such a module would be compiled twice, once with each set of flags.
//
// Usage, from the repository root: go run ./tools/versions
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
)

// build is one of the builds .ci/run compiles: a module directory and the packages it builds.
type build struct {
	Name, Dir string
	Args      []string
}

// builds are .ci/run's builds: `go vet` and `go test` of each module, and build-assets.sh's
// one `go build` of the control plane.
var builds = []build{
	{"main", ".", []string{"-test", "./..."}},
	{"tests/cluster", "tests/cluster", []string{"-test", "./..."}},
	{"tests/netpol", "tests/netpol", []string{"-test", "./..."}},
	{"provider", "provider", []string{"-test", "./..."}},
	{"preflight", "preflight", []string{"-test", "./..."}},
	{controlPlane, "tests/cluster/tools", []string{"./etcd",
		"k8s.io/kubernetes/cmd/kube-apiserver", "k8s.io/kubernetes/cmd/kube-controller-manager",
		"k8s.io/kubernetes/cmd/kube-scheduler", "sigs.k8s.io/kwok/cmd/kwok"}},
}

// Uses maps a module path to the version each build compiles ("" for the module being
// built, which is not third-party).
type Uses map[string]map[string]string

// Conflict is a module compiled at more than one version.
type Conflict struct {
	Module string
	// Versions maps a version to the builds compiling it, sorted.
	Versions map[string][]string
}

func (c Conflict) String() string {
	vs := make([]string, 0, len(c.Versions))
	for v := range c.Versions {
		vs = append(vs, v)
	}
	sort.Strings(vs)
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprintf("%s in %s", v, strings.Join(c.Versions[v], ", "))
	}
	return fmt.Sprintf("%s: %s", c.Module, strings.Join(parts, "; "))
}

// Conflicts returns the modules of uses compiled at more than one version, by module path.
// Modules whose path starts with skip (aksml's own, replaced by relative paths) are left out.
func Conflicts(uses Uses, skip string) []Conflict {
	var out []Conflict
	for mod, byBuild := range uses {
		if strings.HasPrefix(mod, skip) {
			continue
		}
		versions := map[string][]string{}
		for b, v := range byBuild {
			versions[v] = append(versions[v], b)
		}
		if len(versions) < 2 {
			continue
		}
		for _, bs := range versions {
			sort.Strings(bs)
		}
		out = append(out, Conflict{Module: mod, Versions: versions})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Module < out[j].Module })
	return out
}

// parse adds the "path version" lines of one build's `go list` output to uses.
func parse(uses Uses, name string, out []byte) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue // the module being built has no version
		}
		if uses[f[0]] == nil {
			uses[f[0]] = map[string]string{}
		}
		uses[f[0]][name] = f[1]
	}
}

// controlPlane is the build of the control-plane binaries (build-assets.sh).
const controlPlane = "tests/cluster/tools"

// ownPackagesLine is build-assets.sh's list of the control plane's own modules.
var ownPackagesLine = regexp.MustCompile(`(?m)^own_packages="([^"]*)"$`)

// OwnPatterns reads the package patterns of build-assets.sh's own_packages line.
func OwnPatterns(script []byte) ([]string, error) {
	m := ownPackagesLine.FindSubmatch(script)
	if m == nil {
		return nil, fmt.Errorf(`no own_packages="..." line`)
	}
	patterns := strings.Fields(string(m[1]))
	for _, p := range patterns {
		if !strings.HasSuffix(p, "/...") {
			return nil, fmt.Errorf("own_packages: %q is not a MODULE/... pattern", p)
		}
	}
	return patterns, nil
}

// OwnShared returns, for each module matched by one of patterns (MODULE/...) that a build
// other than owner compiles, "module in build, build".
func OwnShared(uses Uses, patterns []string, owner string) []string {
	var out []string
	for mod, byBuild := range uses {
		for _, p := range patterns {
			prefix := strings.TrimSuffix(p, "/...")
			if mod != prefix && !strings.HasPrefix(mod, prefix+"/") {
				continue
			}
			var others []string
			for b := range byBuild {
				if b != owner {
					others = append(others, b)
				}
			}
			if len(others) > 0 {
				sort.Strings(others)
				out = append(out, fmt.Sprintf("%s (%s) in %s", mod, p, strings.Join(others, ", ")))
			}
		}
	}
	sort.Strings(out)
	return out
}

// listFormat prints a package's module and the version compiled (a replacement's, if any).
const listFormat = `{{with .Module}}{{.Path}} {{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}{{end}}`

func main() {
	uses := Uses{}
	for _, b := range builds {
		cmd := exec.Command("go", append([]string{"list", "-deps", "-f", listFormat}, b.Args...)...)
		cmd.Dir = b.Dir
		cmd.Env = append(os.Environ(), "GOWORK=off")
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			fmt.Fprintf(os.Stderr, "versions: go list in %s: %v\n", b.Dir, err)
			os.Exit(2)
		}
		parse(uses, b.Name, out)
	}
	script, err := os.ReadFile("tests/cluster/build-assets.sh")
	if err == nil {
		var patterns []string
		if patterns, err = OwnPatterns(script); err == nil {
			if shared := OwnShared(uses, patterns, controlPlane); len(shared) > 0 {
				fmt.Fprintf(os.Stderr, "versions: build-assets.sh compiles these modules with its own flags (own_packages), but other builds compile them too, so a cold .ci/run compiles them twice; drop them from own_packages:\n  %s\n", strings.Join(shared, "\n  "))
				os.Exit(1)
			}
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "versions: tests/cluster/build-assets.sh: %v\n", err)
		os.Exit(2)
	}
	conflicts := Conflicts(uses, "github.com/aksml/")
	if len(conflicts) == 0 {
		fmt.Printf("versions: each of %d third-party modules is compiled at one version across %d builds; the control plane's own modules only by its build\n", len(uses), len(builds))
		return
	}
	fmt.Fprintf(os.Stderr, "versions: %d modules are compiled at more than one version, so a cold .ci/run compiles them twice; require the newest in each go.mod (go mod edit -require=MODULE@VERSION, then go mod tidy):\n", len(conflicts))
	for _, c := range conflicts {
		fmt.Fprintf(os.Stderr, "  %s\n", c)
	}
	os.Exit(1)
}
