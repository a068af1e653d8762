package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time:
//
//	go build -ldflags "-X main.version=v1.2.3" ./cmd/ghcommitter
//
// When empty, the module version from the build info is used, else "dev".
var version string

func cliVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version of ghcommitter",
		Example: "  ghcommitter version",
		Args:    cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(e.stdout, "ghcommitter %s\n", cliVersion())
			return err
		}),
	}
}
