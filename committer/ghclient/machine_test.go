package ghclient

import (
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// twoProcesses returns the states two processes would hold for one
// credential, sharing the machine's file under a temporary directory.
func twoProcesses(t *testing.T) (a, b *shared, dir string) {
	t.Helper()
	dir = t.TempDir()
	mk := func() *shared {
		return &shared{primaryUntil: map[string]time.Time{}, file: openMachineFile(dir, credentialKey("api.github.com", "token"), 1)}
	}
	a, b = mk(), mk()
	if a.file == nil {
		t.Skip("the machine's shared state needs a Unix system")
	}
	return a, b, dir
}

// TestMachineSharesTheBudget: writes one process sent count for the other
// against the token's 80 a minute and 500 an hour; each keeps its own
// pacer, and its burst.
func TestMachineSharesTheBudget(t *testing.T) {
	p := paceConfig{perMinute: 80, burst: 8, perHour: 500, minute: time.Minute, hour: time.Hour}
	a, b, _ := twoProcesses(t)
	now := time.Now()
	for range 8 {
		if slot := a.reserve(now, p); slot.After(now) {
			t.Fatalf("a's burst paced: %v", slot.Sub(now))
		}
		if at := a.admit(now, p); at.After(now) {
			t.Fatalf("a's burst held back: %v", at.Sub(now))
		}
	}
	// b's own pacer is untouched: its burst is whole.
	if slot := b.reserve(now, p); slot.After(now) {
		t.Fatalf("b's first write after a's burst paced %v", slot.Sub(now))
	}
	// 80 a minute, whoever sends them: the token's 81st write waits until
	// the first is a minute (and the slack) old.
	for i := range 72 {
		s := a
		if i%2 == 1 {
			s = b
		}
		if at := s.admit(now.Add(time.Duration(i)*time.Millisecond), p); at.After(now.Add(time.Duration(i) * time.Millisecond)) {
			t.Fatalf("write %d held back", 8+i)
		}
	}
	later := now.Add(time.Second)
	if got, want := b.admit(later, p), now.Add(time.Minute+time.Second); !got.Equal(want) {
		t.Fatalf("the token's 81st write may go at %v, want %v", got.Sub(now), want.Sub(now))
	}
	// Refused, it was not recorded: asked again then, it goes.
	if got := b.admit(now.Add(time.Minute+time.Second), p); !got.Equal(now.Add(time.Minute + time.Second)) {
		t.Fatalf("asked again when told, the write may go at %v", got.Sub(now))
	}
	// Alone, a process would have sent it at once.
	solo := &shared{primaryUntil: map[string]time.Time{}}
	if got := solo.admit(later, p); !got.Equal(later) {
		t.Fatalf("a process without the machine's state is held until %v", got.Sub(now))
	}
	// 500 an hour, whoever sends them.
	a, b, _ = twoProcesses(t)
	p = paceConfig{perHour: 500, hour: time.Hour}
	for i := range 500 {
		s := a
		if i%2 == 1 {
			s = b
		}
		s.admit(now, p)
	}
	if got, want := a.admit(now.Add(time.Minute), p), now.Add(time.Hour+time.Minute); !got.Equal(want) {
		t.Fatalf("the token's 501st write may go at %v, want %v", got.Sub(now), want.Sub(now))
	}
	// Records older than the hour are dropped.
	if st, err := a.file.read(); err != nil || len(st.Sent) != 500 {
		t.Fatalf("the machine's record: %d writes, %v", len(st.Sent), err)
	}
	if got := a.admit(now.Add(3*time.Hour), p); !got.Equal(now.Add(3 * time.Hour)) {
		t.Fatal("held back by writes hours old")
	}
	if st, _ := a.file.read(); len(st.Sent) != 1 {
		t.Fatalf("the machine's record keeps %d writes, want the one of the last hour", len(st.Sent))
	}
}

// TestMachineSharesWindows: a Retry-After one process was told holds the
// other back.
func TestMachineSharesWindows(t *testing.T) {
	a, b, _ := twoProcesses(t)
	until := time.Now().Add(30 * time.Second).Round(0)
	a.begin()
	a.secondaryUntil = until
	a.primaryUntil["graphql"] = until.Add(time.Minute)
	a.end(true)
	if got, secondary := b.blockedUntil("core"); !got.Equal(until) || !secondary {
		t.Fatalf("b blocked until %v (secondary %v), want %v", got, secondary, until)
	}
	if got, _ := b.blockedUntil("graphql"); !got.Equal(until.Add(time.Minute)) {
		t.Fatalf("b's graphql blocked until %v, want %v", got, until.Add(time.Minute))
	}
}

// TestMachineFileTrouble: a directory that cannot be made, a corrupt file
// and a lock that cannot be taken all leave the state to the process.
func TestMachineFileTrouble(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if f := openMachineFile(filepath.Join(file, "limits"), "k", 1); f != nil {
		t.Fatalf("a state file under a file: %+v", f)
	}
	a, b, dir := twoProcesses(t)
	p := paceConfig{perMinute: 80, burst: 8, minute: time.Minute}
	a.admit(time.Now(), p)
	names, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(names) != 1 {
		t.Fatalf("state files %v, want one", names)
	}
	if fi, err := os.Stat(names[0]); err != nil || fi.Mode().Perm() != 0o600 || strings.Contains(names[0], "token") {
		t.Fatalf("state file %s: %v, %v", names[0], fi, err)
	}
	if err := os.WriteFile(names[0], []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if got := b.admit(now, p); got.After(now) {
		t.Fatalf("a corrupt file made b wait %v", got.Sub(now))
	}
	// b wrote a good state back.
	if st, err := b.file.read(); err != nil || len(st.Sent) != 1 {
		t.Fatalf("after a corrupt file: %+v, %v", st, err)
	}
}

// TestMachineFilesPruned: the clean-up deletes only its own files (a
// key's .json, .lock and temporary files) idle two hours, never another
// file of the directory, however old or named.
func TestMachineFilesPruned(t *testing.T) {
	dir := t.TempDir()
	key := credentialKey("1", "k")
	old := map[string]bool{ // name: deleted
		key + ".json": true, key + ".lock": true, key + ".json.0123456789abcdef.tmp": true,
		"package.json": false, "Cargo.lock": false, "tsconfig.json": false, "README": false,
		strings.ToUpper(key) + ".json": false, key + ".json.bak": false, key + "0.json": false,
	}
	fresh := credentialKey("1", "fresh") + ".json"
	for f := range old {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		past := time.Now().Add(-3 * time.Hour)
		if err := os.Chtimes(filepath.Join(dir, f), past, past); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, fresh), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	old[fresh] = false
	if openMachineFile(dir, "k2", 1) == nil {
		t.Skip("the machine's shared state needs a Unix system")
	}
	for f, deleted := range old {
		if _, err := os.Stat(filepath.Join(dir, f)); (err != nil) != deleted {
			t.Errorf("%s: deleted %v, want %v", f, err != nil, deleted)
		}
	}
}

// TestMachineStateOnlyForCredentials: a client on a replaced clock, or
// keyed by its transport, keeps its state within the process.
func TestMachineStateOnlyForCredentials(t *testing.T) {
	resetRegistry()
	defer resetRegistry()
	dir := t.TempDir()
	if s := sharedFor(processKeyPrefix+"x", dir, 1); s.file != nil {
		t.Fatal("a transport's key got a machine file")
	}
	if s := sharedFor(credentialKey("h", "c"), dir, 1); s.file == nil && runtime.GOOS != "windows" {
		t.Fatal("a credential's key got no machine file")
	}
	gh, _ := url.Parse("https://api.github.com/")
	local, _ := url.Parse("http://127.0.0.1:8080/")
	for _, tc := range []struct {
		name string
		opts []Option
		base *url.URL
		want string
	}{
		{"default", nil, gh, ""},
		{"machine", []Option{WithRateLimits(RateLimits{MachineState: true})}, gh, DefaultLimitStateDir()},
		{"machine, then off", []Option{WithRateLimits(RateLimits{MachineState: true}), WithRateLimits(RateLimits{ProcessState: true})}, gh, ""},
		{"machine, loopback", []Option{WithRateLimits(RateLimits{MachineState: true})}, local, ""},
		{"machine and a dir", []Option{WithRateLimits(RateLimits{MachineState: true, StateDir: dir})}, local, dir},
		{"WithNow", []Option{withNow(time.Now)}, gh, ""},
		{"WithNow and a dir", []Option{withNow(time.Now), WithRateLimits(RateLimits{StateDir: dir})}, gh, ""},
		{"off", []Option{WithRateLimits(RateLimits{ProcessState: true})}, gh, ""},
		{"loopback", nil, local, ""},
		{"loopback, named dir", []Option{WithRateLimits(RateLimits{StateDir: dir})}, local, dir},
	} {
		o := defaultOptions()
		for _, opt := range tc.opts {
			if err := opt(o); err != nil {
				t.Fatal(err)
			}
		}
		if got := o.machineDir(tc.base); got != tc.want {
			t.Errorf("%s: machine dir %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestMachineFileCannotHoldBackForEver: writes recorded in the future and
// windows beyond an hour (a clock set back, a file written by hand) are
// ignored.
func TestMachineFileCannotHoldBackForEver(t *testing.T) {
	a, b, _ := twoProcesses(t)
	now := time.Now()
	future := now.Add(24 * time.Hour)
	st := machineState{Secondary: future.UnixNano(), Primary: map[string]int64{"core": future.UnixNano()}}
	for range 100 {
		st.Sent = append(st.Sent, future.UnixNano())
	}
	if err := a.file.write(st); err != nil {
		t.Fatal(err)
	}
	p := paceConfig{perMinute: 80, burst: 8, perHour: 500, minute: time.Minute, hour: time.Hour}
	if got := b.admit(now, p); got.After(now) {
		t.Fatalf("held back %v by writes recorded a day ahead", got.Sub(now))
	}
	if until, _ := b.blockedUntil("core"); until.After(now) {
		t.Fatalf("blocked %v by a window a day ahead", until.Sub(now))
	}
}

// TestMachineCountsAWriteWhenAnswered: a write's record moves to when its
// answer came, so a write that took long on its way holds the window from
// then.
func TestMachineCountsAWriteWhenAnswered(t *testing.T) {
	a, b, _ := twoProcesses(t)
	p := paceConfig{perMinute: 1, burst: 1, minute: time.Minute}
	now := time.Now().Add(-20 * time.Second) // records are never in the future
	sent := a.admit(now, p)
	a.answered(sent, now.Add(10*time.Second))
	want := now.Add(10*time.Second + time.Minute + time.Second)
	if got := b.admit(now.Add(time.Minute+2*time.Second), p); !got.Equal(want) {
		t.Fatalf("b's write may go at %v, want %v (a minute and the slack after a's answer)", got.Sub(now), want.Sub(now))
	}
}

// TestMachineLockHeldTooLong: a process that holds the state file's lock
// (stopped while holding it) does not stop another's decisions (with an
// unbounded wait this test would hang): after machineLockWait they go on
// with the process's own state.
func TestMachineLockHeldTooLong(t *testing.T) {
	a, b, _ := twoProcesses(t)
	l, ok, err := a.file.dir.TryLock(a.file.name[:len(a.file.name)-len(".json")] + ".lock")
	if !ok || err != nil {
		t.Fatalf("lock: %v %v", ok, err)
	}
	defer l.Unlock()
	p := paceConfig{perMinute: 80, burst: 8, minute: time.Minute}
	start := time.Now()
	if got := b.admit(start, p); !got.Equal(start) {
		t.Fatalf("admit without the lock: %v", got.Sub(start))
	}
	if b.file == nil {
		t.Fatal("a busy lock made the process give the machine's state up for good")
	}
}

// TestMachineRoomForAnAttempt: before an attempt's first request, a
// process waits until the machine's record leaves room for all its writes
// (roomAt, which a ReserveWrites booking and WritesWait ask), so that they
// are not held one by one in the middle of the attempt. It records
// nothing.
func TestMachineRoomForAnAttempt(t *testing.T) {
	p := paceConfig{perMinute: 80, burst: 8, perHour: 500, minute: time.Minute, hour: time.Hour}
	a, b, _ := twoProcesses(t)
	now := time.Now()
	for i := range 78 {
		a.admit(now.Add(time.Duration(i)*time.Millisecond), p)
	}
	clock := func() time.Time { return now.Add(time.Second) }
	if _, at := b.roomAt(clock, p, 2); !at.Equal(clock()) {
		t.Fatalf("room for 2 of the minute's last 2 writes at +%v, want now", at.Sub(now))
	}
	// 3 writes: the first of the 78 must have left the minute (and its slack).
	if _, at := b.roomAt(clock, p, 3); !at.Equal(now.Add(time.Minute + time.Second)) {
		t.Fatalf("room for 3 writes at +%v, want +61s", at.Sub(now))
	}
	if _, at := b.roomAt(clock, p, 200); !at.Equal(now.Add(77 * time.Millisecond).Add(time.Minute + time.Second)) {
		t.Fatalf("room for more than a minute's writes at +%v, want a whole minute's (+61.077s)", at.Sub(now))
	}
	if st, err := a.file.read(); err != nil || len(st.Sent) != 78 {
		t.Fatalf("the machine's record: %d writes (want the 78 admitted), %v", len(st.Sent), err)
	}
	// Booked, 2 writes take the minute's last room: the other process
	// then finds none for 1 until the first write leaves the minute.
	at := clock()
	if _, _, booked := b.bookRoom(clock, p, 2); !booked {
		t.Fatal("2 writes not booked with room for them")
	}
	if _, when := a.roomAt(clock, p, 1); !when.Equal(now.Add(time.Minute + time.Second)) {
		t.Fatalf("after the booking, room for 1 write at +%v, want +61s", when.Sub(now))
	}
	if _, _, booked := a.bookRoom(clock, p, 1); booked {
		t.Fatal("a write booked with no room for it")
	}
	// Taken back, they leave the room they held.
	b.unbook([]time.Time{at, at})
	if _, when := a.roomAt(clock, p, 2); !when.Equal(clock()) {
		t.Fatalf("after the booking was taken back, room for 2 writes at +%v, want now", when.Sub(now))
	}
}
