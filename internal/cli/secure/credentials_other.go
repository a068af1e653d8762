//go:build !linux

package secure

// hideCredentials does nothing outside Linux. There, the initial environment
// block stays as the process received it: on macOS a process of the same
// user can read it (ps -E, sysctl KERN_PROCARGS2), on Windows one that may
// read this process's memory (the PEB). --edit commands still run without
// the credentials in their own environment (editEnv). SECURITY.md says so.
func HideCredentials() error { return nil }

// denyInspection does nothing outside Linux (see hideCredentials).
func DenyInspection() error { return nil }
