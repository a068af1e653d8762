//go:build !unix

package secure

import (
	"errors"
	"os"
	"os/exec"
)

// ownProcessGroup does nothing where there are no process groups: only the
// command itself is killed.
func OwnProcessGroup(*exec.Cmd) {}

// killGroup kills the process pid.
func KillGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}
