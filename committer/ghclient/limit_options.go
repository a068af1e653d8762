package ghclient

import (
	"fmt"
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

// WithMaxRateLimitWait sets the longest wait the transport accepts for a
// rate limit (a primary limit's x-ratelimit-reset, a Retry-After, or the
// wait after a bare secondary limit). A limit lifting later than that fails
// at once with a *RateLimitError that says when it lifts, and nothing is
// sent for the credential until then. 0 means never wait for a rate limit.
// The default is 60s.
func WithMaxRateLimitWait(d time.Duration) Option {
	return func(o *options) error {
		if d < 0 {
			return fmt.Errorf("WithMaxRateLimitWait: %v: must not be negative", d)
		}
		o.maxRateWait = d
		return nil
	}
}

// WithSecondaryLimitWait sets how long every request of the credential
// waits after a secondary rate limit whose reply names no Retry-After (and
// has x-ratelimit-remaining above 0). GitHub asks for at least a minute
// and warns that continuing may get an integration banned: shorten it
// only for tests against a fake. WithLimitScale divides it. The default
// is one minute.
func WithSecondaryLimitWait(d time.Duration) Option {
	return func(o *options) error {
		if d < 0 {
			return fmt.Errorf("WithSecondaryLimitWait: %v: must not be negative", d)
		}
		o.secondaryWait = d
		return nil
	}
}

// WithWritePacing spaces the writes (POST, PATCH, PUT, DELETE, GraphQL
// mutations) of one credential so that a process alone never provokes
// GitHub's secondary limits on content creation: at most perMinute in any
// minute, one every minute/perMinute after a burst of burst, and at most
// perHour in any hour. The count is shared by every client in the process
// that uses the same credential on the same host. A 0 count turns its
// window off; WithWritePacing(0, 0, 0) turns pacing off (tests against a
// fake do). WithLimitScale shortens the windows. The default is
// WithWritePacing(80, 8, 500), GitHub's documented limits: a steady 80
// writes a minute, and no more than 500 in an hour.
func WithWritePacing(perMinute, burst, perHour int) Option {
	return func(o *options) error {
		if perMinute < 0 || perHour < 0 || burst < 0 {
			return fmt.Errorf("WithWritePacing(%d, %d, %d): must not be negative", perMinute, burst, perHour)
		}
		if perMinute > 0 && (burst < 1 || burst > perMinute) {
			return fmt.Errorf("WithWritePacing(%d, %d, %d): burst must be between 1 and the per-minute count", perMinute, burst, perHour)
		}
		o.writesPerMin, o.writeBurst, o.writesPerHour = perMinute, burst, perHour
		return nil
	}
}

// WithLimitScale makes the client's own rate-limit windows f times
// shorter: the write pacer's minute and hour, and the wait after a bare
// secondary limit (the counts stay GitHub's). It scales them the way
// githubtest's Limits.Scale and `ghcommitter fake-github --limits-scale F`
// scale the fake's, so benchmarks and black-box tests pass the same F to
// both. Waits GitHub dictates (Retry-After, x-ratelimit-reset) are always
// honoured as sent. Against github.com keep the default. f must be above
// 0 and at most 1e6 (below 1 makes the windows longer). The default is 1.
func WithLimitScale(f float64) Option {
	return func(o *options) error {
		if !(f > 0 && f <= 1e6) {
			return fmt.Errorf("WithLimitScale: %v: must be above 0 and at most 1e6", f)
		}
		o.limitScale = f
		return nil
	}
}
