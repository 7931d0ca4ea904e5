//go:build !linux

package cluster

import "os/exec"

func setProcAttr(*exec.Cmd) {}

func setGroupCancel(*exec.Cmd) {}
