# aksml developer targets. `make test` is the one command that runs every
# test tier; .ci/run calls it too.
GO ?= go

.PHONY: release-snapshot help deps test test-unit calendar test-netpol test-provider test-preflight test-cluster schema sdk-check lint golden policy-check sandbox sandbox-down toolchain e2e demo demo-down bench lifecycle

## test: the third-party files (deps), the unit tier (mocks, golden files, policy), the
## NetworkPolicy evaluation, the component provider (schema drift), preflight against the Azure
## SDK's fake servers, then the real-cluster tier.
test: deps test-unit test-netpol test-provider test-preflight test-cluster

## help: this list of targets.
help:
	@awk '/^## [a-z0-9-]+:/ { sub(/^## /, ""); i = index($$0, ":"); printf "  %-14s %s\n", substr($$0, 1, i - 1), substr($$0, i + 2); next } \
		/^## / { sub(/^## /, ""); printf "  %-14s %s\n", "", $$0 }' $(MAKEFILE_LIST)

## deps: the files the tests and the demo read that the repository does not carry (Azure REST
## specs, CRDs no Go module ships): a copy (AKSML_SHARED_DIR, ../shared) or fetched, pinned and
## sha256-checked, into ~/.cache/aksml/shared; mirrors via AKSML_SPECS_URL, AKSML_CRDS_URL
## (tools/deps/fetch.sh lists origins and licences). Fails at once, saying how to provide them.
deps:
	bash tools/deps/fetch.sh

## test-unit: every package of the main module, including examples and the golden files; then
## the Kubernetes release calendar as a warning (calendar).
test-unit: deps
	$(GO) test ./... -count=1
	@$(MAKE) --no-print-directory calendar

## calendar: warn when a Kubernetes minor in components/cluster/versions.go is past its end of
## life (AKSML_CALENDAR=strict, as in the scheduled workflow calendar.yml, fails instead).
calendar:
	@out=$$($(GO) test ./components/cluster -run '^TestCalendarIsCurrent$$' -count=1 -v 2>&1); rc=$$?; \
	if [ $$rc -ne 0 ]; then printf '%s\n' "$$out"; exit $$rc; fi; \
	warn=$$(printf '%s\n' "$$out" | grep -o 'WARNING.*'); \
	if [ -n "$$warn" ]; then echo "calendar: $$warn"; else echo "calendar: every listed Kubernetes minor is within its end of life"; fi

## test-netpol: the shipped stacks' NetworkPolicies evaluated with cyclonus (own module: keeps client-go out of the main module).
test-netpol:
	cd tests/netpol && $(GO) test ./... -count=1

## test-provider: the multi-language component provider (own module): schema.json is current, constructs work, the generated Go SDK builds.
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
test-cluster: deps
	cd tests/cluster && ./build-assets.sh && $(GO) test ./... -count=1 -timeout 20m

## lint: gofmt and go vet over the main module (.ci/run also vets the other four modules and runs staticcheck).
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

## toolchain: pulumi, pulumi-language-go and pulumi-resource-kubernetes from PATH, else built from source into bin/ (AKSML_BIN overrides); first build: README "Figures", later runs skip.
toolchain:
	GO="$(GO)" bash tools/toolchain/build.sh

## sandbox: a local control plane (etcd, kube-apiserver, kube-controller-manager, Kueue) for the
## `local` stack; writes .sandbox/kubeconfig and runs until Ctrl-C or `make sandbox-down`.
sandbox: deps
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
## checkpoint claim; a stack's StackReference to itself (TestSelfStackReference, what
## stacks/previous.go relies on; 97 s on a 2-core machine, warm build cache); and the team-stack
## layout (TestTeamStacks, 51-59 s). Needs `make toolchain`; 162 s warm on a 2-core machine, plus that.
e2e: deps
	@missing=""; for b in pulumi pulumi-language-go pulumi-resource-kubernetes pulumi-language-yaml; do \
		[ -x "$${AKSML_BIN:-bin}/$$b" ] || command -v "$$b" >/dev/null 2>&1 || missing="$$missing $$b"; \
	done; \
	if [ -n "$$missing" ]; then echo "e2e: Pulumi toolchain missing:$$missing (neither in $${AKSML_BIN:-bin}/ nor on PATH): run make toolchain first" >&2; exit 1; fi
	cd tests/cluster && ./build-assets.sh
	@bin="$${AKSML_BIN:-bin}"; case $$bin in /*) ;; *) bin="$$PWD/$$bin" ;; esac; \
		echo "e2e: building the component provider into $$bin/pulumi-resource-aksml"; \
		cd provider && $(GO) build -o "$$bin/pulumi-resource-aksml" ./cmd/pulumi-resource-aksml
	AKSML_E2E_POLICY_PACK="$${AKSML_E2E_POLICY_PACK:-binary}" $(GO) test -tags e2e ./tests/e2e/ -count=1 -v -timeout 40m

## lifecycle: the day-two tier (issue 27) with the real engine on a sandbox: the local stack
## deployed with the code and state of the previous release (AKSML_LIFECYCLE_FROM, default
## 96e524c) then upgraded to this tree (no namespace, claim or quota deleted or replaced, their
## UIDs kept); refresh then a no-change preview; observability, a team and a pool turned off and
## on (nothing orphaned, retained claims kept); a second stack on the same cluster. Needs
## `make toolchain`; not part of `make e2e`.
lifecycle: deps
	@missing=""; for b in pulumi pulumi-language-go pulumi-resource-kubernetes; do \
		[ -x "$${AKSML_BIN:-bin}/$$b" ] || command -v "$$b" >/dev/null 2>&1 || missing="$$missing $$b"; \
	done; \
	if [ -n "$$missing" ]; then echo "lifecycle: Pulumi toolchain missing:$$missing (neither in $${AKSML_BIN:-bin}/ nor on PATH): run make toolchain first" >&2; exit 1; fi
	cd tests/cluster && ./build-assets.sh
	AKSML_LIFECYCLE=1 $(GO) test -tags e2e ./tests/e2e/ -run TestLifecycle -count=1 -v -timeout 60m

## bench: benchmarks, not timed tests (minutes, a loaded machine). The cluster tier queues 1000
## one-GPU Jobs over a 100-team stack on its simulated nodes (admission and placement
## throughput, over-admission, fair sharing by weight); the real engine deploys the same stack
## on the sandbox, the program built once (first preview beside kubectl's dry run and the
## unthrottled floor, first up with its longest waits and what the state holds, a no-change
## up, an up that onboards one more team, destroy), in rounds: with the engine's defaults and checkpoints, then fast
## (AKSML_BENCH_ROUNDS; AKSML_BENCH_TEAMS for a smaller stack); and, first, as a platform stack and team stacks
## of 4 teams (AKSML_BENCH_TEAMS_PER_STACK, AKSML_BENCH_STACKS_AT_ONCE). Needs `make toolchain`.
bench: deps
	cd tests/cluster && ./build-assets.sh && AKSML_BENCH=1 $(GO) test -run TestBenchAdmission -count=1 -v -timeout 45m .
	AKSML_BENCH=1 $(GO) test -tags e2e ./tests/e2e/ -run 'TestBenchEngine|TestBenchTeamStacks' -count=1 -v -timeout 60m


## release-snapshot: the release build of .github/workflows/release.yml for this commit, locally,
## as version 0.0.0-snapshot.<commit>: the plugin archives (AKSML_RELEASE_TARGETS narrows the six
## os/arch pairs), schema.json, the SDKs and checksums.txt in dist/.
release-snapshot:
	GO="$(GO)" bash tools/release/build.sh "0.0.0-snapshot.$$(git rev-parse --short HEAD)" dist
