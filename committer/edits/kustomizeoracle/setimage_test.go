package kustomizeoracle

import (
	"reflect"
	"sort"
	"testing"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/kv"
	"sigs.k8s.io/kustomize/api/pkg/loader"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kustomize/v5/commands/edit/set"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/ghcommitter/ghcommitter/committer/edits"
)

var kustomizations = []string{
	"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n# the stage's images\nimages:\n- name: api\n  newName: ghcr.io/acme/api # moved registries\n  newTag: \"1.0\"\n- name: worker\n  digest: sha256:1111\nresources:\n  - deployment.yaml\n",
	"resources:\n- a.yaml\n",
	"images: []\nresources: [a.yaml]\n",
	"images:\n  - name: api\n    newTag: \"0.9\"\n    digest: sha256:0000\n",
	"images:\n- name: api\n  newName: reg/api\n  newTag: v1\n- name: db\n  newTag: \"5\"\n",
}

var args = []string{
	"api:1.1", "api@sha256:2222", "api=ghcr.io/other/api:2.0", "api=ghcr.io/other/api", "api=ghcr.io/other/api@sha256:3",
	"worker:3", "new=reg/new@sha256:3333", "db:5.7", "api=*:1.2", "api=*@sha256:4", "api:*", "db=*",
	"api=reg:5000/api:1.2@sha256:5", "reg:5000/api:1.3", "api:1.2@sha256:6", "worker=*",
}

// kustomize runs `kustomize edit set image arg` on src and returns the
// resulting images, sorted by name.
func kustomize(t *testing.T, src, arg string) []types.Image {
	t.Helper()
	fSys := filesys.MakeFsInMemory()
	if err := fSys.WriteFile("kustomization.yaml", []byte(src)); err != nil {
		t.Fatal(err)
	}
	pv := provider.NewDefaultDepProvider()
	ldr := kv.NewLoader(loader.NewFileLoaderAtCwd(fSys), pv.GetFieldValidator())
	cmd := set.NewCmdSet(fSys, ldr, pv.GetFieldValidator(), pv.GetResourceFactory())
	cmd.SetArgs([]string{"image", arg})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.Execute(); err != nil {
		t.Fatalf("kustomize edit set image %s: %v", arg, err)
	}
	out, err := fSys.ReadFile("kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return images(t, out)
}

func images(t *testing.T, src []byte) []types.Image {
	var k types.Kustomization
	if err := yaml.Unmarshal(src, &k); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	sort.Slice(k.Images, func(i, j int) bool { return k.Images[i].Name < k.Images[j].Name })
	if len(k.Images) == 0 {
		return nil
	}
	return k.Images
}

// TestSetImageMatchesKustomize: for every kustomization and argument, the
// images list edits.SetImage leaves is the one kustomize writes (compared
// as data: kustomize re-formats and sorts the file).
func TestSetImageMatchesKustomize(t *testing.T) {
	for _, src := range kustomizations {
		for _, arg := range args {
			img, err := edits.ParseImage(arg)
			if err != nil {
				t.Fatalf("ParseImage(%q): %v", arg, err)
			}
			out, err := edits.SetImage(img)([]byte(src), true)
			if err != nil {
				t.Fatalf("SetImage(%q) on %q: %v", arg, src, err)
			}
			want := kustomize(t, src, arg)
			if got := images(t, out); !reflect.DeepEqual(got, want) {
				t.Errorf("%q on\n%s\n got %+v\nwant %+v\n%s", arg, src, got, want, out)
			}
		}
	}
}
