// Command promotions promotes an image to N deployment stages at once, each
// stage a separate writer committing to the same branch of one monorepo, as
// a GitOps pipeline's parallel jobs would.
//
// Every stage writes its own envs/<stage>/values.yaml and records its tag in
// one shared file, envs/index.yaml, through an edit function that sets its
// key in the YAML node tree, so the file's comments, key order and quoting
// survive (as a Kargo or Argo CD image updater's YAML update keeps them). When another stage moves the branch
// first, the commit is rebuilt on the new head and the edit function runs
// again on the fresh index, so no stage's entry is lost and nothing conflicts.
//
//	go run ./examples/promotions -stages 8
//	go run ./examples/promotions -queue    # one process: batch through a committer.Queue
//
// Against GitHub (GITHUB_TOKEN with contents: write; GITHUB_API_URL for GHES):
//
//	GITHUB_TOKEN=... go run ./examples/promotions -repo you/scratch -branch ghcommitter-promotions
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sync"
	"text/tabwriter"

	"go.yaml.in/yaml/v3"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/examples/internal/target"
)

const indexPath = "envs/index.yaml"

func main() { target.Main("promotions", run) }

// stageNames names the first stages; more are called stage-7, stage-8, ...
var stageNames = []string{"dev", "qa", "staging", "canary", "prod-eu", "prod-us"}

func stageName(i int) string {
	if i < len(stageNames) {
		return stageNames[i]
	}
	return fmt.Sprintf("stage-%d", i+1)
}

// promotion is one stage's outcome.
type promotion struct {
	stage, tag string
	res        *committer.Result
	err        error
}

// run runs the example and returns the embedded fake it ran against (nil
// against GitHub), so tests can inspect the branch.
func run(ctx context.Context, args []string, stdout io.Writer) (*githubtest.Server, error) {
	fs := flag.NewFlagSet("promotions", flag.ContinueOnError)
	fs.SetOutput(stdout)
	flags := target.DefineFlags(fs, "GITHUB_TOKEN", "branch every stage commits to")
	stages := fs.Int("stages", 6, "number of stages promoting at once")
	image := fs.String("image", "ghcr.io/acme/api", "image repository")
	useQueue := fs.Bool("queue", false, "send the stages through one committer.Queue (batched ref updates) instead of racing")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *stages < 1 || *stages > 100 {
		return nil, errors.New("-stages must be between 1 and 100")
	}
	// Every writer may lose the race to each of the others once or more.
	t, err := target.Connect(ctx, flags.Repo, committer.WithRetries(max(10, 3**stages), nil))
	if err != nil {
		return nil, err
	}
	defer t.Close()

	commit := func(cs *committer.ChangeSet) (*committer.Result, error) {
		return t.Committer.Commit(ctx, flags.Branch, cs, flags.CommitOptions()...)
	}
	if *useQueue {
		q, err := committer.NewQueue(t.Committer, flags.Branch, flags.CommitOptions()...)
		if err != nil {
			return t.Fake, err
		}
		commit = func(cs *committer.ChangeSet) (*committer.Result, error) { return q.Commit(ctx, cs) }
	}

	out := make([]promotion, *stages)
	var wg sync.WaitGroup
	for i := range out {
		stage, tag := stageName(i), fmt.Sprintf("v1.%d.0", i+1)
		out[i] = promotion{stage: stage, tag: tag}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := committer.NewChangeSet(fmt.Sprintf("promote %s to %s:%s", stage, *image, tag)).
				Put("envs/"+stage+"/values.yaml", valuesYAML(*image, tag)).
				Edit(indexPath, setIndexEntry(stage, tag))
			out[i].res, out[i].err = commit(cs)
		}()
	}
	wg.Wait()

	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STAGE\tTAG\tCOMMIT\tATTEMPTS\tRESULT")
	var errs []error
	for _, p := range out {
		switch {
		case p.err != nil:
			errs = append(errs, p.err)
			fmt.Fprintf(tw, "%s\t%s\t-\t-\tfailed: %v\n", p.stage, p.tag, p.err)
		case p.res.NoOp:
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\talready there\n", p.stage, p.tag, p.res.Commit[:12], p.res.Attempts)
		default:
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\tlanded\n", p.stage, p.tag, p.res.Commit[:12], p.res.Attempts)
		}
	}
	if err := tw.Flush(); err != nil {
		return t.Fake, err
	}
	if err := errors.Join(errs...); err != nil {
		return t.Fake, err
	}
	if t.Fake != nil {
		idx, _, err := t.Fake.ReadFile(t.Owner, t.Name, flags.Branch, indexPath)
		if err != nil {
			return t.Fake, err
		}
		fmt.Fprintf(stdout, "\n%s on %s:\n%s", indexPath, flags.Branch, idx)
	}
	return t.Fake, nil
}

func valuesYAML(image, tag string) []byte {
	b, _ := encodeYAML(map[string]any{"image": map[string]string{"repository": image, "tag": tag}})
	return b
}

// encodeYAML encodes v with two-space indentation, keys sorted.
func encodeYAML(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// setIndexEntry returns an edit function that sets stages.<stage> to tag in
// the index, keeping every other key, every comment and the key order: it
// edits the YAML node tree rather than decoding into a map. It is a pure
// function of the file's content, as edit functions must be: it runs again
// on every attempt.
func setIndexEntry(stage, tag string) committer.EditFunc {
	return func(old []byte, exists bool) ([]byte, error) {
		var doc yaml.Node
		if exists {
			if err := yaml.Unmarshal(old, &doc); err != nil {
				return nil, fmt.Errorf("%s: %w", indexPath, err)
			}
		}
		if doc.Kind == 0 { // absent or empty: start a document
			doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
		}
		root := doc.Content[0]
		if root.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s: the document is not a mapping", indexPath)
		}
		stages := mappingValue(root, "stages")
		if stages == nil {
			stages = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			root.Content = append(root.Content, scalar("stages"), stages)
		}
		if stages.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s: stages is not a mapping", indexPath)
		}
		if v := mappingValue(stages, stage); v != nil {
			if v.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("%s: stages.%s is not a scalar", indexPath, stage)
			}
			v.Value, v.Tag = tag, "!!str" // keeps its style and comments
		} else {
			stages.Content = append(stages.Content, scalar(stage), scalar(tag))
		}
		return encodeYAML(&doc)
	}
}

// mappingValue returns the value node of key in mapping m, nil when absent.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}
