package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// process is a component of the environment running as a subprocess (kube-controller-manager,
// kube-scheduler, KWOK), its output in a log file of Env.Dir.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan error
}

// startProcess starts path with args, logging to <name>.log, and fails if it exits within
// a second (these components have no serving endpoint to wait for).
func (e *Env) startProcess(name, path string, args ...string) (*process, error) {
	out, err := e.logFile(name + ".log")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = out, out
	setProcAttr(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	select {
	case err := <-p.done:
		return nil, fmt.Errorf("%s exited early (%v); see %s", name, err, out.Name())
	case <-time.After(time.Second):
	}
	return p, nil
}

// stop sends SIGTERM and kills the process after 10 s. It is safe on a nil process.
func (p *process) stop() {
	if p == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// StartNodeSimulation starts the real kube-scheduler (v1.36.3, built by build-assets.sh)
// and KWOK v0.8.0, which manages the nodes annotated kwok.x-k8s.io/node=fake (see
// CreateNodes): it marks them Ready and moves the Pods bound to them to Running and Ready.
// A Pod marked for deletion (deleted, evicted, or its Job suspended) ends as the kubelet
// ends it: its containers stop with exit code 143 (SIGTERM) and the Pod turns Failed,
// keeping its conditions (DisruptionTarget included), then it is deleted once its
// finalizers are gone. Pods never complete on their own: a test ends a Job by deleting it.
// Stop it with StopNodeSimulation (Stop does too).
//
// KWOK's stages are its own published ones (kustomize/stage in the module): node-initialize
// and pod-ready from the "fast" sets, and pod-delete restricted to terminal Pods; the
// termination stage before it is aksml's (podTerminateStage). pod-complete is left out.
func (e *Env) StartNodeSimulation(ctx context.Context) error {
	if e.scheduler != nil || e.kwok != nil {
		return errors.New("node simulation already running")
	}
	config, err := kwokConfig(ctx)
	if err != nil {
		return err
	}
	configPath := filepath.Join(e.Dir, "kwok.yaml")
	if err := os.WriteFile(configPath, config, 0o600); err != nil {
		return err
	}
	if e.scheduler, err = e.startProcess("kube-scheduler", filepath.Join(e.AssetsDir, "kube-scheduler"),
		"--kubeconfig="+e.KubeconfigPath,
		"--authentication-kubeconfig="+e.KubeconfigPath,
		"--authorization-kubeconfig="+e.KubeconfigPath,
		"--leader-elect=false",
		"--secure-port=0",
	); err != nil {
		return err
	}
	if e.kwok, err = e.startProcess("kwok", filepath.Join(e.AssetsDir, "kwok"),
		"--kubeconfig="+e.KubeconfigPath,
		"--config="+configPath,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector="+KWOKNodeAnnotation+"="+kwokNodeValue,
		"--cidr=10.244.0.0/16",
		"--node-ip=10.224.0.1",
		"--server-address=",
	); err != nil {
		e.StopNodeSimulation()
		return err
	}
	return nil
}

// StopNodeSimulation stops KWOK and kube-scheduler. It is safe to call when they are not
// running.
func (e *Env) StopNodeSimulation() {
	e.kwok.stop()
	e.scheduler.stop()
	e.kwok, e.scheduler = nil, nil
}

// KWOKModule is the KWOK module whose binary build-assets.sh builds and whose published
// stages StartNodeSimulation uses.
const KWOKModule = "sigs.k8s.io/kwok@v0.8.0"

// kwokStages are the stage files of the KWOK module StartNodeSimulation runs with.
var kwokStages = []string{
	"kustomize/stage/node/fast/node-initialize.yaml",
	"kustomize/stage/pod/fast/pod-ready.yaml",
	"kustomize/stage/pod/fast/pod-delete.yaml",
}

// kwokConfig concatenates the KWOK stages into one configuration file: the module's
// node-initialize and pod-ready as published, its pod-delete limited to Pods in a terminal
// phase, and podTerminateStage, which brings a deleted Pod there first. KWOK picks at random
// among the stages matching a Pod, so the two deletion stages must not overlap.
func kwokConfig(ctx context.Context) ([]byte, error) {
	dir, err := moduleCacheDir(ctx, KWOKModule)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	for _, s := range kwokStages {
		b, err := os.ReadFile(filepath.Join(dir, s))
		if err != nil {
			return nil, fmt.Errorf("KWOK stage: %w", err)
		}
		if filepath.Base(s) == "pod-delete.yaml" {
			if b, err = onlyTerminalPods(b); err != nil {
				return nil, fmt.Errorf("KWOK stage %s: %w", s, err)
			}
		}
		buf.WriteString("---\n")
		buf.Write(b)
		buf.WriteString("\n")
	}
	buf.WriteString("---\n")
	buf.WriteString(podTerminateStage)
	return buf.Bytes(), nil
}

// onlyTerminalPods adds to a KWOK Pod stage the selector .status.phase In (Succeeded, Failed).
func onlyTerminalPods(stage []byte) ([]byte, error) {
	var s map[string]any
	if err := yaml.Unmarshal(stage, &s); err != nil {
		return nil, err
	}
	exprs, found, err := unstructured.NestedSlice(s, "spec", "selector", "matchExpressions")
	if err != nil || !found {
		return nil, fmt.Errorf("no spec.selector.matchExpressions (%v)", err)
	}
	exprs = append(exprs, map[string]any{"key": ".status.phase", "operator": "In", "values": []any{"Succeeded", "Failed"}})
	if err := unstructured.SetNestedSlice(s, exprs, "spec", "selector", "matchExpressions"); err != nil {
		return nil, err
	}
	return yaml.Marshal(s)
}

// podTerminateStage is what the kubelet does with a Pod marked for deletion (deleted,
// evicted through the Eviction API, or preempted): it sends SIGTERM, waits for the containers
// to stop (at most the deletion grace period) and reports the Pod in a terminal phase before
// the Pod object is removed ("Pod termination" and "Pod phase",
// https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/). Here every container
// stops one second after the deletion with exit code 143 (128 + SIGTERM), as a process that
// writes its checkpoint on SIGTERM and exits with the signal's status does, so the Pod turns
// Failed. The status is a strategic merge patch: conditions merge by type, so the
// DisruptionTarget condition the Eviction API added stays, which is what the Job's
// podFailurePolicy matches.
const podTerminateStage = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: aksml-pod-terminate
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'Exists'
    - key: '.status.phase'
      operator: 'In'
      values: ['Pending', 'Running']
  delay:
    durationMilliseconds: 1000
  next:
    statusTemplate: |
      {{ $now := Now }}
      phase: Failed
      conditions:
      - type: Ready
        status: "False"
        reason: PodFailed
        lastTransitionTime: {{ $now | Quote }}
      - type: ContainersReady
        status: "False"
        reason: PodFailed
        lastTransitionTime: {{ $now | Quote }}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: false
        restartCount: 0
        state:
          running: null
          terminated:
            exitCode: 143
            reason: Error
            finishedAt: {{ $now | Quote }}
      {{ end }}
`
