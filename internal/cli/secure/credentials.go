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
	// The GitHub Action's inputs, as one JSON object (ActionInputsEnv).
	ActionInputsEnv,
}

// InputPrefix starts the name of every variable a runner may export an
// action's input in (INPUT_TOKEN on GitHub's runner for other kinds of
// action; INPUT_SIGN-KEY, hyphens kept, on act and the runners built on
// it). Every one of them, in any case, counts as a credential: the
// action's inputs hold the token and keys, and no spelling is missed.
const InputPrefix = "INPUT_"

// IsSecretEnv reports whether the environment entry NAME=VALUE is one of
// SecretEnv, or an action input's variable (InputPrefix, any case).
func IsSecretEnv(kv string) bool {
	name, _, _ := strings.Cut(kv, "=")
	if len(name) >= len(InputPrefix) && strings.EqualFold(name[:len(InputPrefix)], InputPrefix) {
		return true
	}
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
