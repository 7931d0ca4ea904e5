package cluster

import (
	"os/exec"
	"syscall"
)

// setProcAttr makes the child die with the test process, so that an interrupted test run
// does not leave kube-controller-manager behind.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// setGroupCancel runs cmd in its own process group and, when its context is cancelled,
// kills the whole group (build-assets.sh and the go build it runs).
func setGroupCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
