package kubetest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// process is one child (etcd or kube-apiserver) with its output in a file.
type process struct {
	name   string
	cmd    *exec.Cmd
	log    string        // the file its stdout and stderr go to
	exited chan struct{} // closed when it has exited
	err    error         // Wait's error, once exited is closed
}

// spawner starts children from one goroutine locked to its OS thread, which
// stays alive until stop: on Linux each child gets SIGKILL when that thread
// ends, so a test binary that panics, times out or is killed takes its
// servers with it (deferred stops never run in those cases).
type spawner struct {
	reqs chan spawnReq
	done chan struct{}
	once sync.Once
}

type spawnReq struct {
	cmd   *exec.Cmd
	reply chan error
}

func newSpawner() *spawner {
	s := &spawner{reqs: make(chan spawnReq), done: make(chan struct{})}
	go s.loop()
	return s
}

func (s *spawner) loop() {
	runtime.LockOSThread() // never unlocked: the thread ends with loop
	for {
		select {
		case r := <-s.reqs:
			setParentDeathSignal(r.cmd)
			r.reply <- r.cmd.Start()
		case <-s.done:
			return
		}
	}
}

func (s *spawner) start(cmd *exec.Cmd) error {
	reply := make(chan error, 1)
	select {
	case s.reqs <- spawnReq{cmd: cmd, reply: reply}:
		return <-reply
	case <-s.done:
		return errors.New("kubetest: stopped")
	}
}

// stop ends the spawner's thread (after the children were killed).
func (s *spawner) stop() { s.once.Do(func() { close(s.done) }) }

// run starts name with args, its output going to logPath.
func (s *spawner) run(name, bin, logPath string, args ...string) (*process, error) {
	out, err := os.Create(logPath) // #nosec G304 -- a file in the run's own temporary directory
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...) // #nosec G204 G702 -- the binaries scripts/kube-tools.sh built
	cmd.Stdout, cmd.Stderr = out, out
	if err := s.start(cmd); err != nil {
		_ = out.Close()
		return nil, fmt.Errorf("kubetest: start %s (%s): %w", name, bin, err)
	}
	p := &process{name: name, cmd: cmd, log: logPath, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = out.Close()
		close(p.exited)
	}()
	return p, nil
}

// kill ends the process at once and waits for it (a test server keeps
// nothing worth a graceful stop).
func (p *process) kill() {
	if p == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
	}
}

// tail is the end of the process's output, for an error message.
func (p *process) tail() string {
	b, err := os.ReadFile(p.log) // #nosec G703 -- a file of the run's own temporary directory
	if err != nil {
		return err.Error()
	}
	const keep = 4000
	if len(b) > keep {
		b = b[len(b)-keep:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b)
}

// freePorts returns n distinct TCP ports that were free on 127.0.0.1 a
// moment ago (as envtest does: the listeners are held until all are
// chosen, then closed for the servers to bind).
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		_, port, err := net.SplitHostPort(l.Addr().String())
		if err != nil {
			return nil, err
		}
		p, err := strconv.Atoi(port)
		if err != nil {
			return nil, err
		}
		ports = append(ports, p)
	}
	return ports, nil
}
