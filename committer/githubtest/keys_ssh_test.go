package githubtest

import (
	"strings"
	"testing"
)

func TestAddSSHSigningKeyRefuses(t *testing.T) {
	const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIoMoD3Ld9ex3UIIaMs8swvY9d9G4cO4tjS2vxuBuSM0 bot"
	s := New()
	for _, tc := range []struct {
		name, key string
		emails    []string
		want      string
	}{
		{"no email", key, nil, "emails"},
		{"not a key", "hello", []string{"a@example.com"}, "AddSSHSigningKey"},
		{"two keys", key + "\n" + key, []string{"a@example.com"}, "one key"},
	} {
		if err := s.AddSSHSigningKey(tc.key, tc.emails...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	if err := s.AddSSHSigningKey(key, "a@example.com"); err != nil {
		t.Fatal(err)
	}
	if n := len(s.sshKeys); n != 1 {
		t.Errorf("%d keys registered, want 1", n)
	}
}
