package ghclient

import (
	"fmt"
	"path/filepath"
	"time"
)

// The options of the client's rate-limit handling: the waits it accepts,
// the write pacer and the scale of its own windows.

// scaled is d made limitScale times shorter.
func (o *options) scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) / o.limitScale)
}

// secondaryFloor is the wait after a secondary limit that names no
// Retry-After.
func (o *options) secondaryFloor() time.Duration { return o.scaled(o.secondaryWait) }

// pace is the write pacer's setting.
func (o *options) pace() paceConfig {
	return paceConfig{perMinute: o.writesPerMin, burst: o.writeBurst, perHour: o.writesPerHour,
		minute: o.scaled(time.Minute), hour: o.scaled(time.Hour)}
}

// RateLimits is how the client stays under GitHub's rate limits
// (WithRateLimits). A zero field keeps its default, or what an earlier
// WithRateLimits set.
type RateLimits struct {
	// MaxWait is the longest wait the transport accepts for a rate limit
	// (a primary limit's x-ratelimit-reset, a Retry-After, or the wait
	// after a bare secondary limit). A limit lifting later than that fails
	// at once with a *RateLimitError that says when it lifts, and nothing
	// is sent for the credential until then. A negative MaxWait never
	// waits for a rate limit. The default is 60s.
	MaxWait time.Duration
	// SecondaryWait is how long every request of the credential waits
	// after a secondary rate limit whose reply names no Retry-After (and
	// has x-ratelimit-remaining above 0). GitHub asks for at least a
	// minute and warns that continuing may get an integration banned:
	// shorten it only for tests against a fake (negative: no wait at all).
	// The default is one minute.
	SecondaryWait time.Duration
	// Pacing spaces the credential's writes; nil is the default,
	// Pacing{PerMinute: 80, Burst: 8, PerHour: 500} (GitHub's documented
	// limits: a steady 80 writes a minute, and no more than 500 in an
	// hour), and &Pacing{} turns pacing off (tests against a fake do).
	Pacing *Pacing
	// StateDir names the directory through which the processes of one
	// machine share each credential's rate-limit state: the write pacer's
	// count of recent writes and the windows GitHub told any of them to
	// wait. Separate processes that use one token then stay under
	// GitHub's 80 writes a minute and 500 an hour together, and none
	// writes inside a Retry-After another was told. A missing directory is
	// created with mode 0700; an existing one is used only when it belongs
	// to the user and neither group nor others may write into it, and its
	// files only when they are the user's regular files (never a symbolic
	// link or a FIFO); else, and on systems other than Unix, the state
	// stays within the process. It holds a small file per credential and
	// its lock, named by a hash, replaced whole on each change (a process
	// that cannot write leaves the others' state); only those files are
	// ever removed, once unused for two hours. A client whose credential
	// is known only as its transport (Wrap of a client without an
	// Authorization header: an App's installation transport) keeps its
	// state within the process. The default is "": the state stays within
	// the process, and the client writes no file.
	StateDir string
	// MachineState shares the state as StateDir does, in
	// DefaultLimitStateDir (ghcommitter/limits in the user cache
	// directory; the ghcommitter command's default), except for an API on
	// a loopback address (a test server: its next run reuses ports and
	// tokens, not the budget), whose state stays within the process. A
	// StateDir given beside it names the directory, for every API.
	MachineState bool
	// ProcessState keeps the state within the process, as the default
	// does, after an earlier WithRateLimits shared it (StateDir and
	// MachineState must then be unset).
	ProcessState bool
}

// Pacing is the write pacer's setting (RateLimits.Pacing). It spaces the
// writes (POST, PATCH, PUT, DELETE, GraphQL mutations) of one credential
// so that a process alone never provokes GitHub's secondary limits on
// content creation: at most PerMinute in any minute, one every
// minute/PerMinute after a burst of Burst, and at most PerHour in any
// hour. The count is shared by every client in the process that uses the
// same credential on the same host. A 0 count turns its window off.
type Pacing struct {
	PerMinute, Burst, PerHour int
}

// WithRateLimits sets how the client waits for GitHub's rate limits and
// paces its writes (see RateLimits for each field and its default). The
// fields given compose: each non-zero field replaces what the defaults or
// an earlier WithRateLimits set, and the others are left as they are (so
// WithRateLimits(RateLimits{SecondaryWait: d}) added to a client whose
// pacing is off keeps it off). The default is RateLimits{}.
func WithRateLimits(rl RateLimits) Option {
	return func(o *options) error {
		switch {
		case rl.MaxWait < 0:
			o.maxRateWait = 0
		case rl.MaxWait > 0:
			o.maxRateWait = rl.MaxWait
		}
		switch {
		case rl.SecondaryWait < 0:
			o.secondaryWait = 0
		case rl.SecondaryWait > 0:
			o.secondaryWait = rl.SecondaryWait
		}
		if p := rl.Pacing; p != nil {
			if p.PerMinute < 0 || p.PerHour < 0 || p.Burst < 0 {
				return fmt.Errorf("WithRateLimits: pacing %+v: must not be negative", *p)
			}
			if p.PerMinute > 0 && (p.Burst < 1 || p.Burst > p.PerMinute) {
				return fmt.Errorf("WithRateLimits: pacing %+v: burst must be between 1 and the per-minute count", *p)
			}
			o.writesPerMin, o.writeBurst, o.writesPerHour = p.PerMinute, p.Burst, p.PerHour
		}
		switch {
		case rl.ProcessState && (rl.StateDir != "" || rl.MachineState):
			return fmt.Errorf("WithRateLimits: StateDir %q or MachineState, and ProcessState, given: choose one", rl.StateDir)
		case rl.ProcessState:
			o.limitDir, o.limitDirSet = "", true
		case rl.MachineState && rl.StateDir == "":
			o.limitDir, o.limitDirSet = DefaultLimitStateDir(), false
		case rl.StateDir != "":
			dir := rl.StateDir
			if !filepath.IsAbs(dir) {
				abs, err := filepath.Abs(dir)
				if err != nil {
					return fmt.Errorf("WithRateLimits: StateDir %q: %w", dir, err)
				}
				dir = abs
			}
			o.limitDir, o.limitDirSet = dir, true
		}
		return nil
	}
}

// withLimitScale makes the client's own rate-limit windows f times
// shorter (testseam.Seams.LimitScale).
func withLimitScale(f float64) Option {
	return func(o *options) error {
		if !(f > 0 && f <= 1e6) {
			return fmt.Errorf("limit scale %v: must be above 0 and at most 1e6", f)
		}
		o.limitScale = f
		return nil
	}
}
