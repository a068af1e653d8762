package edits

import (
	"regexp"
	"strconv"
	"strings"
)

// YAML 1.1 resolves more plain scalars than 1.2 does: PyYAML, go-yaml v2
// (much Kubernetes tooling) and Ruby's Psych read yes, on, y, 0777, 1:20 or
// 1.5 as booleans and numbers (a version such as 1.2.3 they read as the
// string: their float has one dot, though the spec's pattern allows more). A string written plain that such a reader
// would take for something else is quoted, so every reader gets the string
// back.

var yaml11Plain = regexp.MustCompile(`^(?:` +
	// bool (the spec's; go-yaml v2 and PyYAML read a subset)
	`y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF` +
	// null, merge, value
	`|~|null|Null|NULL|<<|=` +
	// int: binary, octal, decimal, hexadecimal, sexagesimal (Psych allows commas)
	`|[-+]?0b[01_,]+|[-+]?0[0-7_,]+|[-+]?(?:0|[1-9][0-9_,]*)|[-+]?0x[0-9a-fA-F_,]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+` +
	// float: PyYAML's and Psych's (one dot), sexagesimal, inf, nan
	`|[-+]?(?:[0-9][0-9_,]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*` +
	`|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)` +
	`)$`)

// timestamp: a date, or a date and a time.
var yaml11Time = regexp.MustCompile(`^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:$|[Tt \t])`)

// yaml11NotString reports whether some YAML 1.1 reader would not read v,
// written plain, as the string v.
func yaml11NotString(v string) bool {
	if yaml11Plain.MatchString(v) || yaml11Time.MatchString(v) {
		return true
	}
	// go-yaml v2 hands anything that starts like a number to strconv, with
	// underscores dropped.
	if v != "" && strings.ContainsRune("+-.0123456789", rune(v[0])) {
		plain := strings.ReplaceAll(v, "_", "")
		if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return true
		}
		if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return true
		}
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return true
		}
	}
	return false
}
