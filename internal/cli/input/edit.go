package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"github.com/ghcommitter/ghcommitter/internal/cli/secure"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
)

// EditOutputLimit caps what an --edit command may write to stdout: GitHub's
// file limit. Reading stops, and the command is killed, as soon as it is
// passed. Tests lower it.
var EditOutputLimit int64 = committer.MaxFileSize

// EditStderrLimit caps how much of a command's stderr is kept to show; the
// rest is read and dropped.
const EditStderrLimit = 64 << 10

// editGrace bounds how long, after an --edit command exited and its process
// group was killed, its output pipes may stay open (held by a process that
// left the group) before they are closed; it is also the command's
// WaitDelay after a cancel.
const editGrace = 2 * time.Second

// DefaultEditTimeout is --edit-timeout's default.
const DefaultEditTimeout = 5 * time.Minute

var (
	errEditTimeout   = errors.New("timed out")
	errEditTooLarge  = errors.New("wrote more to stdout than a file may hold")
	errEditCancelled = errors.New("cancelled")
)

// EditFailure is an --edit command that failed: the commit is aborted.
type EditFailure struct {
	path, command string
	err           error
	Stderr        string
}

func (e *EditFailure) Error() string {
	return fmt.Sprintf("--edit command %q %v", e.command, e.err)
}

func (e *EditFailure) Unwrap() error { return e.err }

// ShellEdit returns an edit function that runs sh -c command with the file's
// current content on stdin and takes its stdout as the new content.
// GHCOMMITTER_EXISTS is 1 or 0, GHCOMMITTER_PATH the repository path. The
// command runs in its own process group, which is killed when it exits,
// when ctx is cancelled and after timeout.
func ShellEdit(ctx context.Context, e *cmdutil.Env, timeout time.Duration, path, command string) committer.EditFunc {
	environ := e.Environ
	if environ == nil {
		environ = os.Environ
	}
	base := secure.EditEnv(environ())
	return func(old []byte, exists bool) ([]byte, error) {
		exist := "0"
		if exists {
			exist = "1"
		}
		env := append(base[:len(base):len(base)], "GHCOMMITTER_EXISTS="+exist, "GHCOMMITTER_PATH="+path)
		stdout, stderr, err := runEdit(ctx, command, env, old, timeout)
		if err != nil {
			switch {
			case errors.Is(err, errEditTimeout):
				err = fmt.Errorf("%w after %s (raise --edit-timeout if it needs longer)", err, timeout)
			case errors.Is(err, errEditTooLarge):
				err = fmt.Errorf("%w: stopped reading at %d bytes (GitHub's file limit is %d MB)", err, EditOutputLimit, committer.MaxFileSize>>20)
			}
			return nil, &EditFailure{path: path, command: command, err: err, Stderr: string(stderr)}
		}
		if len(stderr) > 0 {
			_, _ = e.Stderr.Write(stderr) // the terminal's: nowhere to report a failure
		}
		return stdout, nil
	}
}

// runEdit runs sh -c command in its own process group, feeding it stdin, and
// returns its stdout (at most editOutputLimit bytes) and the start of its
// stderr.
func runEdit(ctx context.Context, command string, env []string, stdin []byte, timeout time.Duration) (stdout, stderr []byte, err error) {
	ctx, stop := context.WithTimeoutCause(ctx, timeout, errEditTimeout)
	defer stop()
	ctx, abort := context.WithCancelCause(ctx)
	defer abort(nil)
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Env = env
	secure.OwnProcessGroup(cmd)
	cmd.Cancel = func() error { return secure.KillGroup(cmd.Process.Pid) }
	cmd.WaitDelay = editGrace
	p, err := newEditPipes(cmd)
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		p.closeAll()
		return nil, nil, fmt.Errorf("failed to start: %w", err)
	}
	p.started()
	go p.feed(stdin)
	outDone := p.read(p.outR, &p.out, EditOutputLimit, func() { abort(errEditTooLarge) })
	errDone := p.read(p.errR, &p.err, EditStderrLimit, nil)
	waitErr := cmd.Wait()
	_ = secure.KillGroup(cmd.Process.Pid) // whatever the command left running; best effort
	p.inW.Close()
	p.drain(outDone, errDone)
	if cause := context.Cause(ctx); ctx.Err() != nil {
		switch {
		case errors.Is(cause, errEditTooLarge), errors.Is(cause, errEditTimeout):
			return nil, p.err.Bytes(), cause
		default:
			return nil, p.err.Bytes(), fmt.Errorf("%w: %w", errEditCancelled, cause)
		}
	}
	if waitErr != nil {
		var xe *exec.ExitError
		if errors.As(waitErr, &xe) && xe.Exited() {
			return nil, p.err.Bytes(), fmt.Errorf("exited with status %d", xe.ExitCode())
		}
		return nil, p.err.Bytes(), fmt.Errorf("failed: %w", waitErr)
	}
	return p.out.Bytes(), p.err.Bytes(), nil
}

// editPipes are an --edit command's stdin, stdout and stderr: plain pipes,
// so that Wait returns when the command exits even if a child it left
// behind still holds them.
type editPipes struct {
	inR, inW, outR, outW, errR, errW *os.File
	out, err                         bytes.Buffer
}

func newEditPipes(cmd *exec.Cmd) (*editPipes, error) {
	p := &editPipes{}
	var err error
	if p.inR, p.inW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, err
	}
	if p.errR, p.errW, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.inR, p.outW, p.errW
	return p, nil
}

// started closes the child's ends in this process.
func (p *editPipes) started() {
	p.inR.Close()
	p.outW.Close()
	p.errW.Close()
}

func (p *editPipes) closeAll() {
	for _, f := range []*os.File{p.inR, p.inW, p.outR, p.outW, p.errR, p.errW} {
		if f != nil {
			f.Close()
		}
	}
}

// feed writes data to the command's stdin and closes it. A command that
// does not read it all gets a broken pipe, which is its business.
func (p *editPipes) feed(data []byte) {
	_, _ = p.inW.Write(data)
	_ = p.inW.Close()
}

// read copies r into buf until EOF. Past limit bytes it keeps nothing more:
// with over set, it calls over and stops reading; without, it drains.
func (p *editPipes) read(r *os.File, buf *bytes.Buffer, limit int64, over func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		n, _ := io.Copy(buf, io.LimitReader(r, limit+1))
		if n <= limit {
			return
		}
		buf.Truncate(int(limit))
		if over != nil {
			over()
			return
		}
		n, _ = io.Copy(io.Discard, r)
		fmt.Fprintf(buf, "\n[ghcommitter: %d more bytes dropped]\n", n+1)
	}()
	return done
}

// drain waits for the readers to reach EOF, for at most editGrace once the
// command is gone, then closes the pipes under them.
func (p *editPipes) drain(done ...<-chan struct{}) {
	timer := time.NewTimer(editGrace)
	defer timer.Stop()
	for _, d := range done {
		select {
		case <-d:
		case <-timer.C:
			p.outR.Close()
			p.errR.Close()
			<-d
		}
	}
	p.outR.Close()
	p.errR.Close()
}
