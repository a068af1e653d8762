//go:build unix

package cli

import (
	"errors"
	"os/exec"
	"syscall"
)

// ownProcessGroup makes cmd the leader of a new process group, so that it
// and everything it starts can be killed together.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group led by pid; a group already gone is
// not an error.
func killGroup(pid int) error {
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
