package main

import (
	"slices"
	"time"
)

// writerResult is what one writer saw.
type writerResult struct {
	Landed   bool
	Attempts int           // attempts made (pushes, for git); 0 when unknown
	Latency  time.Duration // from the writer's start to its outcome
	// Done is when the outcome came, from the launch of all the writers:
	// a CLI process's first byte of --json output (printed once the
	// change landed or failed), else its exit; 0 where not measured.
	Done time.Duration
	Err  string // why it did not land
}

// runResult is one mode in one configuration.
type runResult struct {
	Mode           string
	Files, Writers int
	Skipped        string // why the mode did not run, or ""

	Landed       int
	Wall         time.Duration
	MeanAttempts float64
	MaxAttempts  int
	Requests     int64
	Bytes        int64 // request and response bodies, both directions
	NotModified  int64 // requests answered 304 (conditional reads), among Requests
	P50, P99     time.Duration
	Exhausted    int      // writers that used every attempt and did not land
	Errors       []string // distinct reasons writers did not land (first few)
}

// summarize fills a runResult from the writers' results and the traffic
// counted by the server; limit is the attempts a writer may make.
func summarize(mode string, files int, ws []writerResult, wall time.Duration, requests, bytes int64, limit int) runResult {
	r := runResult{Mode: mode, Files: files, Writers: len(ws), Wall: wall, Requests: requests, Bytes: bytes}
	var lat []time.Duration
	sum, counted := 0, 0
	seen := map[string]bool{}
	for _, w := range ws {
		if !w.Landed && w.Attempts >= limit {
			r.Exhausted++
		}
		if w.Landed {
			r.Landed++
		} else if w.Err != "" && !seen[w.Err] && len(r.Errors) < 3 {
			seen[w.Err] = true
			r.Errors = append(r.Errors, w.Err)
		}
		if w.Attempts > 0 {
			sum += w.Attempts
			counted++
			r.MaxAttempts = max(r.MaxAttempts, w.Attempts)
		}
		lat = append(lat, w.Latency)
	}
	if counted > 0 {
		r.MeanAttempts = float64(sum) / float64(counted)
	}
	r.P50 = percentile(lat, 50)
	r.P99 = percentile(lat, 99)
	return r
}

// percentile is the nearest-rank percentile of ds.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := (p*len(s) + 99) / 100 // ceil(p/100 · n)
	return s[max(rank, 1)-1]
}

// RequestsPerLanded is requests divided by landed changes (0 if none landed).
func (r runResult) RequestsPerLanded() float64 {
	if r.Landed == 0 {
		return 0
	}
	return float64(r.Requests) / float64(r.Landed)
}

// Throughput is landed changes per second of wall time.
func (r runResult) Throughput() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return float64(r.Landed) / r.Wall.Seconds()
}

// MB is the bytes moved in megabytes (10^6).
func (r runResult) MB() float64 { return float64(r.Bytes) / 1e6 }
