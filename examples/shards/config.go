package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/turns/kubelease"
)

// The ways the shards take turns (-turns).
const (
	turnsLease = "lease" // Kubernetes Leases on the one API server
	turnsLocal = "local" // lock files in each shard's own user cache directory
)

// config is the example's flags.
type config struct {
	shards, stages int
	turns          string
	scale          float64       // GitHub's limit windows this many times shorter
	latency        time.Duration // added to every request to the fake
	lease          time.Duration // the Leases' duration
	kill           bool          // SIGKILL shard 0 in its turn, then start it again
	json           bool
	verbose        bool // the shards log their Lease turns on stderr
	timeout        time.Duration
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("shards", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.IntVar(&c.shards, "shards", 4, "shard processes")
	fs.IntVar(&c.stages, "stages", 5, "stages each shard promotes at once")
	fs.StringVar(&c.turns, "turns", turnsLease, "how the shards take turns: lease (Kubernetes Leases on one API server) or local (lock files in each shard's own cache directory: uncoordinated)")
	fs.Float64Var(&c.scale, "scale", 60, "GitHub's rate-limit windows this many times shorter, on the fake and in the shards' clients")
	fs.DurationVar(&c.latency, "latency", 25*time.Millisecond, "latency the fake adds to every request")
	fs.DurationVar(&c.lease, "lease", kubelease.DefaultLeaseDuration, "the Leases' duration: how long a shard that died in its turn delays the others")
	fs.BoolVar(&c.kill, "kill", false, "kill shard 0 with SIGKILL while it holds the turn (its landing write stalled), the others waiting; then start it again")
	fs.BoolVar(&c.json, "json", false, "print the report as JSON")
	fs.BoolVar(&c.verbose, "v", false, "the shards log on stderr what they do with the Lease (taken, taken over, released)")
	fs.DurationVar(&c.timeout, "timeout", 5*time.Minute, "bound on the whole run")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return c, c.validate()
}

func (c config) validate() error {
	switch {
	case c.shards < 1 || c.shards > 64:
		return errors.New("-shards: give 1 to 64")
	case c.stages < 1 || c.stages > 100:
		return errors.New("-stages: give 1 to 100")
	case c.turns != turnsLease && c.turns != turnsLocal:
		return fmt.Errorf("-turns: %q: give %s or %s", c.turns, turnsLease, turnsLocal)
	case !(c.scale > 0 && c.scale <= 1e6):
		return errors.New("-scale: must be above 0 and at most 1e6")
	case c.latency < 0:
		return errors.New("-latency must not be negative")
	case c.lease < time.Second:
		return errors.New("-lease: at least 1s (Leases count whole seconds)")
	case c.kill && (c.turns != turnsLease || c.shards < 2):
		return errors.New("-kill needs -turns lease and at least 2 shards (one to kill, one waiting)")
	case c.timeout <= 0:
		return errors.New("-timeout must be positive")
	}
	return nil
}
