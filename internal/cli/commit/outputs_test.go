package commit

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestChangedFilesCut(t *testing.T) {
	var paths []string
	for i := 0; i < 20000; i++ {
		paths = append(paths, fmt.Sprintf("deploy/service-%05d/values.yaml", i))
	}
	s, cut := changedFilesJSON(paths)
	var got []string
	if err := json.Unmarshal([]byte(s), &got); err != nil {
		t.Fatal(err)
	}
	if !cut || len(s) > maxChangedFiles || len(got) == 0 || len(got) >= len(paths) || got[len(got)-1] != paths[len(got)-1] {
		t.Errorf("cut %t, %d bytes, %d of %d paths", cut, len(s), len(got), len(paths))
	}
	s, cut = changedFilesJSON(paths[:3])
	if cut || !strings.HasPrefix(s, `["deploy/service-00000/values.yaml",`) {
		t.Errorf("%s %t", s, cut)
	}
}
