package main

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProgressOnlyOnTerminal(t *testing.T) {
	big := make([]byte, 5<<20)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(local, big, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, terminal := range []bool{false, true} {
		srv := fake(t)
		c := newCLI(t)
		c.terminal = terminal
		r := c.run(commitArgs(srv, "-m", "m", "--add", "assets/big.bin="+local)...)
		r.wantCode(t, 0)
		if shown := strings.Contains(r.stderr, "uploading: 5.0 MiB"); shown != terminal {
			t.Errorf("terminal=%v: stderr = %q", terminal, r.stderr)
		}
		if got, _ := readFile(t, srv, "main", "assets/big.bin"); got != string(big) {
			t.Error("assets/big.bin differs")
		}
	}
}

func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, 3<<20)
	p.add(1 << 20)
	p.add(1 << 20) // within 100ms: not shown
	p.done()
	if got := b.String(); got != "\r\033[Kuploading: 1.0 MiB of up to 3.0 MiB\r\033[K" {
		t.Errorf("progress output = %q", got)
	}
	var nilp *progress
	nilp.done() // a nil progress does nothing
}
