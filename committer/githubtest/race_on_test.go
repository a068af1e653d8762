//go:build race

package githubtest

const raceEnabled = true
