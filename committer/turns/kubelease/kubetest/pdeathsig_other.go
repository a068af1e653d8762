//go:build !linux

package kubetest

import "os/exec"

// setParentDeathSignal does nothing where the kernel has no parent-death
// signal: there, only Stop ends the children.
func setParentDeathSignal(*exec.Cmd) {}
