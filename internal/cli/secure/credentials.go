// Package secure hardens the CLI's process: the credential variables kept
// from edit commands and blanked in /proc/PID/environ, no core dumps or
// ptrace by other processes of the user, edit commands in process groups.
package secure

import (
	"slices"
	"strings"
)

// ActionInputsEnv holds the GitHub Action's inputs as one JSON object
// (internal/cli/actions' Args), the token and keys among them.
const ActionInputsEnv = "GHCOMMITTER_ACTION_INPUTS"

// SecretEnv are the variables holding credentials the CLI consumes. It is
// the one list for both places that keep them from other processes: the
// environment of --edit commands (editEnv), and the process's own initial
// environment block, which /proc/PID/environ shows (hideCredentials).
var SecretEnv = []string{
	"GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN",
	"GHCOMMITTER_SIGN_PASSPHRASE", "GHCOMMITTER_APP_KEY", "GHCOMMITTER_APP_PRIVATE_KEY",
	// The GitHub Action's inputs, as one JSON object (ActionInputsEnv), and
	// those that carry credentials as the runner would name them one by one.
	ActionInputsEnv,
	"INPUT_TOKEN", "INPUT_SIGN_KEY", "INPUT_SIGN_KEY_PASSPHRASE", "INPUT_APP_KEY", "INPUT_APP_PRIVATE_KEY",
}

// IsSecretEnv reports whether the environment entry NAME=VALUE is one of
// secretEnv.
func IsSecretEnv(kv string) bool {
	name, _, _ := strings.Cut(kv, "=")
	return slices.Contains(SecretEnv, name)
}

// EditEnv returns environ without the credentials in secretEnv.
func EditEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !IsSecretEnv(kv) {
			out = append(out, kv)
		}
	}
	return out
}
