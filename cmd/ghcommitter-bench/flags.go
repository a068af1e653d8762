package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// parseInts parses a comma-separated list of integers in [lo, hi]
// ("20000" and "20,000"-free forms only: commas separate values).
func parseInts(name, s string, lo, hi int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.ReplaceAll(f, "_", ""))
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < lo || n > hi {
			return nil, fmt.Errorf("-%s: %q is not a number between %d and %d", name, f, lo, hi)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-%s: give at least one value", name)
	}
	slices.Sort(out)
	return out, nil
}

// parseModes parses a comma-separated list of modes, keeping allModes' order.
func parseModes(s string) ([]string, error) {
	want := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !slices.Contains(allModes, f) {
			return nil, fmt.Errorf("-modes: unknown mode %q (known: %s)", f, strings.Join(allModes, ", "))
		}
		want[f] = true
	}
	var out []string
	for _, m := range allModes {
		if want[m] {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-modes: give at least one mode")
	}
	return out, nil
}

// parseBackoff parses "BASE,MAX" ("" = the library's default).
func parseBackoff(s string) ([2]time.Duration, error) {
	var out [2]time.Duration
	if s == "" {
		return out, nil
	}
	a, b, ok := strings.Cut(s, ",")
	base, err1 := time.ParseDuration(strings.TrimSpace(a))
	maxD, err2 := time.ParseDuration(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || base <= 0 || maxD < base {
		return out, fmt.Errorf("-backoff: %q is not BASE,MAX with 0 < BASE <= MAX (e.g. 100ms,5s)", s)
	}
	return [2]time.Duration{base, maxD}, nil
}

// defaultLimitScale keeps the "under GitHub's limits" section to minutes:
// a minute lasts 1 s, an hour 1 min.
const defaultLimitScale = 60

func parseOnly(s string) (string, error) {
	switch s {
	case "", "limits", "matrix", "manifest", "process", "shards", "merge":
		return s, nil
	}
	return "", fmt.Errorf("-only: %q: give limits, manifest, matrix, process, shards or merge", s)
}

func parseLimits(scale float64, writers, engines string, seed uint64, timeout time.Duration) (limitsConfig, error) {
	lc := limitsConfig{scale: scale, seed: seed, timeout: timeout}
	if !validScale(scale) {
		return lc, fmt.Errorf("-limit-scale: %v: must be above 0 and at most 1e6", scale)
	}
	if timeout <= 0 {
		return lc, fmt.Errorf("-limit-timeout must be positive")
	}
	var err error
	if lc.writers, err = parseInts("limit-writers", writers, 1, 99); err != nil {
		return lc, err
	}
	if lc.engines, err = parseEngines(engines); err != nil {
		return lc, err
	}
	return lc, nil
}

// parseRows parses -limit-rows: a comma-separated list of limitRowKinds.
func parseRows(s string) ([]string, error) {
	out := []string{}
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if !slices.Contains(limitRowKinds, f) {
			return nil, fmt.Errorf("-limit-rows: unknown kind %q (known: %s)", f, strings.Join(limitRowKinds, ", "))
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-limit-rows: give at least one kind")
	}
	return out, nil
}

// parseEngines parses a comma-separated list of engines, keeping
// allEngines' order.
func parseEngines(s string) ([]string, error) {
	want := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if !contains(allEngines, f) {
			return nil, fmt.Errorf("-limit-engines: unknown engine %q (known: %s)", f, strings.Join(allEngines, ", "))
		}
		want[f] = true
	}
	var out []string
	for _, e := range allEngines {
		if want[e] {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-limit-engines: give at least one engine")
	}
	return out, nil
}
