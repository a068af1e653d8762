package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// report is a run's outcome: what the fake counted, what the shards said.
type report struct {
	Shards int     `json:"shards"`
	Stages int     `json:"stages"` // per shard
	Turns  string  `json:"turns"`
	Scale  float64 `json:"scale"`
	Lease  string  `json:"lease,omitempty"`
	Landed int     `json:"landed"`
	Want   int     `json:"want"`
	// Writes is every content-creating request the fake received (refused
	// ones too); WritesPerLanded that per landed promotion.
	Writes          int     `json:"writes"`
	WritesPerLanded float64 `json:"writes_per_landed"`
	WritesLimited   int     `json:"writes_limited"` // writes a rate limit refused (403/429)
	Limited         int     `json:"limited"`        // requests a rate limit refused
	// LostRaces is the stages' attempts that lost the race for the
	// branch; MaxAttempts a stage's most attempts.
	LostRaces   int `json:"lost_races"`
	MaxAttempts int `json:"max_attempts"`
	// LeaseTurns and Queued are the Lease turns the shards took, and
	// those they waited for.
	LeaseTurns int `json:"lease_turns"`
	Queued     int `json:"queued"`
	// Unreported is the promotions on the branch whose stage reported no
	// landing (an outcome a lost reply left unknown).
	Unreported int `json:"unreported"`
	// FinalHolder is the Lease's holder once every shard exited: "" when
	// every turn was released ("-" with -turns local: no Lease).
	FinalHolder string        `json:"final_holder"`
	Wall        time.Duration `json:"wall_ns"`
	Errors      []string      `json:"errors,omitempty"`
	Kill        *killReport   `json:"kill,omitempty"`
	Results     []shardResult `json:"results"`
}

// summarize sums the shards' results and the fake's counts.
func (e *runEnv) summarize(results []shardResult, wall time.Duration) *report {
	st := e.fake.LimitStats(e.token)
	r := &report{Shards: e.cfg.shards, Stages: e.cfg.stages, Turns: e.cfg.turns, Scale: e.cfg.scale,
		Want: e.cfg.shards * e.cfg.stages, Writes: st.Writes, WritesLimited: st.WritesLimited, Limited: st.Limited,
		Wall: wall, Results: results}
	r.FinalHolder = "-"
	if e.cfg.turns == turnsLease {
		r.Lease = e.cfg.lease.String()
	}
	for _, s := range results {
		r.LostRaces += s.LostRaces
		r.LeaseTurns += s.Turns
		r.Queued += s.Queued
		for _, st := range s.Stages {
			r.MaxAttempts = max(r.MaxAttempts, st.Attempts)
			if st.Landed {
				r.Landed++
			} else {
				r.Errors = append(r.Errors, fmt.Sprintf("shard-%d/stage-%d: %s", s.Shard, st.Stage, st.Err))
			}
		}
	}
	if r.Landed > 0 {
		r.WritesPerLanded = float64(r.Writes) / float64(r.Landed)
	}
	return r
}

// verify checks every promotion on the branch: a landed stage's 3 files
// hold its content and its line is in the index once; a stage that did
// not report landing has its line at most once (counted in Unreported).
func (e *runEnv) verify(r *report) error {
	idx, _, err := e.fake.ReadFile(owner, repoName, branch, indexPath)
	if err != nil {
		return fmt.Errorf("reading %s: %w", indexPath, err)
	}
	for _, s := range r.Results {
		for _, st := range s.Stages {
			n := strings.Count(string(idx), indexLine(s.Shard, st.Stage))
			switch {
			case st.Landed && n != 1, n > 1:
				return fmt.Errorf("shard-%d/stage-%d (landed: %v): its line is in %s %d times", s.Shard, st.Stage, st.Landed, indexPath, n)
			case !st.Landed && n == 1:
				r.Unreported++
			}
			if !st.Landed {
				continue
			}
			for _, f := range stageFiles(s.Shard, st.Stage) {
				p := stageDir(s.Shard, st.Stage) + "/" + f.Path
				got, _, err := e.fake.ReadFile(owner, repoName, branch, p)
				if err != nil {
					return fmt.Errorf("shard-%d/stage-%d reported landed but %s cannot be read: %w", s.Shard, st.Stage, p, err)
				}
				if !bytes.Equal(got, f.Data) {
					return fmt.Errorf("shard-%d/stage-%d reported landed but %s does not hold its content", s.Shard, st.Stage, p)
				}
			}
		}
	}
	return nil
}

// write prints the report, as JSON or as text.
func (r *report) write(w io.Writer, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	coord := "Leases (lease " + r.Lease + ")"
	if r.Turns == turnsLocal {
		coord = "none shared (each shard's own lock files)"
	}
	fmt.Fprintf(w, "%d shards × %d stages, separate processes, turns: %s, GitHub's limits scaled %g×\n", r.Shards, r.Stages, coord, r.Scale)
	fmt.Fprintf(w, "landed %d/%d in %s; %d writes (%.2f per landed change), %d refused by a limit\n",
		r.Landed, r.Want, r.Wall.Round(time.Millisecond), r.Writes, r.WritesPerLanded, r.WritesLimited)
	fmt.Fprintf(w, "lost races %d, most attempts of a stage %d, Lease turns %d (%d waited for), on the branch unreported %d, Lease held at the end by %q\n",
		r.LostRaces, r.MaxAttempts, r.LeaseTurns, r.Queued, r.Unreported, r.FinalHolder)
	if k := r.Kill; k != nil {
		fmt.Fprintf(w, "killed %s in its turn with %d shards waiting: %s took over %s after the kill, %s after its last renewal (lease %s); transitions %d → %d\n",
			k.Holder, k.Waiting, k.TakenBy, k.Delay.Round(time.Millisecond), k.Expiry.Round(time.Millisecond), k.Lease, k.TransitionsBefore, k.TransitionsAfter)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "  not landed: %s\n", e)
	}
	return nil
}
