package main

import (
	"strings"
	"testing"
)

// TestLimitScaleEnv: GHCOMMITTER_LIMIT_SCALE is read, and a bad value is a
// usage error before any request.
func TestLimitScaleEnv(t *testing.T) {
	for _, bad := range []string{"abc", "0", "-1", "NaN", "1e9"} {
		srv := fake(t)
		c := newCLI(t)
		c.env[limitScaleEnv] = bad
		c.stdin = "x\n"
		r := c.run(commitArgs(srv, "-m", "m", "--add", "a.txt=-")...)
		r.wantCode(t, exitUsage)
		if !strings.Contains(r.stderr, limitScaleEnv) || len(srv.Requests()) != 0 {
			t.Errorf("%s=%s: stderr %q, %d requests", limitScaleEnv, bad, r.stderr, len(srv.Requests()))
		}
	}
	srv := fake(t)
	c := newCLI(t)
	c.env[limitScaleEnv] = "0.001"
	c.stdin = "x\n"
	c.run(commitArgs(srv, "-m", "m", "--add", "a.txt=-")...).wantCode(t, exitOK)
}
