package ghclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/machinedir"
)

// The rate-limit state of a credential is shared by the processes of one
// machine too: separate ghcommitter processes that use one token (a
// controller's workers, the jobs of one runner) count their writes
// together against GitHub's 80 a minute and 500 an hour, and a Retry-After
// window one of them is told holds back the others, which would otherwise
// spend writes GitHub refuses. Each process keeps its own pacer (its burst,
// spacing and bookings, see pace.go): a few processes that write a little
// each are not slowed down by one another. On top of it, each write is
// admitted against the machine's record of the writes the token sent
// (admit): recorded when sent, not when booked, so that an attempt whose
// last write goes out long after it was booked is counted when it is. The state lives in a small JSON file per
// credential in RateLimits.StateDir's directory (with
// RateLimits.MachineState, ghcommitter/limits in the user cache directory;
// by default there is none: the state stays in the process), named by the registry
// key's hash, never by the credential; it is read and written under an
// advisory file lock for the few microseconds each decision takes, and
// replaced whole (written to a temporary file, renamed over it). The
// directory must be the user's and closed to others' writes, and the files
// regular files of the user's, never symbolic links or FIFOs
// (internal/machinedir). Any failure to use it (no cache directory, a
// directory another user could write into, a read-only or full disk, a
// corrupt file) leaves the state to the process, as before.

// DefaultLimitStateDir is the directory of the machine's shared rate-limit
// state with RateLimits.MachineState (the ghcommitter command's default): ghcommitter/limits in the
// user's cache directory, or "" when the system names none.
func DefaultLimitStateDir() string {
	d, err := os.UserCacheDir()
	if err != nil || d == "" {
		return ""
	}
	return filepath.Join(d, "ghcommitter", "limits")
}

// machineIdle is how long a state file may go unused before any process
// removes it: longer than the hour window, so it only ever holds nothing.
const machineIdle = 2 * time.Hour

// machineFile is one credential's state file and its lock, in a directory
// machinedir accepted (the user's, closed to others' writes).
type machineFile struct {
	dir  *machinedir.Dir
	name string // <key>.json
	lock *machinedir.Locker
	held *machinedir.Lock
}

// machineState is the file's content: times in Unix nanoseconds, 0 for
// none.
type machineState struct {
	Sent      []int64          `json:"sent"`
	Secondary int64            `json:"secondary_until"`
	Primary   map[string]int64 `json:"primary_until,omitempty"`
}

// openMachineFile returns the state file of key under dir for a client
// paced at scale, pruning the state files idle for machineIdle; nil when
// dir is "" or cannot be used (see machinedir.Open).
func openMachineFile(dir, key string, scale float64) *machineFile {
	if dir == "" {
		return nil
	}
	d, err := machinedir.Open(dir)
	if err != nil {
		return nil
	}
	d.Prune(isMachineFile, machineIdle, time.Now())
	name := credentialKey(fmt.Sprint(scale), key) // clients at other scales keep apart
	return &machineFile{dir: d, name: name + ".json", lock: d.Locker(name + ".lock")}
}

// isMachineFile reports whether name is one of the names openMachineFile
// gives its files: a key (32 lowercase hex digits) and .json or .lock, or
// a temporary file of machinedir.WriteFile left by a process that died
// while writing one.
func isMachineFile(name string) bool {
	key, rest, _ := strings.Cut(name, ".")
	if !isLowerHex(key, 32) {
		return false
	}
	if rest == "json" || rest == "lock" {
		return true
	}
	tmp, ok := strings.CutPrefix(rest, "json.")
	if !ok {
		return false
	}
	r, ok := strings.CutSuffix(tmp, machinedir.TempSuffix)
	return ok && isLowerHex(r, 16)
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// begin locks s (and its file) and brings in the machine's state; end
// writes s's state back when changed and unlocks. Every decision that
// changes the machine's state runs between the two.
func (s *shared) begin() {
	s.mu.Lock()
	if s.file == nil {
		return
	}
	l, err := s.file.take()
	if err != nil {
		s.file = nil // the process keeps its own state from now on
		return
	}
	if l == nil {
		return // held too long (a stopped process): decide alone this time
	}
	s.file.held, s.filed = l, true
	if st, err := s.file.read(); err == nil {
		s.merge(st)
	}
}

func (s *shared) end(changed bool) {
	if s.filed {
		if changed {
			_ = s.file.write(s.state())
		}
		s.file.held.Unlock()
		s.file.held, s.filed = nil, false
	}
	s.mu.Unlock()
}

// peek brings in the machine's windows without the file's lock, for a
// decision that changes nothing (blockedUntil): the file is replaced whole,
// so a read sees one writer's state or the next one's, never a mix. The
// caller holds s.mu.
func (s *shared) peek() {
	if s.file == nil {
		return
	}
	if st, err := s.file.read(); err == nil {
		s.mergeWindows(st)
	}
}

// take waits for the file's lock while its holders get on: each one writes
// the file (admit always does), which gives it a new identity. A wait of
// machineLockWait through which the file stayed the same is a holder that
// does not get on (stopped): take returns nil, and the decision is made
// alone; so it is after machineLockMaxWait in any case.
func (f *machineFile) take() (*machinedir.Lock, error) {
	deadline := time.Now().Add(machineLockMaxWait)
	for time.Now().Before(deadline) {
		before := f.dir.Ident(f.name)
		l, err := f.lock.Lock(machineLockWait)
		if l != nil || err != nil {
			return l, err
		}
		if f.dir.Ident(f.name) == before {
			return nil, nil
		}
	}
	return nil, nil
}

// machineLockMaxWait bounds take's wait however the file keeps changing
// (a process of the user's that rewrites it while holding the lock).
const machineLockMaxWait = 10 * time.Second

// machineLockWait is the longest begin waits for the file's lock while
// nobody gets on: its holders keep it for microseconds, but a process
// stopped while holding it (SIGSTOP) must not stop the others' requests.
// Under load, when 40 processes queue for the lock on 2 busy cores, a
// wait can be longer than that while the others get on: it goes on (see
// take), since a write decided alone is sent without the machine's record
// and can push the token over GitHub's limit. The wait is in the kernel
// (machinedir.Locker): waiters that polled instead would take the CPU from
// the holders.
const machineLockWait = 500 * time.Millisecond

// read reads the state; a file that is missing, empty or not JSON is an
// error (the process then goes on with its own state).
func (f *machineFile) read() (machineState, error) {
	var st machineState
	data, err := f.dir.ReadFile(f.name)
	if err != nil {
		return st, err
	}
	if len(data) == 0 {
		return st, errors.New("empty")
	}
	return st, json.Unmarshal(data, &st)
}

// write replaces the state whole: a process that cannot write (a full
// disk) leaves the state others wrote.
func (f *machineFile) write(st machineState) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return f.dir.WriteFile(f.name, data)
}

// merge takes in the machine's state: its record of the writes sent, and
// each window, which ends at the later of the machine's and the process's.
//
// Times that cannot be right are dropped: a write recorded in the future,
// or a window ending more than machineHorizon from now (the wall clock
// went back, or the file was written by hand), so that no file can hold
// the token back for longer than GitHub could.
func (s *shared) merge(st machineState) {
	now := time.Now()
	s.machineSent = s.machineSent[:0]
	for _, n := range st.Sent {
		if t := fromNanos(n); !t.After(now.Add(time.Second)) {
			s.machineSent = append(s.machineSent, t)
		}
	}
	s.mergeWindows(st)
}

// mergeWindows takes in the machine's windows (see merge).
func (s *shared) mergeWindows(st machineState) {
	now := time.Now()
	plausible := func(n int64) time.Time {
		if t := fromNanos(n); t.Before(now.Add(machineHorizon)) {
			return t
		}
		return time.Time{}
	}
	s.secondaryUntil = later(s.secondaryUntil, plausible(st.Secondary))
	for res, n := range st.Primary {
		s.primaryUntil[res] = later(s.primaryUntil[res], plausible(n))
	}
}

// machineHorizon is the furthest a window read from the machine's file may
// end: GitHub's primary windows are at most an hour.
const machineHorizon = time.Hour + time.Minute

func (s *shared) state() machineState {
	st := machineState{Secondary: nanos(s.secondaryUntil), Sent: make([]int64, len(s.machineSent))}
	for i, t := range s.machineSent {
		st.Sent[i] = nanos(t)
	}
	now := time.Now()
	for res, t := range s.primaryUntil {
		if t.After(now) {
			if st.Primary == nil {
				st.Primary = map[string]int64{}
			}
			st.Primary[res] = nanos(t)
		}
	}
	return st
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// machineSlack lengthens the machine's windows by a sixtieth (a second a
// minute), for the clocks of GitHub and the machine.
const machineSlack = 60

// admit records a write the process is about to send at now, when the
// token's writes recorded on the machine leave room for it under every cap
// of p, and returns now; else it records nothing and returns when to ask
// again. Without the machine's state it returns now. Once the write is
// answered, answered moves its record to then: GitHub received it in
// between, so a window counted from the records never starts too early,
// however long a write took on its way.
func (s *shared) admit(now time.Time, p paceConfig) time.Time {
	_, at := s.admitAt(func() time.Time { return now }, p)
	return at
}

// admitAt is admit at the time clock tells once the file's lock is held
// (a write waits for the lock, and is counted from when it may go), which
// it returns as now.
func (s *shared) admitAt(clock func() time.Time, p paceConfig) (now, at time.Time) {
	if s.file == nil {
		now = clock()
		return now, now
	}
	s.begin()
	now = clock()
	if !s.filed {
		s.end(false)
		return now, now
	}
	keep := p.hour + p.hour/machineSlack
	if p.perHour == 0 {
		keep = p.minute + p.minute/machineSlack
	}
	i := 0
	for i < len(s.machineSent) && now.Sub(s.machineSent[i]) > keep {
		i++
	}
	s.machineSent = s.machineSent[i:]
	at = now
	for _, w := range []struct {
		n int
		d time.Duration
	}{{p.perMinute, p.minute}, {p.perHour, p.hour}} {
		if n := len(s.machineSent); w.n > 0 && n >= w.n {
			if t := s.machineSent[n-w.n].Add(w.d + w.d/machineSlack); t.After(at) {
				at = t
			}
		}
	}
	if !at.After(now) {
		s.machineSent = append(s.machineSent, now) // in order: now is read under the lock
	}
	s.end(true) // even unchanged: a written file shows the waiters that its holders get on (take)
	return now, at
}

// answered moves the record of a write admitted at sent to at, when its
// answer came.
func (s *shared) answered(sent, at time.Time) {
	if s.file == nil || !at.After(sent) {
		return
	}
	s.begin()
	defer s.end(s.filed)
	if !s.filed {
		return
	}
	for i := len(s.machineSent) - 1; i >= 0; i-- {
		if s.machineSent[i].Equal(sent) {
			s.machineSent[i] = at
			slices.SortFunc(s.machineSent, func(a, b time.Time) int { return a.Compare(b) })
			return
		}
	}
}
