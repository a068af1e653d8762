//go:build !unix

package cli

import (
	"errors"
	"os"
	"os/exec"
)

// ownProcessGroup does nothing where there are no process groups: only the
// command itself is killed.
func ownProcessGroup(*exec.Cmd) {}

// killGroup kills the process pid.
func killGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}
