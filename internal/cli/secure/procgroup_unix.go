//go:build unix

package secure

import (
	"errors"
	"os/exec"
	"syscall"
)

// OwnProcessGroup makes cmd the leader of a new process group, so that it
// and everything it starts can be killed together.
func OwnProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// KillGroup kills the process group led by pid; a group already gone is
// not an error.
func KillGroup(pid int) error {
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
