package cmdutil

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// SignalCause is the cause of a context cancelled by SIGINT or SIGTERM.
type SignalCause struct{ Sig syscall.Signal }

func (s SignalCause) Error() string { return s.Sig.String() + " received" }

// NotifySignals returns a context cancelled, with a SignalCause, on the first
// SIGINT or SIGTERM. After that first signal the default handling is back, so
// a second one ends the process at once. stop releases the handler.
func NotifySignals(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			if sig, ok := s.(syscall.Signal); ok {
				cancel(SignalCause{Sig: sig})
			} else {
				cancel(nil)
			}
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}
