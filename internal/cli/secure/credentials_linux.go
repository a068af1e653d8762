//go:build linux

package secure

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// HideCredentials blanks, in this process's initial environment block, every
// entry named in secretEnv that holds a value, so that /proc/PID/environ — which processes of
// the same user and root may read, an --edit command reading its parent's
// included — no longer shows them. The Go runtime copied the environment at
// start-up: os.Getenv still returns every value. It writes the block through
// /proc/self/mem (a process may always write its own memory there) and
// never touches argv; the block keeps its size and its layout, so pointers
// into it (C's environ, with cgo) stay valid and find the entries gone.
//
// main calls it before anything else, so before any command can start.
// Without /proc there is nothing that shows the block: that is no error.
// The error says a credential stays readable.
func HideCredentials() error {
	secret := func(kv string) bool {
		_, v, _ := strings.Cut(kv, "=")
		return v != "" && IsSecretEnv(kv)
	}
	// Nothing set yet: Go's copy is still the block's content.
	var names []string
	for _, kv := range os.Environ() {
		if secret(kv) {
			name, _, _ := strings.Cut(kv, "=")
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	if err := hideEnvBlock(secret); err != nil {
		return fmt.Errorf("%s would stay readable in /proc/%d/environ: %w", strings.Join(names, ", "), os.Getpid(), err)
	}
	return nil
}

// maxEnvBlock bounds the environment block read: Linux caps argv and envp
// together at a quarter of the stack limit, and one string at 128 KiB.
const maxEnvBlock = 256 << 20

// hideEnvBlock blanks the entries secret reports in /proc/self's initial
// environment block (env_start to env_end), with NUL bytes, and checks that
// /proc/self/environ then shows none of them.
func hideEnvBlock(secret func(kv string) bool) error {
	shown, err := os.ReadFile("/proc/self/environ")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(secretEntries(shown, secret)) == 0 {
		return nil
	}
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return err
	}
	start, end, err := envBounds(stat)
	if err != nil {
		return err
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, start); err != nil {
		return fmt.Errorf("read the environment block: %w", err)
	}
	// The bounds are right only if the block is what environ shows.
	if !bytes.Equal(block, shown) {
		return fmt.Errorf("the memory at env_start..env_end (%#x..%#x) is not what /proc/self/environ shows", start, end)
	}
	for off := 0; off < len(block); {
		n := bytes.IndexByte(block[off:], 0)
		if n < 0 {
			n = len(block) - off
		}
		if secret(string(block[off : off+n])) {
			clear(block[off : off+n])
		}
		off += n + 1
	}
	if _, err := mem.WriteAt(block, start); err != nil {
		return fmt.Errorf("overwrite the environment block: %w", err)
	}
	after, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		return err
	}
	if left := secretEntries(after, secret); len(left) > 0 {
		return fmt.Errorf("/proc/self/environ still shows %s after the overwrite", strings.Join(left, ", "))
	}
	return nil
}

// secretEntries are the names of the entries of the NUL-separated
// environment block that secret reports.
func secretEntries(block []byte, secret func(kv string) bool) []string {
	var names []string
	for _, kv := range bytes.Split(block, []byte{0}) {
		if s := string(kv); s != "" && secret(s) {
			name, _, _ := strings.Cut(s, "=")
			names = append(names, name)
		}
	}
	return names
}

// envBounds reads env_start and env_end, fields 50 and 51 of
// /proc/PID/stat (proc(5)), from stat. The second field, the command
// name in parentheses, may itself hold spaces and parentheses: fields are
// counted after the last ')', where field 3 begins.
func envBounds(stat []byte) (start, end int64, err error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, errors.New("/proc/self/stat: no ')' after the command name")
	}
	f := strings.Fields(string(stat[i+1:]))
	const envStart, envEnd = 50, 51 // proc(5)'s numbering, from 1
	if len(f) < envEnd-2 {
		return 0, 0, fmt.Errorf("/proc/self/stat has %d fields, want at least %d (Linux 3.5 or later)", len(f)+2, envEnd)
	}
	if start, err = strconv.ParseInt(f[envStart-3], 10, 64); err == nil {
		end, err = strconv.ParseInt(f[envEnd-3], 10, 64)
	}
	switch {
	case err != nil:
		return 0, 0, fmt.Errorf("/proc/self/stat: env_start, env_end: %w", err)
	case start <= 0 || end < start || end-start > maxEnvBlock || start > 1<<62:
		return 0, 0, fmt.Errorf("/proc/self/stat: env_start %#x, env_end %#x: not an environment block", start, end)
	}
	return start, end, nil
}

// DenyInspection makes this process not dumpable (prctl PR_SET_DUMPABLE 0,
// as ssh-agent and gpg-agent do): processes of the same user — an --edit
// command among them — can then neither read its /proc/PID/environ nor open
// its /proc/PID/mem, where the credentials are once read (a token file, a
// signing key's passphrase), nor ptrace it. Root still can. The commands it
// starts are dumpable again after their exec, so they are not affected.
// It also turns off core dumps, which could hold the same credentials.
func DenyInspection() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE, 0): %w", errno)
	}
	return nil
}
