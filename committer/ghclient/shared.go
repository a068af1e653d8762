package ghclient

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"golang.org/x/oauth2"
)

// The rate-limit state of one credential on one API host is shared by every
// client in the process that uses it: a Retry-After window seen by one
// Committer holds back the writes of every other, and the write pacer
// counts them all. The registry is keyed by a hash of the host and the
// credential, never by the credential itself.
var registry = struct {
	mu sync.Mutex
	m  map[string]*shared
}{m: map[string]*shared{}}

// registryPrune is the size above which idle entries are dropped.
const registryPrune = 1024

// shared is the state behind one key: the gate's windows and the pacer's
// reservations.
type shared struct {
	mu sync.Mutex
	// secondaryUntil ends the current secondary-limit window (every
	// request of the credential waits for it).
	secondaryUntil time.Time
	// primaryUntil ends a primary-limit window, per resource ("core",
	// "graphql", "search").
	primaryUntil map[string]time.Time
	// tat is the pacer's theoretical arrival time (GCRA) and sent the
	// times reserved for the latest writes, in order.
	tat  time.Time
	sent []time.Time
	// share is the pacer's share of the write budget when cut (0: the
	// whole), from shareAt (share.go).
	share   float64
	shareAt time.Time
	used    time.Time // wall time of the last use, for pruning
	// file is the machine's copy of this state (machine.go), nil when
	// the process keeps it alone; filed: its lock is held (begin).
	// machineSent is the machine's record of the writes the credential
	// sent, in order (admit).
	file        *machineFile
	filed       bool
	machineSent []time.Time
}

// sharedFor returns the state of key, creating it. With dir, the state of
// a credential's key is shared with the machine's other processes through
// a file there (machine.go); scale is the client's testseam.Seams.LimitScale (1 without it).
func sharedFor(key, dir string, scale float64) *shared {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	s := registry.m[key]
	if s == nil {
		if len(registry.m) >= registryPrune {
			pruneLocked(time.Now())
		}
		s = &shared{primaryUntil: map[string]time.Time{}}
		if !strings.HasPrefix(key, processKeyPrefix) {
			s.file = openMachineFile(dir, key, scale)
		}
		registry.m[key] = s
	}
	s.mu.Lock()
	s.used = time.Now()
	s.mu.Unlock()
	return s
}

// pruneLocked drops entries unused for two hours (longer than any window
// they can hold at the default scale). Caller holds registry.mu.
func pruneLocked(now time.Time) {
	for k, s := range registry.m {
		s.mu.Lock()
		idle := now.Sub(s.used) > 2*time.Hour
		s.mu.Unlock()
		if idle {
			delete(registry.m, k)
		}
	}
}

// resetRegistry forgets every shared state (tests).
func resetRegistry() {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	registry.m = map[string]*shared{}
}

// credentialKey hashes an API host and a credential into a registry key.
func credentialKey(host, credential string) string {
	sum := sha256.Sum256([]byte("ghclient rate limits\x00" + host + "\x00" + credential))
	return hex.EncodeToString(sum[:16])
}

// keyer says which credential a request is sent with.
type keyer func(req *http.Request) string

// fixedKey is the key of a client whose credential is known (NewHTTPClient).
func fixedKey(host, credential string) keyer {
	k := credentialKey(host, credential)
	return func(*http.Request) string { return k }
}

var wrapIDs atomic.Int64

// processKeyPrefix starts the key of a credential known only as a
// transport of this process: its state is not shared with other processes.
const processKeyPrefix = "process "

// wrapKey is the key of a client from Wrap: its credentials are added
// below this package's layers, where they cannot be seen. A request that
// carries an Authorization header already is keyed by it. Otherwise the
// credential is the one named (WithCredential), or the one the transports
// callers use add, read off the transport (see transportCredential): so
// clients built one per caller with oauth2.NewClient over one token, or
// with ghinstallation for one installation, are one credential, and one
// with NewHTTPClient's client of that token. Any other transport is taken
// to be a credential of its own: clients over the same transport value
// share their limits.
func wrapKey(host string, base http.RoundTripper, named string) keyer {
	if named != "" {
		return fixedKey(host, "named "+named)
	}
	if cred, ok := transportCredential(base); ok {
		return fixedKey(host, cred)
	}
	var id string
	if v := reflect.ValueOf(base); v.Kind() == reflect.Pointer {
		id = fmt.Sprintf("transport %T %x", base, v.Pointer())
	} else {
		id = fmt.Sprintf("wrap %d", wrapIDs.Add(1))
	}
	k := processKeyPrefix + credentialKey(host, id)
	return func(req *http.Request) string {
		if a := req.Header.Get("Authorization"); a != "" {
			return credentialKey(host, "authorization "+a)
		}
		return k
	}
}

// transportCredential names the credential of the authenticating
// transports callers use, as NewHTTPClient names its own (see
// authTransport): an *oauth2.Transport by its token source's token (asked
// once, when the client is wrapped; a source that cannot give one leaves
// the transport a credential of its own), and a *ghinstallation.Transport
// by its App and installation. ok is false for any other transport.
func transportCredential(rt http.RoundTripper) (cred string, ok bool) {
	switch t := rt.(type) {
	case *oauth2.Transport:
		if t.Source == nil {
			return "", false
		}
		tok, err := t.Source.Token()
		if err != nil || tok == nil || tok.AccessToken == "" {
			return "", false
		}
		return "token " + tok.AccessToken, true
	case *ghinstallation.Transport:
		return fmt.Sprintf("app %d installation %d", t.AppID(), t.InstallationID()), true
	}
	return "", false
}
