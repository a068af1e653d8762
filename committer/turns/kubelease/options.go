package kubelease

import (
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"
)

// Defaults of the options.
const (
	// DefaultLeaseDuration is how long a Lease stays a writer's after its
	// last renewal: how long a writer that died in its turn delays the
	// others.
	DefaultLeaseDuration = 5 * time.Second
	// DefaultWait is the longest a waiter goes without reading its Lease
	// when the watch tells it nothing (a lost watch, a quiet API server).
	DefaultWait = time.Second
)

// Option configures New.
type Option func(*options) error

type options struct {
	identity string
	duration time.Duration
	wait     time.Duration
	log      *slog.Logger
}

// WithIdentity names this process as a holder: each turn's holder identity
// is the name followed by "/", a random suffix of the Turns and the turn's
// number in it, so that no two writers ever share one — not a process
// started again under the same name (a pod's), whose first turn would
// otherwise take its dead predecessor's for its own, nor two Turns of one
// name. It must not be empty and must not contain
// "/". The default is the host's name, the process id and a random
// suffix (two containers may share a pid).
func WithIdentity(name string) Option {
	return func(o *options) error {
		if name == "" || strings.Contains(name, "/") {
			return fmt.Errorf("kubelease: identity %q: must be non-empty and without \"/\"", name)
		}
		o.identity = name
		return nil
	}
}

// WithLeaseDuration sets how long a turn's Lease lasts without renewal; the
// holder renews it every third of that while its attempt runs. Leases count
// whole seconds: d is rounded up to one. The default is
// DefaultLeaseDuration.
func WithLeaseDuration(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return errors.New("kubelease: the lease duration must be positive")
		}
		o.duration = d.Round(time.Second)
		if o.duration < d {
			o.duration += time.Second
		}
		return nil
	}
}

// WithWait sets the longest a waiter goes without reading the Lease when
// its watch reports nothing. The default is DefaultWait.
func WithWait(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return errors.New("kubelease: the wait must be positive")
		}
		o.wait = d
		return nil
	}
}

// WithLogger logs at Debug level what the turns do with their Leases (taken,
// taken over, lost, released) and at Warn level what fails. The default
// logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		if l == nil {
			return errors.New("kubelease: nil logger")
		}
		o.log = l
		return nil
	}
}

func newOptions(opts []Option) (*options, error) {
	o := &options{duration: DefaultLeaseDuration, wait: DefaultWait, log: slog.New(slog.DiscardHandler)}
	for _, opt := range opts {
		if err := opt(o); err != nil {
			return nil, err
		}
	}
	if o.identity == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = "unknown-host"
		}
		var r [4]byte
		_, _ = rand.Read(r[:]) // never fails (crypto/rand)
		o.identity = fmt.Sprintf("%s-%d-%x", strings.ReplaceAll(host, "/", "-"), os.Getpid(), r)
	}
	return o, nil
}
