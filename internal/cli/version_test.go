package cli

import (
	"debug/buildinfo"
	"fmt"
	"runtime/debug"
	"testing"
)

func TestVersion(t *testing.T) {
	oldV, oldC, oldD := version, commit, date
	version, commit, date = "v9.8.7", "0123456789abcdef0123456789abcdef01234567", "2026-12-01T10:00:00Z"
	defer func() { version, commit, date = oldV, oldC, oldD }()
	want := "ghcommitter v9.8.7 (commit 0123456789abcdef0123456789abcdef01234567, built 2026-12-01T10:00:00Z)\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := newCLI(t).run(args...)
		r.wantCode(t, 0)
		if r.stdout != want {
			t.Errorf("%v: stdout = %q, want %q", args, r.stdout, want)
		}
	}
	if got := Version(); got != "v9.8.7" {
		t.Errorf("cliVersion() = %q, want the version alone (it goes into the User-Agent)", got)
	}
	// -v is --verbose only: it must not print the version.
	if r := newCLI(t).run("-v"); r.stdout == want {
		t.Error("-v printed the version")
	}
}

func TestCurrentVersion(t *testing.T) {
	oldV, oldC, oldD := version, commit, date
	defer func() { version, commit, date = oldV, oldC, oldD }()
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, tc := range []struct {
		name    string
		stamped [3]string
		bi      *debug.BuildInfo
		want    string
	}{
		{name: "no build info", want: "dev"},
		{name: "go install of a tag", bi: &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, want: "v1.4.0"},
		{name: "go install of a commit (pseudo-version)",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "v1.4.1-0.20261130154501-abcdef012345"}},
			want: "v1.4.1-0.20261130154501-abcdef012345 (commit abcdef012345, built 2026-11-30T15:45:01Z)"},
		{name: "go install of a commit before any tag",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130154501-abcdef012345"}},
			want: "v0.0.0-20261130154501-abcdef012345 (commit abcdef012345, built 2026-11-30T15:45:01Z)"},
		{name: "go build in a checkout",
			bi: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
				Settings: settings("vcs", "git", "vcs.revision", "fedcba9876543210fedcba9876543210fedcba98", "vcs.time", "2026-12-01T09:00:00Z", "vcs.modified", "false")},
			want: "dev (commit fedcba9876543210fedcba9876543210fedcba98, built 2026-12-01T09:00:00Z)"},
		{name: "go build in a modified checkout",
			bi: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
				Settings: settings("vcs.revision", "fedcba9876543210fedcba9876543210fedcba98", "vcs.modified", "true")},
			want: "dev (commit fedcba9876543210fedcba9876543210fedcba98 (modified))"},
		{name: "snapshot build that knew no commit",
			stamped: [3]string{"v0.0.1-snapshot.none", "none", "0001-01-01T00:00:00Z"},
			want:    "v0.0.1-snapshot.none"},
		{name: "release build: the stamp wins",
			stamped: [3]string{"v2.0.0", "1111111111111111111111111111111111111111", "2026-12-01T00:00:00Z"},
			bi: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
				Settings: settings("vcs.revision", "fedcba9876543210fedcba9876543210fedcba98", "vcs.modified", "true")},
			want: "v2.0.0 (commit 1111111111111111111111111111111111111111, built 2026-12-01T00:00:00Z)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			version, commit, date = tc.stamped[0], tc.stamped[1], tc.stamped[2]
			if got := currentVersion(tc.bi).String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDependencyFloors keeps dependencies with known vulnerabilities at or
// above their fixed versions in what the CLI links.
func TestDependencyFloors(t *testing.T) {
	// The built command's: a test binary of a package that is not main
	// records no dependencies.
	bi, err := buildinfo.ReadFile(buildCLI(t))
	if err != nil {
		t.Fatal(err)
	}
	floors := map[string][3]int{
		"github.com/golang-jwt/jwt/v4": {4, 5, 2}, // GO-2025-3553
	}
	for _, d := range bi.Deps {
		floor, ok := floors[d.Path]
		if !ok {
			continue
		}
		delete(floors, d.Path)
		var v [3]int
		if _, err := fmt.Sscanf(d.Version, "v%d.%d.%d", &v[0], &v[1], &v[2]); err != nil {
			t.Errorf("%s %s: %v", d.Path, d.Version, err)
			continue
		}
		if v[0] != floor[0] || v[1]*1000+v[2] < floor[1]*1000+floor[2] {
			t.Errorf("%s is %s, want v%d.%d.%d or later", d.Path, d.Version, floor[0], floor[1], floor[2])
		}
	}
	for p := range floors {
		t.Errorf("%s is not linked any more: drop its floor", p)
	}
}
