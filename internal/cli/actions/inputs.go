package actions

import (
	"encoding/json"
	"fmt"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ghcommitter/ghcommitter/internal/cli/secure"
	"github.com/spf13/pflag"
)

// Command is how action.yml's Commit step runs the CLI:
// "ghcommitter action" commits as "ghcommitter commit" would with the flags
// and paths the action's inputs give.
const Command = "action"

// InputsEnv holds the action's inputs as one JSON object: the Commit
// step sets it to ${{ toJSON(inputs) }}. It carries the token and the key
// inputs, so it is one of secretEnv.
const InputsEnv = secure.ActionInputsEnv

// InputsWithoutFlag are the action's inputs that are no flag of
// commit, each with what becomes of it. Every other input is the flag of
// the same name.
var InputsWithoutFlag = map[string]string{ //nolint:gosec // G101: input names and what becomes of them, no credential
	"token":               "passed by the step as GH_TOKEN and GH_ENTERPRISE_TOKEN, never a flag value",
	"version":             "which release binary the step installs",
	"working-directory":   "the directory the step runs in",
	"sign-key-passphrase": "passed by the step as GHCOMMITTER_SIGN_PASSPHRASE",
	"paths":               "the LOCAL_PATH arguments, one per line",
	"sign-key":            "key contents: written to a file passed as --sign-key with --remove-sign-key",
	"app-private-key":     "key contents: written to a file passed as --app-key-file",
}

// FlagsWithoutInput are the commit command's flags the action has no
// input for, each with its reason: an input of one of these names is
// refused. Every other flag is an input of the same name (a flag added
// later fails TestActionInputsAreFlags until it is one).
var FlagsWithoutInput = map[string]string{
	"help":            "cobra's own",
	"json":            "the step's outputs carry the result; a JSON object on stdout would only reach the log",
	"token-file":      "the token input reaches the CLI in the environment, never as a file or a flag value",
	"app-key-file":    "app-private-key holds the key itself; the step writes it to a file only the runner user reads",
	"remove-sign-key": "always passed with sign-key: the key file the step writes is temporary",
	"turn-dir":        "the default (the runner user's cache directory) is shared by every job of a runner machine; a hosted runner runs one job",
	"no-turns":        "turns only ever shorten a step: it waits for another writer of the machine instead of losing a race to it",
}

// Args is the command line "ghcommitter commit ..." that the action's
// inputs (the JSON object in $GHCOMMITTER_ACTION_INPUTS) stand for. flags
// is the commit command's flag set. Key inputs are written to files only
// the user can read, in $RUNNER_TEMP, named in $GITHUB_OUTPUT as
// sign-key-file and app-key-file for the action's clean-up steps.
//
// GitHub's runner gives every input as a string under its own name; act
// rebuilds the inputs context from the INPUT_* variables, so a key may come
// with _ for - and in capitals: both are accepted, and JSON booleans and
// numbers as their text. A name that is neither a flag nor an input without
// one is refused, but under act ($ACT true), whose inputs context also holds
// whatever other INPUT_* variables the step sees: there it is ignored, with
// a warning.
func Args(e *cmdutil.Env, flags *pflag.FlagSet) ([]string, error) {
	raw := e.Getenv(InputsEnv)
	if strings.TrimSpace(raw) == "" {
		return nil, fmt.Errorf("$%s is not set: '%s %s' is run by the GitHub Action (action.yml)", InputsEnv, "ghcommitter", Command)
	}
	inputs, err := decodeActionInputs(raw)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	args := []string{"commit"}
	for _, name := range names {
		value := inputs[name]
		if _, ok := InputsWithoutFlag[name]; ok {
			continue
		}
		f := flags.Lookup(name)
		if (f == nil || FlagsWithoutInput[name] != "") && e.Getenv("ACT") == "true" {
			// act builds the inputs context from every INPUT_* variable
			// the step sees, the workflow's own among them.
			if e.Stderr != nil {
				fmt.Fprintf(e.Stderr, "ghcommitter action: ignoring %q: not an input of the action (under act)\n", name)
			}
			continue
		}
		if f == nil || FlagsWithoutInput[name] != "" {
			return nil, fmt.Errorf("action input %q is neither a flag of commit nor one of the inputs %s", name, strings.Join(sortedKeys(InputsWithoutFlag), ", "))
		}
		switch f.Value.Type() {
		case "bool":
			// Switches: 'true' passes the flag.
			switch value {
			case "true", "True", "TRUE", "yes", "1":
				args = append(args, "--"+name)
			}
		case "stringArray", "stringSlice":
			// Repeatable flags: one per non-blank line, trimmed.
			for _, line := range actionLines(value) {
				args = append(args, "--"+name, line)
			}
		default:
			// One value, as given (a message may span lines).
			if value != "" {
				args = append(args, "--"+name, value)
			}
		}
	}
	// The runner's API, whatever GH_HOST the job may set for gh, and its
	// GraphQL endpoint beside it; an api-url input moves GraphQL with it
	// (derived from it, unless graphql-url names the endpoint).
	if inputs["api-url"] == "" && e.Getenv("GITHUB_API_URL") != "" {
		args = append(args, "--api-url", e.Getenv("GITHUB_API_URL"))
		if u := e.Getenv("GITHUB_GRAPHQL_URL"); inputs["graphql-url"] == "" && u != "" {
			args = append(args, "--graphql-url", u)
		}
	}
	// Key contents become files readable only by this user: the signing
	// key is deleted by ghcommitter as soon as it has read it, before any
	// edit command runs (--remove-sign-key); the action's last steps delete
	// what is left when ghcommitter never got that far, and the App's key.
	if k := inputs["sign-key"]; k != "" {
		f, err := actionKeyFile(e, "sign-key-file", k)
		if err != nil {
			return nil, err
		}
		args = append(args, "--sign-key", f, "--remove-sign-key")
	}
	if k := inputs["app-private-key"]; k != "" {
		f, err := actionKeyFile(e, "app-key-file", k)
		if err != nil {
			return nil, err
		}
		args = append(args, "--app-key-file", f)
	}
	args = append(args, "--")
	return append(args, actionLines(inputs["paths"])...), nil
}

// decodeActionInputs reads the inputs object, its names as action.yml
// spells them.
func decodeActionInputs(raw string) (map[string]string, error) {
	var obj map[string]any
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil || obj == nil {
		// Never the value itself: it holds the token.
		return nil, fmt.Errorf("$%s is not a JSON object of the action's inputs", InputsEnv)
	}
	inputs := make(map[string]string, len(obj))
	for k, v := range obj {
		name := strings.ToLower(strings.ReplaceAll(k, "_", "-"))
		var s string
		switch v := v.(type) {
		case nil:
		case string:
			s = v
		case bool, json.Number:
			s = fmt.Sprint(v)
		default:
			return nil, fmt.Errorf("action input %q is not a string", name)
		}
		if prev, ok := inputs[name]; ok && prev != s {
			return nil, fmt.Errorf("action input %q is given twice", name)
		}
		inputs[name] = s
	}
	return inputs, nil
}

// actionLines is a multi-line input's values: its lines, trimmed, blank
// ones left out.
func actionLines(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// actionKeyFile writes key to a new file only the user can read, in
// $RUNNER_TEMP, and names it in $GITHUB_OUTPUT as output.
func actionKeyFile(e *cmdutil.Env, output, key string) (string, error) {
	dir := e.Getenv("RUNNER_TEMP")
	if dir == "" {
		dir = os.TempDir()
	}
	out := e.Getenv("GITHUB_OUTPUT")
	if out == "" {
		return "", fmt.Errorf("$GITHUB_OUTPUT is not set: the action's key inputs need it")
	}
	f, err := os.CreateTemp(dir, "ghcommitter-key.*")
	if err != nil {
		return "", fmt.Errorf("writing the %s input to a file: %w", strings.TrimSuffix(output, "-file"), err)
	}
	path := f.Name()
	_, werr := f.WriteString(key + "\n")
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr == nil {
		werr = appendLine(out, output+"="+path)
	}
	if werr != nil {
		_ = os.Remove(path)
		return "", fmt.Errorf("writing the %s input to a file: %w", strings.TrimSuffix(output, "-file"), werr)
	}
	return filepath.Clean(path), nil
}

// appendLine appends line and a newline to the file at path.
func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(append([]byte(line), '\n'))
	if err := f.Close(); werr == nil {
		werr = err
	}
	return werr
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
