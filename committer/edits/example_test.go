package edits_test

import (
	"fmt"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/edits"
)

func Example() {
	cs := committer.NewChangeSet("Promote api to 1.21 in staging").
		Edit("stages/staging/values.yaml", edits.Set(edits.YAML, "image.tag", "1.21")).
		Edit("stages/staging/kustomization.yaml", edits.SetImage(edits.Image{Name: "api", NewTag: "1.21"}))
	fmt.Println(cs.Len())

	// What the values file's edit does to a file's content:
	out, _ := edits.Set(edits.YAML, "image.tag", "1.21")([]byte("image:\n  tag: \"1.20\" # pinned\n"), true)
	fmt.Print(string(out))
	// Output:
	// 2
	// image:
	//   tag: "1.21" # pinned
}
