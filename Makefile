# aksml developer targets. `make test` is the one command that runs every
# test tier; .ci/run calls it too.
GO ?= go

.PHONY: test test-unit test-netpol test-provider test-preflight test-cluster schema sdk-check lint golden policy-check sandbox sandbox-down toolchain e2e demo demo-down bench

## test: the unit tier (mocks, golden files, policy), the NetworkPolicy evaluation, the component
## provider (schema drift), preflight against the Azure SDK's fake servers, then the real-cluster tier.
test: test-unit test-netpol test-provider test-preflight test-cluster

## test-unit: every package of the main module, including examples and the golden files.
test-unit:
	$(GO) test ./... -count=1

## test-netpol: the shipped stacks' NetworkPolicies evaluated with cyclonus (own module: keeps client-go out of the main module).
test-netpol:
	cd tests/netpol && $(GO) test ./... -count=1

## test-provider: the multi-language component provider (own module): schema.json is current, constructs work.
test-provider:
	cd provider && $(GO) test ./... -count=1

## schema: rewrite provider/docs_gen.go (the components' doc comments the schema's descriptions
## come from) and provider/schema.json after an intended change to the provider's Args or those docs.
schema:
	cd provider && $(GO) run ./cmd/gendocs && $(GO) test . -run TestSchemaIsCurrent -count=1 -update

## sdk-check: generate the TypeScript and Python SDKs into .sdk/ and check they build (needs npm).
sdk-check:
	GO="$(GO)" bash provider/sdk-check.sh

## test-preflight: the preflight command (own module: keeps the Azure SDK out of the main module)
## against the Azure SDK's fake servers; `cd preflight && go test ./cmd/preflight -update` rewrites its goldens.
test-preflight:
	cd preflight && $(GO) test ./... -count=1

## test-cluster: real etcd + kube-apiserver + Kueue (envtest); builds the binaries on first use.
test-cluster:
	cd tests/cluster && ./build-assets.sh && $(GO) test ./... -count=1 -timeout 20m

## lint: gofmt and go vet over the main module.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

## golden: rewrite tests/golden/<stack>.yaml after an intended change.
golden:
	$(GO) test ./tests/ -run TestGolden -count=1 -update

## policy-check: run every guardrail over every shipped stack (examples are checked by their tests).
policy-check:
	$(GO) run ./policy/cmd/check -all

.PHONY: toolchain

## toolchain: pulumi, pulumi-language-go and pulumi-resource-kubernetes from PATH, else built from source into bin/ (AKSML_BIN overrides); first build ≈ 21 CPU-minutes (19 min on 2 cores), later runs skip.
toolchain:
	GO="$(GO)" bash tools/toolchain/build.sh

## sandbox: a local control plane (etcd, kube-apiserver, kube-controller-manager, Kueue) for the
## `local` stack; writes .sandbox/kubeconfig and runs until Ctrl-C or `make sandbox-down`.
sandbox:
	cd tests/cluster && ./build-assets.sh && AKSML_CLUSTER_DIR=$$PWD $(GO) run ./cmd/sandbox

## sandbox-down: stop the sandbox started by `make sandbox`.
sandbox-down:
	@if [ -f .sandbox/pid ]; then kill "$$(cat .sandbox/pid)" && echo "sandbox stopped"; else echo "no sandbox running"; fi

## demo: the whole platform on this machine: builds what is missing (toolchain, control-plane
## binaries), starts the sandbox with the local stack's simulated AKS nodes, runs `pulumi up`
## (state and passphrase in .sandbox/, no tracked file written), submits a few Jobs and prints
## Kueue admission per team, pods per pool and a preemption. The sandbox keeps running.
demo:
	GO="$(GO)" bash tools/demo/demo.sh

## demo-down: stop the sandbox started by `make demo` and forget the demo's stack state.
demo-down:
	GO="$(GO)" bash tools/demo/demo.sh down

## e2e: the end-to-end tier with the real Pulumi engine on a sandbox started from a copy of the
## working tree: preview with the policy pack (and a blocked violation), up, a no-op second up, a
## quota-change preview and destroy of the local stack; then the Pulumi YAML example (examples/yaml)
## through aksml's component provider: up, Kueue admits its Job, a no-op up, destroy keeps the
## checkpoint claim. Needs `make toolchain`; about 3 minutes warm.
e2e:
	@missing=""; for b in pulumi pulumi-language-go pulumi-resource-kubernetes pulumi-language-yaml; do \
		[ -x "$${AKSML_BIN:-bin}/$$b" ] || command -v "$$b" >/dev/null 2>&1 || missing="$$missing $$b"; \
	done; \
	if [ -n "$$missing" ]; then echo "e2e: Pulumi toolchain missing:$$missing (neither in $${AKSML_BIN:-bin}/ nor on PATH): run make toolchain first" >&2; exit 1; fi
	cd tests/cluster && ./build-assets.sh
	@bin="$${AKSML_BIN:-bin}"; case $$bin in /*) ;; *) bin="$$PWD/$$bin" ;; esac; \
		echo "e2e: building the component provider into $$bin/pulumi-resource-aksml"; \
		cd provider && $(GO) build -o "$$bin/pulumi-resource-aksml" ./cmd/pulumi-resource-aksml
	AKSML_E2E_POLICY_PACK="$${AKSML_E2E_POLICY_PACK:-binary}" $(GO) test -tags e2e ./tests/e2e/ -count=1 -v -timeout 40m

## bench: benchmarks, not timed tests (minutes, a loaded machine). The cluster tier queues 1000
## one-GPU Jobs over a 100-team stack on its simulated nodes (admission and placement
## throughput, over-admission, fair sharing by weight); the real engine deploys the same stack
## on the sandbox (first preview beside kubectl's dry run, first up and its longest waits,
## a no-change up, destroy). Needs `make toolchain`.
bench:
	cd tests/cluster && ./build-assets.sh && AKSML_BENCH=1 $(GO) test -run TestBenchAdmission -count=1 -v -timeout 45m .
	AKSML_BENCH=1 $(GO) test -tags e2e ./tests/e2e/ -run TestBenchEngine -count=1 -v -timeout 40m

