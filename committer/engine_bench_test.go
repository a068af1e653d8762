package committer_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// BenchmarkEngineWrites measures writes per landed change with 16
// concurrent writers (each with its own Committer, as separate processes
// would have), against the fake without GitHub's limits: "shared" is each
// writer setting its own file and editing one shared index, "single" each
// writer editing only its own file. Run with
//
//	go test -run '^$' -bench BenchmarkEngineWrites -benchtime 3x ./committer/
func BenchmarkEngineWrites(b *testing.B) {
	const writers = 16
	for _, scenario := range []string{"shared", "single"} {
		for _, e := range allEngines {
			if scenario == "shared" && e == committer.EngineContents {
				continue // two files per change set: the contents engine cannot carry it
			}
			b.Run(scenario+"/"+e.String(), func(b *testing.B) {
				var total, landed int
				for range b.N {
					ts := githubtest.NewServer(b)
					if err := ts.CreateRepo(owner, repo, true); err != nil {
						b.Fatal(err)
					}
					before := allWrites(ts)
					var wg sync.WaitGroup
					var mu sync.Mutex
					for w := range writers {
						wg.Add(1)
						go func() {
							defer wg.Done()
							c, err := newWith(ts.Client, owner, repo, committer.WithRetries(100, nil))
							if err != nil {
								b.Error(err)
								return
							}
							cs := committer.NewChangeSet(fmt.Sprintf("stage %d", w)).Edit(fmt.Sprintf("stages/%d", w), appendLine("v2"))
							if scenario == "shared" {
								cs.Edit("index", appendLine(fmt.Sprintf("stage %d", w)))
							}
							if _, err := c.Commit(context.Background(), "main", cs, committer.WithEngine(e)); err != nil {
								b.Error(err)
								return
							}
							mu.Lock()
							landed++
							mu.Unlock()
						}()
					}
					wg.Wait()
					total += allWrites(ts) - before
				}
				b.ReportMetric(float64(total)/float64(max(landed, 1)), "writes/change")
				b.ReportMetric(float64(landed)/float64(b.N), "landed/run")
			})
		}
	}
}
