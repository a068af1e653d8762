package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"

	"github.com/ghcommitter/ghcommitter/committer"
)

// editFailure is an --edit command that failed: the commit is aborted.
type editFailure struct {
	path, command string
	err           error
	stderr        string
}

func (e *editFailure) Error() string {
	return fmt.Sprintf("--edit command %q %v", e.command, e.err)
}

// shellEdit returns an edit function that runs sh -c command with the file's
// current content on stdin and takes its stdout as the new content.
// GHCOMMITTER_EXISTS is 1 or 0, GHCOMMITTER_PATH the repository path.
func shellEdit(ctx context.Context, e *env, path, command string) committer.EditFunc {
	return func(old []byte, exists bool) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "sh", "-c", command)
		exist := "0"
		if exists {
			exist = "1"
		}
		cmd.Env = append(e.environ(), "GHCOMMITTER_EXISTS="+exist, "GHCOMMITTER_PATH="+path)
		cmd.Stdin = bytes.NewReader(old)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			var xe *exec.ExitError
			if errors.As(err, &xe) && xe.Exited() {
				err = fmt.Errorf("exited with status %d", xe.ExitCode())
			} else {
				err = fmt.Errorf("failed: %w", err)
			}
			return nil, &editFailure{path: path, command: command, err: err, stderr: stderr.String()}
		}
		if stderr.Len() > 0 {
			e.stderr.Write(stderr.Bytes())
		}
		return stdout.Bytes(), nil
	}
}
