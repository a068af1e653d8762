package cli

import (
	"fmt"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// version, commit and date are stamped by release builds (.goreleaser.yaml):
//
//	p=github.com/ghcommitter/ghcommitter/internal/cli
//	go build -ldflags "-X $p.version=v1.2.3 -X $p.commit=SHA -X $p.date=2026-12-01T00:00:00Z" ./cmd/ghcommitter
//
// Whatever is not stamped comes from the build info Go records: the module
// version for `go install ...@v1.2.3` (and the commit and time a
// pseudo-version names), vcs.revision and vcs.time for a build in a git
// checkout. What neither knows is left out.
var version, commit, date string

// buildVersion is what `ghcommitter version` reports.
type buildVersion struct {
	version, commit, date string
	dirty                 bool
}

func (v buildVersion) String() string {
	s := v.version
	var extra []string
	if v.commit != "" {
		c := "commit " + v.commit
		if v.dirty {
			c += " (modified)"
		}
		extra = append(extra, c)
	}
	if v.date != "" {
		extra = append(extra, "built "+v.date)
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// pseudoVersion matches the tail of a Go pseudo-version:
// -yyyymmddhhmmss-abcdefabcdef (vX.0.0-..., vX.Y.Z-pre.0.... or vX.Y.(Z+1)-0....).
var pseudoVersion = regexp.MustCompile(`[-.](\d{14})-([0-9a-f]{12})(\+incompatible)?$`)

// currentVersion combines the stamped variables with bi (nil when the binary
// has no build info).
func currentVersion(bi *debug.BuildInfo) buildVersion {
	v := buildVersion{version: version, commit: stamped(commit), date: stamped(date)}
	if bi == nil {
		if v.version == "" {
			v.version = "dev"
		}
		return v
	}
	if v.version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && v.commit == "":
			v.commit = s.Value
		case s.Key == "vcs.time" && v.date == "":
			v.date = s.Value
		case s.Key == "vcs.modified" && stamped(commit) == "":
			v.dirty = s.Value == "true"
		}
	}
	if m := pseudoVersion.FindStringSubmatch(v.version); m != nil {
		if v.commit == "" {
			v.commit = m[2]
		}
		if t, err := time.Parse("20060102150405", m[1]); err == nil && v.date == "" {
			v.date = t.UTC().Format(time.RFC3339)
		}
	}
	if v.version == "" {
		v.version = "dev"
	}
	return v
}

// stamped drops the placeholders a build stamps when it does not know a value
// (goreleaser outside a git checkout with a remote: "none", a zero time).
func stamped(s string) string {
	switch s {
	case "none", "unknown", "0001-01-01T00:00:00Z":
		return ""
	}
	return s
}

// Version is the version alone (for the User-Agent).
func Version() string { return readVersion().version }

// cliVersionLong is the version with its commit and build date.
func cliVersionLong() string { return readVersion().String() }

func readVersion() buildVersion {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return currentVersion(bi)
}

func newVersionCmd(e *cmdutil.Env) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version, commit and build date of ghcommitter",
		Example: "  ghcommitter version",
		Args:    cobra.NoArgs,
		RunE: cmdutil.RunE(func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(e.Stdout, "ghcommitter %s\n", cliVersionLong())
			return err
		}),
	}
}
